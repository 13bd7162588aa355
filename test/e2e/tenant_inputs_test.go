package e2e

// Issue 11's table of tenant inputs (nginxrefuses.TenantInputs) through
// the controller with a real nginx, on the files source and on a real API
// server: all inputs at once as tenant B's objects beside tenant A's
// host. Each refused input's Problem is reported on its object and field,
// the served ones (long host names, many CORS origins) are served, nothing
// is quarantined, no reload or Lua push fails, and tenant A's new host and
// endpoint move are served afterwards.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// problemRecorder keeps the Problems of the last sync.
type problemRecorder struct {
	mu   sync.Mutex
	last []model.Problem
}

func (r *problemRecorder) ReportProblems(_ context.Context, ps []model.Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = append([]model.Problem(nil), ps...)
}

func (r *problemRecorder) problems() []model.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// missingOutcomes says which refused inputs have no Problem on their
// object and field in ps, and which served ones have a Problem; "" when
// every input is as its Want says.
func missingOutcomes(tn nginxrefuses.Tenant, ins []nginxrefuses.TenantInput, ps []model.Problem) string {
	var bad []string
	for _, in := range ins {
		if in.Want.Served {
			if got := tn.ProblemsNaming(in, ps); len(got) > 0 {
				bad = append(bad, fmt.Sprintf("%s: served, but Problems %v", in.ID, got))
			}
			continue
		}
		if _, ok := tn.ProblemOf(in, ps); !ok {
			bad = append(bad, fmt.Sprintf("%s: no Problem on %s %s (has %v)", in.ID, tn.Ref(in), in.Want.Field, tn.ProblemsNaming(in, ps)))
		}
	}
	return strings.Join(bad, "\n")
}

// waitNone waits until check says nothing is missing, and fails the test
// with what it said last at timeout.
func waitNone(t *testing.T, timeout time.Duration, what string, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for why := check(); why != ""; why = check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s within %v:\n%s", what, timeout, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// problemsMetric is the sum of kubectl_ingress_problems over its families.
func problemsMetric(t *testing.T, c *controller.Controller) float64 {
	t.Helper()
	text := controllerMetrics(c)
	sum := 0.0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "kubectl_ingress_problems{") {
			series, _, _ := strings.Cut(line, " ")
			sum += metricValue(t, text, series)
		}
	}
	return sum
}

// checkTenantInputs waits until the last sync's Problems are as the
// inputs want, and checks them against /metrics and the served hosts.
func checkTenantInputs(t *testing.T, rc *runningController, rec *problemRecorder, tn nginxrefuses.Tenant, ins []nginxrefuses.TenantInput, prefix string) {
	t.Helper()
	waitNone(t, 60*time.Second, "the inputs' outcomes", func() string { return missingOutcomes(tn, ins, rec.problems()) })
	ps := rec.problems()
	for _, in := range ins {
		if in.Want.Served {
			rc.eventuallyServes(t, 20*time.Second, tn.HostOf(in), "/", 200, prefix+" /")
		}
	}
	if got := problemsMetric(t, rc.c); got != float64(len(ps)) {
		t.Errorf("kubectl_ingress_problems sums to %v, the reporter has %d Problems", got, len(ps))
	}
	if v := metricValue(t, controllerMetrics(rc.c), `kubectl_ingress_problems{family="quarantined"}`); v != 0 {
		t.Errorf(`kubectl_ingress_problems{family="quarantined"} %v, want 0`, v)
	}
}

// checkNoFailure checks that since before no reload and no Lua push
// failed and nothing was quarantined.
func checkNoFailure(t *testing.T, rc *runningController, before controller.Stats) {
	t.Helper()
	st := rc.settle(t)
	if st.ReloadErrors != before.ReloadErrors || st.DynamicErrors != before.DynamicErrors || st.Quarantined != 0 {
		t.Errorf("stats %+v (before the inputs %+v): want no new reload or dynamic error and nothing quarantined", st, before)
	}
	switch {
	case e2eRouting(t) == nginxconf.RoutingLua:
		// New hosts are Lua data; a reload only for the ones with a
		// setting that keeps them classic.
		if st.Reloads+st.DynamicUpdates <= before.Reloads+before.DynamicUpdates {
			t.Errorf("stats %+v (before %+v): want the new hosts applied", st, before)
		}
	case st.Reloads <= before.Reloads:
		t.Errorf("stats %+v (before %+v): want a reload for the new hosts", st, before)
	}
}

// nsServiceYAML is serviceYAML in namespace ns.
func nsServiceYAML(ns, name string, port int) string {
	return strings.ReplaceAll(serviceYAML(name, port), "namespace: e2e", "namespace: "+ns)
}

// TestFilesTenantInputs: every tenant input at once, written by tenant B
// as one manifest file while the controller on the files source serves
// tenant A's shop.example.com.
func TestFilesTenantInputs(t *testing.T) {
	ins := nginxrefuses.TenantInputs()
	tn := nginxrefuses.Tenant{Namespace: "tenant-b", Domain: "tenant-b.example", Service: "web", Shared: "shop.example.com"}
	alpha, beta, gamma := namedBackend(t, "alpha"), namedBackend(t, "beta"), namedBackend(t, "gamma")
	rec := &problemRecorder{}
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":        benchClass,
		"svc/web.yaml":      serviceYAML("web", alpha),
		"ing/shop.yaml":     filesIngress("shop", "shop.example.com", nil, "/", "web"),
		"tenant-b/web.yaml": nsServiceYAML("tenant-b", "web", gamma),
	}, controllerOptions{debounce: 20 * time.Millisecond, problems: rec})
	fc.eventuallyServes(t, 20*time.Second, "shop.example.com", "/", 200, "alpha /")
	before := fc.settle(t)

	y, err := tn.YAML(ins, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) // younger than shop
	if err != nil {
		t.Fatal(err)
	}
	fc.write(t, "tenant-b/inputs.yaml", y)
	checkTenantInputs(t, &fc.runningController, rec, tn, ins, "gamma")
	// The younger regex "/.*" of tenant B is refused: A keeps its host.
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/anything", 200, "alpha /anything")

	t.Run("tenant A's new host is served", func(t *testing.T) {
		fc.write(t, "ing/blog.yaml", filesIngress("blog", "blog.example.com", nil, "/", "web"))
		fc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "alpha /")
	})
	t.Run("tenant A's endpoint move is served", func(t *testing.T) {
		fc.write(t, "svc/web.yaml", serviceYAML("web", beta))
		fc.eventuallyServes(t, 20*time.Second, "shop.example.com", "/", 200, "beta /")
		fc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "beta /")
	})
	if why := missingOutcomes(tn, ins, rec.problems()); why != "" {
		t.Errorf("after tenant A's changes:\n%s", why)
	}
	checkNoFailure(t, &fc.runningController, before)
}

// TestClusterTenantInputs is TestFilesTenantInputs through a real API
// server (the ExternalName Services too): the objects are created one by
// one as a tenant would, and each refused input's object gets a Warning
// Event naming the field.
func TestClusterTenantInputs(t *testing.T) {
	ins := nginxrefuses.TenantInputs()
	tn := nginxrefuses.Tenant{Namespace: "tenant-b", Domain: "tenant-b.example", Service: "web", Shared: "shop.example.com"}
	cp := startControlPlane(t)
	ctx := context.Background()
	create, update := metav1.CreateOptions{}, metav1.UpdateOptions{}
	ip := endpointIP(t)
	alpha, beta, gamma := ipBackend(t, ip, "alpha"), ipBackend(t, ip, "beta"), ipBackend(t, ip, "gamma")

	rec := &problemRecorder{}
	cc := startClusterController(t, cp.cfg, "", controllerOptions{problems: rec})
	cs := cc.cs
	for _, ns := range []string{"tenant-a", "tenant-b"} {
		must(cs.CoreV1().Namespaces().Create(ctx, kNamespace(ns), create))(t)
	}
	must(cs.NetworkingV1().IngressClasses().Create(ctx, kIngressClass(), create))(t)
	webSlice := createService(t, cs, "tenant-a", "web", ip, alpha)
	createService(t, cs, "tenant-b", "web", ip, gamma)
	must(cs.NetworkingV1().Ingresses("tenant-a").Create(ctx, kIngress("tenant-a", "shop", "shop.example.com", nil, "/", "web"), create))(t)
	cc.eventuallyServes(t, 20*time.Second, "shop.example.com", "/", 200, "alpha /")
	before := cc.settle(t)

	for _, in := range ins {
		if svc := tn.ExternalService(in); svc != nil {
			must(cs.CoreV1().Services(tn.Namespace).Create(ctx, svc, create))(t)
		}
		must(cs.NetworkingV1().Ingresses(tn.Namespace).Create(ctx, tn.Ingress(in), create))(t)
	}
	checkTenantInputs(t, &cc.runningController, rec, tn, ins, "gamma")
	cc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/anything", 200, "alpha /anything")

	t.Run("a Warning Event on each refused input's object names the field", func(t *testing.T) {
		waitNone(t, 30*time.Second, "the Events", func() string { return missingEvents(t, cc, tn, ins) })
	})
	t.Run("tenant A's new host is served", func(t *testing.T) {
		must(cs.NetworkingV1().Ingresses("tenant-a").Create(ctx, kIngress("tenant-a", "blog", "blog.example.com", nil, "/", "web"), create))(t)
		cc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "alpha /")
	})
	t.Run("tenant A's endpoint move is served", func(t *testing.T) {
		setSlicePort(webSlice, beta)
		must(cs.DiscoveryV1().EndpointSlices("tenant-a").Update(ctx, webSlice, update))(t)
		cc.eventuallyServes(t, 20*time.Second, "shop.example.com", "/", 200, "beta /")
		cc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "beta /")
	})
	if why := missingOutcomes(tn, ins, rec.problems()); why != "" {
		t.Errorf("after tenant A's changes:\n%s", why)
	}
	checkNoFailure(t, &cc.runningController, before)
}

// missingEvents says which refused inputs' objects have no Warning Event
// whose message starts with their field; "" when none is missing.
func missingEvents(t *testing.T, cc *clusterController, tn nginxrefuses.Tenant, ins []nginxrefuses.TenantInput) string {
	t.Helper()
	list, err := cc.cs.CoreV1().Events(tn.Namespace).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("type", corev1.EventTypeWarning).String(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, in := range ins {
		if in.Want.Served {
			continue
		}
		ref, found := tn.Ref(in), false
		for _, e := range list.Items {
			found = found || (e.InvolvedObject.Kind == ref.Kind && e.InvolvedObject.Name == ref.Name && strings.HasPrefix(e.Message, in.Want.Field+": "))
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%s %s: no Warning Event on %s", ref.Kind, ref, in.Want.Field))
		}
	}
	return strings.Join(missing, "\n")
}
