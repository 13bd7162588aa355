package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// refusedInput is what an Ingress holds that render accepts (no Problem,
// the path served) and nginx -t refuses: the culprits of the quarantine
// tests.
type refusedInput struct {
	name string
	// annotations, without the nginx.ingress.kubernetes.io/ prefix.
	annotations map[string]string
	// path is the Ingress path ("/" when empty); with regex it is an
	// ImplementationSpecific path under use-regex.
	path  string
	regex bool
}

// nginxRefuses are the inputs the quarantine tests use, in order of
// preference: the first that render still accepts and nginx -t still
// refuses is taken (pickRefused checks both). When render learns to
// refuse one (as it should: each is a gap in its validation), the tests
// take the next; add new ones at the end. All were refused by nginx
// 1.22.1 with PCRE2 when written here.
var nginxRefuses = []refusedInput{
	{name: "limit-connections above nginx's 65535", annotations: map[string]string{"limit-connections": "70000"}},
	{name: "proxy-buffer-size above proxy_max_temp_file_size (1024m)", annotations: map[string]string{"proxy-buffer-size": "2048m"}},
	{name: "a regex PCRE2 compiles to more than 64K", regex: true, path: "/(?:[a-z]|[0-9]){1000}(?:[a-y]|[0-9]){1000}"},
	{name: "a regex nested deeper than PCRE2's 250", regex: true, path: "/" + strings.Repeat("(?:", 260) + "a" + strings.Repeat(")", 260)},
	{name: "a named capture named like an nginx variable", regex: true, path: "/(?P<uri>.*)"},
	{name: "a character class range at a set", regex: true, path: `/[\d-z]`},
}

func (in refusedInput) ingressPath() (string, string) {
	if in.path == "" {
		return "/", "Prefix"
	}
	if in.regex {
		return in.path, "ImplementationSpecific"
	}
	return in.path, "Prefix"
}

func (in refusedInput) allAnnotations() map[string]string {
	ann := map[string]string{}
	for k, v := range in.annotations {
		ann[k] = v
	}
	if in.regex {
		ann["use-regex"] = "true"
	}
	return ann
}

// yaml is an Ingress e2e/name for host with in, to service.
func (in refusedInput) yaml(name, host, service string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: e2e\n  creationTimestamp: \"2026-02-01T00:00:00Z\"\n  annotations:\n", name)
	ann := in.allAnnotations()
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", k, ann[k])
	}
	path, pt := in.ingressPath()
	fmt.Fprintf(&b, "spec:\n  ingressClassName: nginx\n  rules:\n  - host: %s\n    http:\n      paths:\n      - path: %q\n        pathType: %s\n        backend: {service: {name: %s, port: {number: 80}}}\n", host, path, pt, service)
	return b.String()
}

// ingress is the same Ingress as an API object in namespace ns.
func (in refusedInput) ingress(ns, name, host, service string) *networkingv1.Ingress {
	ing := kIngress(ns, name, host, in.allAnnotations(), "/", service)
	path, pt := in.ingressPath()
	p := &ing.Spec.Rules[0].HTTP.Paths[0]
	p.Path, p.PathType = path, new(networkingv1.PathType(pt))
	return ing
}

// pickRefused returns the first input of nginxRefuses that render accepts
// and a real nginx -t refuses. It fails the test when none is left: then
// add one, or (if render now refuses all that nginx refuses) the
// quarantine is tested by pkg/controller's tests alone.
func pickRefused(t testing.TB) refusedInput {
	t.Helper()
	requireNginx(t)
	tester := nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{})
	if err := tester.Layout(); err != nil {
		t.Fatal(err)
	}
	var why []string
	for _, in := range nginxRefuses {
		cfg, problems := buildConfig(t, serviceYAML("web", 1)+in.yaml("probe", "probe.example.com", "web"))
		if len(problems) > 0 {
			why = append(why, fmt.Sprintf("%s: render refuses it (%s)", in.name, problems[0]))
			continue
		}
		conf, err := render.NGINXConf(cfg, render.DefaultConfOptions())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = tester.Test(ctx, conf)
		cancel()
		var te *nginx.TestError
		if errors.As(err, &te) && te.Line > 0 {
			t.Logf("culprit: %s (nginx -t: %s)", in.name, te.Message)
			return in
		}
		why = append(why, fmt.Sprintf("%s: nginx -t gives %v", in.name, err))
	}
	t.Fatalf("no input of nginxRefuses is left that render accepts and nginx -t refuses on a line:\n%s", strings.Join(why, "\n"))
	return refusedInput{}
}

// controllerMetrics returns what the controller's /metrics answers.
func controllerMetrics(c *controller.Controller) string {
	rec := httptest.NewRecorder()
	c.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

// TestFilesQuarantine: a tenant's Ingress that renders but that nginx -t
// refuses is left out; another tenant's new host, written right after
// it, is served; endpoint changes are served; fixed, the Ingress is served
// again.
func TestFilesQuarantine(t *testing.T) {
	in := pickRefused(t)
	alpha, beta, gamma := namedBackend(t, "alpha"), namedBackend(t, "beta"), namedBackend(t, "gamma")
	fc := startFilesController(t, map[string]string{
		"class.yaml":     benchClass,
		"svc/web.yaml":   serviceYAML("web", alpha),
		"svc/other.yaml": serviceYAML("other", gamma),
		"ing/shop.yaml":  filesIngress("shop", "shop.example.com", nil, "/", "web"),
	})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")

	fc.write(t, "ing/bad.yaml", in.yaml("bad", "bad.example.com", "other"))
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
	in := pickRefused(t)
	cp := startControlPlane(t)
	ctx := context.Background()
	create, update := metav1.CreateOptions{}, metav1.UpdateOptions{}
	ip := endpointIP(t)
	alpha, beta, gamma := ipBackend(t, ip, "alpha"), ipBackend(t, ip, "beta"), ipBackend(t, ip, "gamma")

	cc := startClusterController(t, cp.cfg, "")
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

	bad := must(cs.NetworkingV1().Ingresses("team-b").Create(ctx, in.ingress("team-b", "bad", "bad.example.com", "other"), create))(t)
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
		must(cs.DiscoveryV1().EndpointSlices("team-a").Update(ctx, webSlice, update))(t)
		cc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
	})

	t.Run("a status update does not end the quarantine", func(t *testing.T) {
		bad = must(cs.NetworkingV1().Ingresses("team-b").Get(ctx, "bad", metav1.GetOptions{}))(t)
		bad.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
		bad = must(cs.NetworkingV1().Ingresses("team-b").UpdateStatus(ctx, bad, update))(t)
		cc.settle(t)
		if st := cc.c.Stats(); st.Quarantined != 1 {
			t.Errorf("stats %+v after a status update of the culprit", st)
		}
	})

	t.Run("fixed: served again, the gauge back to 0", func(t *testing.T) {
		setIngress(bad, "bad.example.com", nil, "/", "other")
		must(cs.NetworkingV1().Ingresses("team-b").Update(ctx, bad, update))(t)
		cc.eventuallyServes(t, 20*time.Second, "bad.example.com", "/", 200, "gamma /")
		waitFor(t, 10*time.Second, "no Ingress quarantined", func() bool { return cc.c.Stats().Quarantined == 0 })
	})
}
