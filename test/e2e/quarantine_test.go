package e2e

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// The quarantine tests need an Ingress that render accepts and nginx -t
// refuses on a line the writer wrote for it. Render refuses every real one
// it knows (nginxrefuses.All), so their controllers write nginx.conf with
// the writer's test seam on (controllerOptions.seam).

// controllerMetrics returns what the controller's /metrics answers.
func controllerMetrics(c *controller.Controller) string {
	rec := httptest.NewRecorder()
	c.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

// TestFilesQuarantine: a tenant's Ingress that renders but that nginx -t
// refuses (nginxrefuses.Pick: the seam's culprit, or a real one should
// render let one through again) is left out; another tenant's new host, written right after
// it, is served; endpoint changes are served; fixed, the Ingress is served
// again.
func TestFilesQuarantine(t *testing.T) {
	in := nginxrefuses.Pick(t) // skips without nginx
	alpha, beta, gamma := namedBackend(t, "alpha"), namedBackend(t, "beta"), namedBackend(t, "gamma")
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":     benchClass,
		"svc/web.yaml":   serviceYAML("web", alpha),
		"svc/other.yaml": serviceYAML("other", gamma),
		"ing/shop.yaml":  filesIngress("shop", "shop.example.com", nil, "/", "web"),
	}, controllerOptions{debounce: 20 * time.Millisecond, seam: true, routing: nginxconf.RoutingNginx})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")

	fc.write(t, "ing/bad.yaml", in.YAML("e2e", "bad", "bad.example.com", "other", "2026-02-01T00:00:00Z"))
	fc.write(t, "ing/blog.yaml", filesIngress("blog", "blog.example.com", nil, "/", "other"))
	fc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "gamma /")
	waitFor(t, 10*time.Second, "one Ingress quarantined", func() bool { return fc.c.Stats().Quarantined == 1 })
	if code, _ := fc.get("bad.example.com", "/"); code != 404 {
		t.Errorf("the quarantined Ingress's host answers %d, want 404", code)
	}
	waitFor(t, 5*time.Second, "the quarantine Problem in the log", func() bool {
		return strings.Contains(fc.logs.String(), `"Problem" object="Ingress e2e/bad" field="metadata" reason="quarantined: nginx -t: `)
	})
	metrics := controllerMetrics(fc.c)
	if v := metricValue(t, metrics, "kubectl_ingress_quarantined"); v != 1 {
		t.Errorf("kubectl_ingress_quarantined %v, want 1", v)
	}
	if v := metricValue(t, metrics, `kubectl_ingress_problems{family="quarantined"}`); v != 1 {
		t.Errorf(`kubectl_ingress_problems{family="quarantined"} %v, want 1`, v)
	}

	t.Run("others' changes are served: an endpoint move, a new path", func(t *testing.T) {
		fc.write(t, "svc/web.yaml", serviceYAML("web", beta))
		fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
		fc.write(t, "ing/shop.yaml", filesIngress("shop", "shop.example.com", nil, "/", "web", "/cart", "other"))
		fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/cart", 200, "gamma /cart")
		if st := fc.c.Stats(); st.Quarantined != 1 {
			t.Errorf("stats %+v: want the culprit still quarantined", st)
		}
	})

	t.Run("fixed: served again, the gauge back to 0", func(t *testing.T) {
		fc.write(t, "ing/bad.yaml", filesIngress("bad", "bad.example.com", nil, "/", "other"))
		fc.eventuallyServes(t, 20*time.Second, "bad.example.com", "/", 200, "gamma /")
		waitFor(t, 10*time.Second, "no Ingress quarantined", func() bool { return fc.c.Stats().Quarantined == 0 })
		if v := metricValue(t, controllerMetrics(fc.c), "kubectl_ingress_quarantined"); v != 0 {
			t.Errorf("kubectl_ingress_quarantined %v, want 0", v)
		}
		fc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 200, "gamma /")
	})
}

// TestClusterQuarantine is TestFilesQuarantine through the API server:
// the culprit also gets a Warning Event of reason Quarantined.
func TestClusterQuarantine(t *testing.T) {
	in := nginxrefuses.Pick(t) // skips without nginx
	cp := startControlPlane(t)
	ctx := context.Background()
	create, update := metav1.CreateOptions{}, metav1.UpdateOptions{}
	ip := endpointIP(t)
	alpha, beta, gamma := ipBackend(t, ip, "alpha"), ipBackend(t, ip, "beta"), ipBackend(t, ip, "gamma")

	cc := startClusterController(t, cp.cfg, "", controllerOptions{seam: true, routing: nginxconf.RoutingNginx})
	cs := cc.cs
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		must(cs.CoreV1().Namespaces().Create(ctx, kNamespace(ns), create))(t)
	}
	must(cs.NetworkingV1().IngressClasses().Create(ctx, kIngressClass(), create))(t)
	webSlice := createService(t, cs, "team-a", "web", ip, alpha)
	createService(t, cs, "team-b", "other", ip, gamma)
	createService(t, cs, "team-c", "blog", ip, gamma)
	must(cs.NetworkingV1().Ingresses("team-a").Create(ctx, kIngress("team-a", "shop", "shop.example.com", nil, "/", "web"), create))(t)
	cc.eventuallyServes(t, 20*time.Second, "shop.example.com", "/", 200, "alpha /")

	bad := must(cs.NetworkingV1().Ingresses("team-b").Create(ctx, in.Ingress("team-b", "bad", "bad.example.com", "other"), create))(t)
	must(cs.NetworkingV1().Ingresses("team-c").Create(ctx, kIngress("team-c", "blog", "blog.example.com", nil, "/", "blog"), create))(t)
	cc.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "gamma /")
	waitFor(t, 10*time.Second, "one Ingress quarantined", func() bool { return cc.c.Stats().Quarantined == 1 })
	if code, _ := cc.get("bad.example.com", "/"); code != 404 {
		t.Errorf("the quarantined Ingress's host answers %d, want 404", code)
	}
	events := waitForEvents(t, cc, "team-b", "bad", bad.UID, 1)
	if e := events[0]; e.Type != corev1.EventTypeWarning || e.Reason != controller.ReasonQuarantined ||
		!strings.HasPrefix(e.Message, "metadata: quarantined: nginx -t: ") {
		t.Errorf("event %s %s %q", e.Type, e.Reason, e.Message)
	}
	if v := metricValue(t, controllerMetrics(cc.c), "kubectl_ingress_quarantined"); v != 1 {
		t.Errorf("kubectl_ingress_quarantined %v, want 1", v)
	}

	t.Run("others' endpoint changes are served", func(t *testing.T) {
		setSlicePort(webSlice, beta)
		webSlice = must(cs.DiscoveryV1().EndpointSlices("team-a").Update(ctx, webSlice, update))(t)
		cc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
	})

	t.Run("a status update does not end the quarantine", func(t *testing.T) {
		before := cc.settle(t)
		bad = must(cs.NetworkingV1().Ingresses("team-b").Get(ctx, "bad", metav1.GetOptions{}))(t)
		bad.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
		bad = must(cs.NetworkingV1().Ingresses("team-b").UpdateStatus(ctx, bad, update))(t)
		// A status update is no sync of its own: another tenant's endpoint
		// move makes the next one, which reads the culprit with its new
		// status and resourceVersion. Were its entry dropped, that sync
		// would try it again: a reload nginx -t refuses.
		setSlicePort(webSlice, alpha)
		webSlice = must(cs.DiscoveryV1().EndpointSlices("team-a").Update(ctx, webSlice, update))(t)
		cc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")
		if st := cc.settle(t); st.Quarantined != 1 || st.ReloadErrors != before.ReloadErrors {
			t.Errorf("stats %+v after a status update of the culprit and a sync, want still 1 quarantined and %d reload errors", st, before.ReloadErrors)
		}
	})

	t.Run("fixed: served again, the gauge back to 0", func(t *testing.T) {
		setIngress(bad, "bad.example.com", nil, "/", "other")
		must(cs.NetworkingV1().Ingresses("team-b").Update(ctx, bad, update))(t)
		cc.eventuallyServes(t, 20*time.Second, "bad.example.com", "/", 200, "gamma /")
		waitFor(t, 10*time.Second, "no Ingress quarantined", func() bool { return cc.c.Stats().Quarantined == 0 })
	})
}
