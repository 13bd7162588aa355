package render

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// pagesIngress is an Ingress of host with "/" to service and the given
// annotations (name, value pairs without the prefix).
func pagesIngress(name string, age int, host, service string, ann ...string) *networkingv1.Ingress {
	r := testRule(host, "/")
	r.HTTP.Paths[0].Backend.Service.Name = service
	ing := newTestIngress(name, age, r)
	ing.Annotations = map[string]string{}
	for i := 0; i+1 < len(ann); i += 2 {
		ing.Annotations[annotations.Prefix+ann[i]] = ann[i+1]
	}
	return ing
}

func errorPagesOf(t *testing.T, c *model.Config, host string) model.ErrorPages {
	t.Helper()
	s := c.Server(host)
	if s == nil || len(s.Locations) == 0 {
		t.Fatalf("no location on %q", host)
	}
	return s.Locations[0].Settings.ErrorPages
}

// TestErrorPagesSettings: the annotation's codes, else the ConfigMap's;
// the annotation's default backend, else the controller's; interception
// unless disabled; nothing for an Ingress without codes.
func TestErrorPagesSettings(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"},
		Data: map[string]string{"custom-http-errors": "500,404"}}
	s := Snapshot{
		Ingresses: []*networkingv1.Ingress{
			pagesIngress("own", 0, "own.example.com", "web", "custom-http-errors", "503", "default-backend", "errors"),
			pagesIngress("global", 1, "global.example.com", "web"),
			pagesIngress("raw", 2, "raw.example.com", "web", "disable-proxy-intercept-errors", "true", "default-backend", "errors"),
			pagesIngress("bad", 3, "bad.example.com", "web", "custom-http-errors", "404;return 200"),
		},
		Services:       []*corev1.Service{testService("web"), testService("errors"), testService("pages")},
		EndpointSlices: testSlices("web", "errors", "pages"),
		ConfigMaps:     []*corev1.ConfigMap{cm},
	}
	for _, tc := range []struct {
		name            string
		defaultService  string
		wantDefault     string
		wantProblemPart string
	}{
		{"built-in default backend", "", model.DefaultBackendName, ""},
		{"controller default backend", "default/pages", "default-pages-80", ""},
		{"missing controller default backend", "default/nosuch", model.DefaultBackendName, `service "default/nosuch" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.DefaultBackendService = tc.defaultService
			c, problems := Build(s, o)
			if c.DefaultBackend != tc.wantDefault {
				t.Errorf("DefaultBackend %q, want %q", c.DefaultBackend, tc.wantDefault)
			}
			if tc.wantDefault != model.DefaultBackendName {
				if be := c.Backend(tc.wantDefault); be == nil || len(be.Endpoints) != 1 {
					t.Errorf("the default backend %s is not sent to Lua with its endpoint: %+v", tc.wantDefault, be)
				}
			}
			text := problemsText(problems)
			if tc.wantProblemPart != "" && !strings.Contains(text, "service default/nosuch: --default-backend-service: "+tc.wantProblemPart) {
				t.Errorf("no Problem on the flag:\n%s", text)
			}
			for host, want := range map[string]model.ErrorPages{
				"own.example.com":    {Codes: []int{503}, Intercept: true, Backend: "default-errors-80"},
				"global.example.com": {Codes: []int{404, 500}, Intercept: true, Backend: tc.wantDefault},
				"raw.example.com":    {Codes: []int{404, 500}, Intercept: false, Backend: "default-errors-80"},
				"bad.example.com":    {Codes: []int{404, 500}, Intercept: true, Backend: tc.wantDefault},
			} {
				if got := errorPagesOf(t, c, host); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %+v, want %+v", host, got, want)
				}
			}
			if !strings.Contains(text, "ingress default/bad: metadata.annotations[nginx.ingress.kubernetes.io/custom-http-errors]: invalid value") {
				t.Errorf("no Problem for the bad list:\n%s", text)
			}
		})
	}
	// Without codes anywhere a location has no error pages at all.
	s.ConfigMaps = nil
	c, _ := Build(s, DefaultOptions())
	if got := errorPagesOf(t, c, "global.example.com"); !reflect.DeepEqual(got, model.ErrorPages{}) {
		t.Errorf("global.example.com without codes: %+v", got)
	}
}

// TestErrorPagesFallback: the default-backend annotation's Service answers
// in place of a Service without endpoints (Fallback, told X-Code 503), not
// in place of one that has endpoints, even when both are the same Service.
func TestErrorPagesFallback(t *testing.T) {
	s := Snapshot{
		Ingresses: []*networkingv1.Ingress{
			pagesIngress("down", 0, "down.example.com", "empty", "default-backend", "errors"),
			pagesIngress("up", 1, "up.example.com", "web", "default-backend", "errors"),
			pagesIngress("self", 2, "self.example.com", "errors", "default-backend", "errors"),
		},
		Services:       []*corev1.Service{testService("web"), testService("errors"), testService("empty")},
		EndpointSlices: testSlices("web", "errors"),
	}
	c, problems := Build(s, DefaultOptions())
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	down := c.Server("down.example.com").Locations[0]
	if down.Backend != "default-errors-80" || !reflect.DeepEqual(down.Settings.ErrorPages, model.ErrorPages{Backend: "default-errors-80", Fallback: true}) {
		t.Errorf("down: backend %s, %+v", down.Backend, down.Settings.ErrorPages)
	}
	for _, host := range []string{"up.example.com", "self.example.com"} {
		if got := errorPagesOf(t, c, host); !reflect.DeepEqual(got, model.ErrorPages{}) {
			t.Errorf("%s: %+v, want none", host, got)
		}
	}
}

// TestErrorPagesIngressName: an Ingress name that is not a DNS name (a
// file is not checked by an API server) never reaches X-Ingress-Name.
func TestErrorPagesIngressName(t *testing.T) {
	ing := pagesIngress("bad$name", 0, "a.example.com", "web", "custom-http-errors", "404")
	s := Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}, EndpointSlices: testSlices("web")}
	c, problems := Build(s, DefaultOptions())
	if got := errorPagesOf(t, c, "a.example.com"); !reflect.DeepEqual(got, model.ErrorPages{}) {
		t.Errorf("error pages %+v for an invalid name", got)
	}
	if text := problemsText(problems); strings.Count(text, "\n") != 1 || !strings.Contains(text, `metadata.name: "bad$name" is not a valid Ingress name`) {
		t.Errorf("problems:\n%s", text)
	}
}

func testSlices(services ...string) []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, len(services))
	for i, s := range services {
		out[i] = testSlice(s, "10.0.0."+string(rune('1'+i)))
	}
	return out
}
