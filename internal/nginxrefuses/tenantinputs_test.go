package nginxrefuses

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The tenants of these tests: A serves shop.example.com; B writes the inputs.
var (
	tenantA = Tenant{Namespace: "tenant-a", Service: "web"}
	tenantB = Tenant{Namespace: "tenant-b", Domain: "tenant-b.example", Service: "web", Shared: "shop.example.com"}
)

// tenantSnapshot is tenant A's Ingress shop (created first) and Service,
// and the inputs as tenant B's objects beside B's Service.
func tenantSnapshot(ins []TenantInput) render.Snapshot {
	svc := func(ns string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		}}
	}
	shop := tenantA.Ingress(TenantInput{ID: "shop", Host: tenantB.Shared})
	shop.CreationTimestamp = metav1.Unix(1_700_000_000, 0)
	s := render.Snapshot{
		Ingresses:      []*networkingv1.Ingress{shop},
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services:       []*corev1.Service{svc("tenant-a"), svc("tenant-b")},
	}
	for _, in := range ins {
		ing := tenantB.Ingress(in)
		ing.CreationTimestamp = metav1.Unix(1_700_000_100, 0)
		s.Ingresses = append(s.Ingresses, ing)
		if es := tenantB.ExternalService(in); es != nil {
			s.Services = append(s.Services, es)
		}
	}
	return s
}

// checkOutcome checks in's Problems among ps as in.Want says: the one on
// its object and field, or none naming its objects and its host served.
func checkOutcome(t *testing.T, in TenantInput, cfg *model.Config, ps []model.Problem) {
	t.Helper()
	if in.Want.Served {
		if got := tenantB.ProblemsNaming(in, ps); len(got) > 0 {
			t.Errorf("%s (%s): Problems %v, want none (served)", in.ID, in.Why, got)
		}
		if srv := cfg.Server(tenantB.HostOf(in)); srv == nil || len(srv.Locations) == 0 {
			t.Errorf("%s (%s): no server with locations for host %q", in.ID, in.Why, tenantB.HostOf(in))
		}
		return
	}
	if _, ok := tenantB.ProblemOf(in, ps); !ok {
		t.Errorf("%s (%s): Problems %v, want one on %s %s", in.ID, in.Why, tenantB.ProblemsNaming(in, ps), tenantB.Ref(in), in.Want.Field)
	}
}

// TestTenantInputsThroughRender: each tenant input alone beside another
// tenant's host is a Problem naming its object and field, or (the host
// names, the CORS origins) served with no Problem.
func TestTenantInputsThroughRender(t *testing.T) {
	for _, in := range TenantInputs() {
		cfg, ps := render.Build(tenantSnapshot([]TenantInput{in}), render.DefaultOptions())
		checkOutcome(t, in, cfg, ps)
		if others := otherProblems(ps); len(others) > 0 {
			t.Errorf("%s: Problems of tenant A: %v", in.ID, others)
		}
	}
}

// otherProblems are the Problems of ps that are not tenant B's.
func otherProblems(ps []model.Problem) []model.Problem {
	var out []model.Problem
	for _, p := range ps {
		if p.Object.Namespace != tenantB.Namespace {
			out = append(out, p)
		}
	}
	return out
}

// TestTenantInputsAllAtOnceThroughNginx: every input at once as tenant B's
// objects: each one's outcome is the same as alone, and a real nginx -t
// accepts the config written (tenant A's host, the served inputs' hosts
// among them).
func TestTenantInputsAllAtOnceThroughNginx(t *testing.T) {
	tester := nginxtest.Tester(t)
	ins := TenantInputs()
	cfg, ps := render.Build(tenantSnapshot(ins), render.DefaultOptions())
	for _, in := range ins {
		checkOutcome(t, in, cfg, ps)
	}
	if srv := cfg.Server(tenantB.Shared); srv == nil || len(srv.Locations) == 0 {
		t.Errorf("tenant A's host %s is not served", tenantB.Shared)
	}
	conf, err := nginxconf.NGINXConf(cfg, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := tester.Test(ctx, conf); err != nil {
		t.Fatalf("nginx -t refuses the config of every tenant input: %v", err)
	}
}

// TestTenantYAML: the manifests hold each input's Ingress (and
// ExternalName Service) as Ingress and ExternalService make them.
func TestTenantYAML(t *testing.T) {
	ins := TenantInputs()
	created := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	y, err := tenantB.YAML(ins, created)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(strings.TrimPrefix(y, "---\n"), "\n---\n")
	i := 0
	for _, in := range ins {
		var ing networkingv1.Ingress
		if err := yaml.Unmarshal([]byte(docs[i]), &ing); err != nil {
			t.Fatal(err)
		}
		i++
		want := tenantB.Ingress(in)
		if ing.Name != in.ID || ing.Namespace != tenantB.Namespace || !ing.CreationTimestamp.Time.Equal(created) ||
			ing.Spec.Rules[0].Host != want.Spec.Rules[0].Host || ing.Spec.Rules[0].HTTP.Paths[0].Path != want.Spec.Rules[0].HTTP.Paths[0].Path ||
			len(ing.Annotations) != len(want.Annotations) {
			t.Errorf("%s: the YAML's Ingress %+v differs from %+v", in.ID, ing.ObjectMeta, want.ObjectMeta)
		}
		if in.ExternalName != "" {
			var svc corev1.Service
			if err := yaml.Unmarshal([]byte(docs[i]), &svc); err != nil {
				t.Fatal(err)
			}
			i++
			if svc.Name != in.ID || svc.Spec.Type != corev1.ServiceTypeExternalName || svc.Spec.ExternalName != in.ExternalName {
				t.Errorf("%s: the YAML's Service %s %s %q", in.ID, svc.Name, svc.Spec.Type, svc.Spec.ExternalName)
			}
		}
	}
	if i != len(docs) {
		t.Errorf("%d documents, want %d", len(docs), i)
	}
}
