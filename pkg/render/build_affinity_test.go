package render

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// withAnnotations sets annotations (without their prefix) on ing.
func withAnnotations(ing *networkingv1.Ingress, kv ...string) *networkingv1.Ingress {
	ing.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		ing.Annotations[annotations.Prefix+kv[i]] = kv[i+1]
	}
	return ing
}

// onService points every path of ing at service.
func onService(ing *networkingv1.Ingress, service string) *networkingv1.Ingress {
	for _, r := range ing.Spec.Rules {
		for i := range r.HTTP.Paths {
			r.HTTP.Paths[i].Backend = *testBackend(service)
		}
	}
	return ing
}

// TestAffinityLocations: the affinity of a backend is set by the first
// Ingress that asks for it, even when an older one without it created the
// backend; only the locations of the Ingresses that asked for it are listed
// as setting the cookie; a canary backend takes its primary's affinity
// unless its Ingress says affinity-canary-behavior "legacy".
func TestAffinityLocations(t *testing.T) {
	sticky := []string{"affinity", "cookie", "session-cookie-name", "route"}
	s := Snapshot{
		Ingresses: []*networkingv1.Ingress{
			newTestIngress("plain", 0, testRule("plain.example.com", "/")),
			withAnnotations(newTestIngress("app", 1, testRule("a.example.com", "/app", "/api/$"), testRule("*.w.example.com", "/")), sticky...),
			onService(withAnnotations(newTestIngress("other", 2, testRule("b.example.com", "/")), sticky...), "other"),
			onService(withAnnotations(newTestIngress("c-sticky", 3, testRule("a.example.com", "/app")), "canary", "true", "canary-weight", "10"), "canary1"),
			onService(withAnnotations(newTestIngress("c-legacy", 4, testRule("b.example.com", "/")),
				"canary", "true", "canary-weight", "10", "affinity-canary-behavior", "legacy"), "canary2"),
		},
		Services: []*corev1.Service{testService("web"), testService("other"), testService("canary1"), testService("canary2")},
	}
	c, problems := Build(s, DefaultOptions())
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	backend := func(name string) model.SessionAffinity {
		for _, b := range c.Backends {
			if b.Name == name {
				return b.SessionAffinity
			}
		}
		t.Fatalf("no backend %s", name)
		return model.SessionAffinity{}
	}
	web := backend("default-web-80")
	if web.Type != "cookie" || web.Cookie.Name != "route" {
		t.Errorf("web affinity %+v, want the cookie affinity of ingress app", web)
	}
	wantWeb := map[string][]string{"a.example.com": {"/api/", "/app"}, "*.w.example.com": {"/"}}
	if !reflect.DeepEqual(web.Locations, wantWeb) {
		t.Errorf("web locations %v, want %v (plain.example.com sets no cookie)", web.Locations, wantWeb)
	}
	if got := backend("default-canary1-80"); !reflect.DeepEqual(got, web) {
		t.Errorf("sticky canary affinity %+v, want its primary's %+v", got, web)
	}
	if got := backend("default-other-80").Locations; !reflect.DeepEqual(got, map[string][]string{"b.example.com": {"/"}}) {
		t.Errorf("other locations %v", got)
	}
	if got := backend("default-canary2-80"); got.Type != "" || got.Locations != nil {
		t.Errorf("legacy canary affinity %+v, want none", got)
	}
}
