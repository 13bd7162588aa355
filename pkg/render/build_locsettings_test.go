package render

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// locationsOf returns the locations of host in c by path.
func locationsOf(t *testing.T, c *model.Config, host string) map[string]*model.Location {
	t.Helper()
	for i := range c.Servers {
		if s := &c.Servers[i]; s.Hostname == host {
			out := map[string]*model.Location{}
			for j := range s.Locations {
				out[s.Locations[j].Path] = &s.Locations[j]
			}
			return out
		}
	}
	t.Fatalf("no server %s", host)
	return nil
}

// TestLocationSettingsShared: the paths of one Ingress share one
// LocationSettings, on all its hosts, unless a path needs its own (here:
// upstream-vhost naming its Service, a default-backend for a Service
// without endpoints); so do the paths of another Ingress of the
// namespace with the same annotations, not those of one in another
// namespace; and a host's client certificate authentication reaches only
// that host's locations.
func TestLocationSettingsShared(t *testing.T) {
	ca := testcerts.NewCA(t)
	caSecret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "ca", Namespace: "default"},
		Data:       map[string][]byte{"ca.crt": ca.PEM},
	}
	// older: client certificates on a.example.com
	mtls := newTestIngress("mtls", 0, testRule("a.example.com", "/secure"))
	mtls.Annotations = map[string]string{annotations.Prefix + "auth-tls-secret": "default/ca"}
	// younger: three paths on a.example.com and b.example.com
	ing := newTestIngress("app", 1, testRule("a.example.com", "/one", "/two"), testRule("b.example.com", "/one", "/two"))
	ing.Annotations = map[string]string{
		annotations.Prefix + "proxy-read-timeout": "77",
		annotations.Prefix + "upstream-vhost":     "$service_name.internal",
		annotations.Prefix + "default-backend":    "fallback",
	}
	empty := newTestIngress("empty", 2, testRule("c.example.com", "/one"))
	empty.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "gone" // a Service without endpoints
	empty.Annotations = ing.Annotations
	// the same annotations as app, in its namespace and in another
	twin := newTestIngress("twin", 3, testRule("d.example.com", "/one"))
	twin.Annotations = ing.Annotations
	elsewhere := newTestIngress("elsewhere", 4, testRule("e.example.com", "/one"))
	elsewhere.Namespace, elsewhere.Annotations = "other", ing.Annotations
	other := testService("web")
	other.Namespace = "other"
	otherSlice := testSlice("web", "10.0.0.3")
	otherSlice.Namespace = "other"
	slices := []*discoveryv1.EndpointSlice{testSlice("web", "10.0.0.1"), testSlice("fallback", "10.0.0.2"), otherSlice}
	c, problems := Build(Snapshot{
		Ingresses:      []*networkingv1.Ingress{mtls, ing, empty, twin, elsewhere},
		Services:       []*corev1.Service{testService("web"), testService("fallback"), testService("gone"), other},
		EndpointSlices: slices,
		Secrets:        []*corev1.Secret{caSecret},
	}, DefaultOptions())
	for _, p := range problems {
		t.Logf("problem: %s", p)
	}
	a, b, e := locationsOf(t, c, "a.example.com"), locationsOf(t, c, "b.example.com"), locationsOf(t, c, "c.example.com")

	if a["/one"].Settings != a["/two"].Settings || b["/one"].Settings != b["/two"].Settings {
		t.Errorf("the paths of one Ingress on one host do not share their settings")
	}
	if a["/one"].Settings == b["/one"].Settings {
		t.Errorf("a.example.com's paths share settings with b.example.com's, though only a has client certificates")
	}
	if b["/one"].Settings.Proxy.ReadTimeout != 77 || a["/one"].Settings.Proxy.ReadTimeout != 77 {
		t.Errorf("proxy-read-timeout: a %d, b %d, want 77", a["/one"].Settings.Proxy.ReadTimeout, b["/one"].Settings.Proxy.ReadTimeout)
	}
	if got := b["/one"].Settings.UpstreamVhost; got != "web.internal" {
		t.Errorf("upstream-vhost resolved to %q, want web.internal", got)
	}
	for _, l := range []*model.Location{a["/secure"], a["/one"], a["/two"]} {
		if l.Settings.ClientAuth == nil {
			t.Errorf("a.example.com%s: no client certificate authentication", l.Path)
		}
	}
	for _, l := range []*model.Location{b["/one"], b["/two"], e["/one"]} {
		if l.Settings.ClientAuth != nil {
			t.Errorf("%s: client certificate authentication of another host", l.Path)
		}
	}
	// the same annotations, a path whose Service has no endpoints: its own
	// upstream-vhost, the default-backend's fallback
	if got := e["/one"].Settings.UpstreamVhost; got != "gone.internal" {
		t.Errorf("c.example.com/one: upstream-vhost %q, want gone.internal", got)
	}
	if !e["/one"].Settings.ErrorPages.Fallback || e["/one"].Backend != e["/one"].Settings.CustomDefaultBackend {
		t.Errorf("c.example.com/one: backend %q, error pages %+v: want the default-backend's fallback", e["/one"].Backend, e["/one"].Settings.ErrorPages)
	}
	d, o := locationsOf(t, c, "d.example.com"), locationsOf(t, c, "e.example.com")
	if d["/one"].Settings != b["/one"].Settings {
		t.Errorf("two Ingresses of one namespace with the same annotations do not share their settings")
	}
	if o["/one"].Settings == b["/one"].Settings || o["/one"].Settings.Proxy.ReadTimeout != 77 {
		t.Errorf("an Ingress of another namespace shares the settings (or lost proxy-read-timeout: %d)", o["/one"].Settings.Proxy.ReadTimeout)
	}
	if b["/one"].Settings.ErrorPages.Fallback {
		t.Errorf("b.example.com/one: a fallback, though web has endpoints")
	}
}
