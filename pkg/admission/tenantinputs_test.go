package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// tenantCluster is tenant A's shop.example.com (Service web, Ingress
// shop), tenant B's Service web and every ExternalName Service of the
// inputs: the cluster the inputs' Ingresses are reviewed in.
func tenantCluster(tn nginxrefuses.Tenant, ins []nginxrefuses.TenantInput) render.Snapshot {
	svc := func(ns string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		}}
	}
	shop := nginxrefuses.Tenant{Namespace: "tenant-a", Service: "web"}.Ingress(nginxrefuses.TenantInput{ID: "shop", Host: tn.Shared})
	shop.CreationTimestamp = metav1.NewTime(t0)
	s := render.Snapshot{
		Ingresses:      []*networkingv1.Ingress{shop},
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services:       []*corev1.Service{svc("tenant-a"), svc(tn.Namespace)},
	}
	for _, in := range ins {
		if es := tn.ExternalService(in); es != nil {
			s.Services = append(s.Services, es)
		}
	}
	return s
}

// realConfTester is the ConfTester of a real nginx under a throwaway
// prefix (the inputs write no files); it counts its tests.
type realConfTester struct {
	in    *nginx.Instance
	tests int
}

func (r *realConfTester) TestConf(ctx context.Context, conf []byte, files []model.File) (*TestFailure, error) {
	r.tests++
	if len(files) > 0 {
		return nil, fmt.Errorf("%d files to write: not expected of the tenant inputs", len(files))
	}
	err := r.in.Test(ctx, conf)
	var te *nginx.TestError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &te):
		return &TestFailure{Message: te.Message, Line: te.Line}, nil
	}
	return nil, err
}

// TestTenantInputsThroughWebhook: each of issue 11's tenant inputs, as the
// create of its Ingress in an AdmissionReview, without and with Strict
// (and a real nginx -t): a refused input is denied with a cause on its
// field (for an ExternalName Service, the Ingress's backend that names
// it: the webhook reviews Ingresses), a served one is admitted with no
// warning, nginx -t accepting it.
func TestTenantInputsThroughWebhook(t *testing.T) {
	tester := nginxtest.Tester(t)
	ins := nginxrefuses.TenantInputs()
	tn := nginxrefuses.Tenant{Namespace: "tenant-b", Domain: "tenant-b.example", Service: "web", Shared: "shop.example.com"}
	s := tenantCluster(tn, ins)
	real := &realConfTester{in: tester}
	for _, strict := range []bool{false, true} {
		v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, render.DefaultOptions(), strict)
		if err != nil {
			t.Fatal(err)
		}
		if strict {
			v.WithNginxCheck(NginxCheck{Tester: real, Conf: nginxconf.DefaultConfOptions(), Timeout: 30 * time.Second})
		}
		h := NewHandler(v)
		for i, in := range ins {
			t.Run(fmt.Sprintf("strict=%v/%s", strict, in.ID), func(t *testing.T) {
				uid := fmt.Sprintf("uid-%d", i)
				code, out, raw := post(t, h, reviewOf(t, uid, admissionv1.Create, ingressGVK, tn.Ingress(in)))
				if code != http.StatusOK || out.Response == nil || string(out.Response.UID) != uid {
					t.Fatalf("HTTP %d: %s", code, raw)
				}
				resp := out.Response
				if in.Want.Served {
					if !resp.Allowed || len(resp.Warnings) > 0 {
						t.Errorf("%s: allowed %v, warnings %q, result %+v; want admitted with no warning", in.Why, resp.Allowed, resp.Warnings, resp.Result)
					}
					return
				}
				if resp.Allowed {
					t.Fatalf("%s: admitted (warnings %q), want denied on %s", in.Why, resp.Warnings, in.IngressField())
				}
				ref := "ingress " + tn.Namespace + "/" + in.ID + ": " + in.IngressField() + ": "
				found := false
				for _, c := range resp.Result.Details.Causes {
					found = found || c.Field == in.IngressField()
				}
				if !found || !strings.Contains(resp.Result.Message, ref) {
					t.Errorf("%s: denial %q, causes %+v; want one on %s", in.Why, resp.Result.Message, resp.Result.Details.Causes, in.IngressField())
				}
			})
		}
	}
	served := 0
	for _, in := range ins {
		if in.Want.Served {
			served++
		}
	}
	if real.tests != served {
		t.Errorf("nginx -t ran %d times, want once per served input (%d): a denied input is not tested", real.tests, served)
	}
}
