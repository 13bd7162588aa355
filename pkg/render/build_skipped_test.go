package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestReportSkipped(t *testing.T) {
	ours := newTestIngress("ours", 0, testRule("a.example.com", "/"))
	other := newTestIngress("other", 1, testRule("b.example.com", "/"))
	otherClass := "traefik"
	other.Spec.IngressClassName = &otherClass
	foreign := newTestIngress("foreign", 2, testRule("c.example.com", "/"))
	foreignClass := "foreign"
	foreign.Spec.IngressClassName = &foreignClass
	legacy := newTestIngress("legacy", 3, testRule("d.example.com", "/"))
	legacy.Spec.IngressClassName = nil
	legacy.Annotations = map[string]string{"kubernetes.io/ingress.class": "haproxy"}
	none := newTestIngress("none", 4, testRule("e.example.com", "/"))
	none.Spec.IngressClassName = nil
	snap := Snapshot{
		Ingresses: []*networkingv1.Ingress{ours, other, foreign, legacy, none},
		IngressClasses: []*networkingv1.IngressClass{{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign"},
			Spec:       networkingv1.IngressClassSpec{Controller: "example.com/foreign"},
		}},
		Services:        []*corev1.Service{testService("web")},
		UnreadIngresses: []UnreadIngress{{APIVersion: "extensions/v1beta1", Namespace: "old", Name: "legacy-api"}},
	}
	skipped := func(ps []model.Problem) []string {
		var out []string
		for _, p := range ps {
			if IsSkipped(p) {
				out = append(out, p.String())
			}
		}
		return out
	}

	// A controller on a cluster: nothing reported.
	o := DefaultOptions()
	o.ConfigMapRequired = true
	if _, ps := Build(snap, o); len(skipped(ps)) != 0 {
		t.Errorf("without ReportSkipped: %v", skipped(ps))
	}

	o.ReportSkipped = true
	cfg, ps := Build(snap, o)
	want := []string{
		`configmap ingress-nginx/ingress-nginx-controller: skipped: the --configmap is not in the input: the defaults of every key apply`,
		`ingress default/foreign: spec.ingressClassName: skipped: IngressClass "foreign" belongs to another controller (this one serves --controller-class "k8s.io/ingress-nginx")`,
		`ingress default/legacy: metadata.annotations[kubernetes.io/ingress.class]: skipped: class "haproxy" is not --ingress-class "nginx"`,
		`ingress default/none: spec.ingressClassName: skipped: no class, and no IngressClass of this controller is marked default (--watch-ingress-without-class would serve it)`,
		`ingress default/other: spec.ingressClassName: skipped: class "traefik" has no IngressClass in the input and is not --ingress-class "nginx"`,
		`ingress old/legacy-api: apiVersion: skipped: extensions/v1beta1 is an API version this controller does not read (removed in Kubernetes 1.22, as in ingress-nginx 1.x): convert it to networking.k8s.io/v1`,
	}
	got := skipped(ps)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The corpus runner classifies reasons by these words: a skipped
	// Ingress is none of them.
	for _, line := range got {
		for _, word := range []string{"not supported", "not implemented", "unknown", "invalid", "snippet"} {
			if strings.Contains(strings.ToLower(line[strings.Index(line, "skipped: "):]), word) {
				t.Errorf("%q says %q", line, word)
			}
		}
	}
	if len(cfg.Servers) != 2 { // a.example.com and the catch-all
		t.Errorf("servers %d, want 2: the skipped Ingresses stay out", len(cfg.Servers))
	}

	// An Ingress without class served, a ConfigMap present, or asked for
	// by default only: not reported.
	o.WatchIngressWithoutClass = true
	snap.ConfigMaps = []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"}}}
	_, ps = Build(snap, o)
	for _, p := range skipped(ps) {
		if strings.Contains(p, "default/none") || strings.Contains(p, "configmap") {
			t.Errorf("reported: %s", p)
		}
	}
	snap.ConfigMaps = nil
	o.ConfigMapRequired = false
	_, ps = Build(snap, o)
	for _, p := range skipped(ps) {
		if strings.Contains(p, "configmap") {
			t.Errorf("the default --configmap reported: %s", p)
		}
	}
}
