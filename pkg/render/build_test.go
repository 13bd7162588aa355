package render

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// Helpers that build the few objects these tests need.

func newTestIngress(name string, age int, rules ...networkingv1.IngressRule) *networkingv1.Ingress {
	class := "nginx"
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(age) * time.Hour)),
		},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: rules},
	}
}

func testRule(host string, paths ...string) networkingv1.IngressRule {
	prefix := networkingv1.PathTypePrefix
	r := networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}}
	for _, p := range paths {
		r.HTTP.Paths = append(r.HTTP.Paths, networkingv1.HTTPIngressPath{
			Path: p, PathType: &prefix,
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
		})
	}
	return r
}

func testBackend(service string) *networkingv1.IngressBackend {
	return &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}}}
}

func testService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
}

func testSlice(service, addr string) *discoveryv1.EndpointSlice {
	port := int32(8080)
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: service + "-1", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Port: &port}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{addr}}},
	}
}

// rootBackend returns the backend of the "/" location of host, "" when the
// server has none (the writer then answers 404).
func rootBackend(t *testing.T, c *model.Config, host string) string {
	t.Helper()
	s := c.Server(host)
	if s == nil {
		t.Fatalf("no server %q", host)
	}
	for _, l := range s.Locations {
		if l.Path == "/" && l.PathType != model.PathExact {
			return l.Backend
		}
	}
	return ""
}

func problemsText(ps []model.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestDefaultBackendScope checks spec.defaultBackend against ingress-nginx:
// only an Ingress without rules sets the catch-all server; an Ingress with
// rules serves "/" of the hosts it brought, never of other hosts, and a
// path that claims "/" wins over it whatever the ages.
func TestDefaultBackendScope(t *testing.T) {
	withRules := newTestIngress("with-rules", 0, testRule("a.example.com", "/a"), testRule("shared.example.com", "/s"))
	withRules.Spec.DefaultBackend = testBackend("fallback")
	older := newTestIngress("older", -1, testRule("owned.example.com", "/o"))
	ownedLater := newTestIngress("owned-later", 1, testRule("owned.example.com", "/p"))
	ownedLater.Spec.DefaultBackend = testBackend("fallback")
	explicitRoot := newTestIngress("explicit-root", 2, testRule("shared.example.com", "/"))
	catchAll := newTestIngress("catch-all", 3)
	catchAll.Spec.DefaultBackend = testBackend("catchall")
	secondCatchAll := newTestIngress("second-catch-all", 4)
	secondCatchAll.Spec.DefaultBackend = testBackend("web")
	other := newTestIngress("other", 5, testRule("other.example.com", "/x"))

	s := Snapshot{
		Ingresses: []*networkingv1.Ingress{other, secondCatchAll, catchAll, explicitRoot, ownedLater, older, withRules},
		Services:  []*corev1.Service{testService("web"), testService("fallback"), testService("catchall")},
	}
	c, problems := Build(s, DefaultOptions())

	for host, want := range map[string]string{
		model.CatchAllHost:   "default-catchall-80",
		"a.example.com":      "default-fallback-80",
		"shared.example.com": "default-web-80", // the younger explicit "/" wins
		"owned.example.com":  "",               // made by an older Ingress without a default backend
		"other.example.com":  "",
	} {
		if got := rootBackend(t, c, host); got != want {
			t.Errorf("%s: / is served by %q, want %q", host, got, want)
		}
	}
	if c.DefaultBackend != model.DefaultBackendName {
		t.Errorf("Config.DefaultBackend = %q, want %q", c.DefaultBackend, model.DefaultBackendName)
	}
	got := problemsText(problems)
	if !strings.Contains(got, "ingress default/second-catch-all: spec.defaultBackend: the catch-all server already uses default-catchall-80") {
		t.Errorf("no Problem for the second catch-all default backend:\n%s", got)
	}
	if strings.Count(got, "\n") != 1 {
		t.Errorf("want exactly one Problem, got:\n%s", got)
	}
}

// TestCustomDefaultBackendMissing: a default-backend annotation naming a
// Service that does not exist is ignored; the path keeps its own backend.
func TestCustomDefaultBackendMissing(t *testing.T) {
	ing := newTestIngress("ing", 0, testRule("a.example.com", "/"))
	ing.Annotations = map[string]string{annotations.Prefix + "default-backend": "nosuch"}
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	if got := rootBackend(t, c, "a.example.com"); got != "default-web-80" {
		t.Errorf("/ is served by %q, want default-web-80", got)
	}
	if l := c.Server("a.example.com").Locations[0]; l.Settings.CustomDefaultBackend != "" {
		t.Errorf("CustomDefaultBackend = %q, want none", l.Settings.CustomDefaultBackend)
	}
	if !strings.Contains(problemsText(problems), `service "default/nosuch" not found or has no ports; the annotation is ignored`) {
		t.Errorf("problems:\n%s", problemsText(problems))
	}
}

// TestExternalNameRefused: an ExternalName Service may not point nginx at
// its own loopback (the status server serves private keys) nor be
// something other than a DNS name or an IP address.
func TestExternalNameRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refused bool
	}{
		{"api.example.org", false},
		{"api.example.org.", false},
		{"10.1.2.3", false},
		{"127.0.0.1", true},
		{"127.3.4.5", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"0.0.0.0", true},
		{"localhost", true},
		{"LOCALHOST.", true},
		{"db.localhost", true},
		{"bad_name.example.org", true},
		{"a.example.org; return 200", true},
		{"", true},
	} {
		svc := testService("ext")
		svc.Spec.Type = corev1.ServiceTypeExternalName
		svc.Spec.ExternalName = tc.name
		be, why := newServiceIndex(Snapshot{Services: []*corev1.Service{svc}}).resolve("default", "ext", networkingv1.ServiceBackendPort{Number: 80})
		if refused := why != ""; refused != tc.refused {
			t.Errorf("%q: refused = %v (%s), want %v", tc.name, refused, why, tc.refused)
		}
		if tc.refused && (len(be.Endpoints) != 0 || be.ExternalName != "") {
			t.Errorf("%q: refused but backend has endpoints %v / externalName %q", tc.name, be.Endpoints, be.ExternalName)
		}
		if !tc.refused && (len(be.Endpoints) != 1 || be.Endpoints[0].Address != tc.name || be.Endpoints[0].Port != 8080) {
			t.Errorf("%q: endpoints %v, want one on port 8080", tc.name, be.Endpoints)
		}
	}
}

// TestTLSFollowsRules checks spec.tls against ingress-nginx: certificates
// go to the rule hosts of the Ingress; a listed host without a rule gets
// no server (it would shadow a wildcard server), and an unlisted rule host
// takes the first certificate that covers it.
func TestTLSFollowsRules(t *testing.T) {
	wild := &model.Certificate{ID: "default/wild", Hosts: []string{"*.example.org"}}
	ing := newTestIngress("ing", 0, testRule("*.example.org", "/"), testRule("shop.example.org", "/"), testRule("plain.example.com", "/"))
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"*.example.org", "blog.example.org"}, SecretName: "wild"}}
	b := newBuilderOf(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	b.certs[wild.ID] = wild
	for _, p := range b.ingresses {
		b.addIngress(p)
	}
	b.finishLocations()
	b.addTLS(ing)
	c := b.config()

	for host, want := range map[string]string{"*.example.org": "default/wild", "shop.example.org": "default/wild", "plain.example.com": ""} {
		if got := c.Server(host).CertificateID; got != want {
			t.Errorf("%s: certificate %q, want %q", host, got, want)
		}
	}
	if c.Server("blog.example.org") != nil {
		t.Errorf("a host listed only under spec.tls got a server")
	}
	if len(b.problems) != 0 {
		t.Errorf("problems:\n%s", problemsText(b.problems))
	}
}

// TestEndpointsSkipsFQDN is a guard for the endpoint rules the goldens
// rely on: FQDN slices are ignored and an address in two slices is one
// endpoint.
func TestEndpointsSkipsFQDN(t *testing.T) {
	a, b := testSlice("web", "10.0.0.1"), testSlice("web", "10.0.0.1")
	b.Name = "web-2"
	f := testSlice("web", "web.internal.example.com")
	f.Name, f.AddressType = "web-fqdn", discoveryv1.AddressTypeFQDN
	be, why := newServiceIndex(Snapshot{Services: []*corev1.Service{testService("web")}, EndpointSlices: []*discoveryv1.EndpointSlice{a, b, f}}).
		resolve("default", "web", networkingv1.ServiceBackendPort{Number: 80})
	if why != "" || len(be.Endpoints) != 1 || be.Endpoints[0] != (model.Endpoint{Address: "10.0.0.1", Port: 8080}) {
		t.Errorf("endpoints %v (%s), want 10.0.0.1:8080 once", be.Endpoints, why)
	}
}

// TestClassNameBeforeAnnotation: spec.ingressClassName is read before the
// legacy kubernetes.io/ingress.class annotation, as ingress-nginx's
// GetIngressClass does.
func TestClassNameBeforeAnnotation(t *testing.T) {
	ours := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	theirs := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/other"}}
	f := newClassFilter([]*networkingv1.IngressClass{ours, theirs}, DefaultOptions())
	for _, tc := range []struct {
		className, annotation string
		want                  bool
	}{
		{"nginx", "other", true},
		{"other", "nginx", false},
		{"", "nginx", true},
		{"", "other", false},
		{"unknown-class", "nginx", false},
	} {
		ing := newTestIngress("ing", 0)
		ing.Spec.IngressClassName = nil
		if tc.className != "" {
			ing.Spec.IngressClassName = &tc.className
		}
		ing.Annotations = map[string]string{legacyClassAnnotation: tc.annotation}
		if got := f.serves(ing); got != tc.want {
			t.Errorf("class %q, annotation %q: serves = %v, want %v", tc.className, tc.annotation, got, tc.want)
		}
	}
}

// TestTLSWithoutSecretName: a spec.tls entry without a secretName gives
// its hosts --default-ssl-certificate (ingress-nginx documents this use),
// so they are TLS hosts; without the flag it is a Problem, and the hosts
// are TLS hosts all the same (the self-signed certificate, HTTP
// redirected), as in ingress-nginx.
func TestTLSWithoutSecretName(t *testing.T) {
	ing := newTestIngress("ing", 0, testRule("a.example.com", "/"))
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}}}
	dflt := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "dflt", Namespace: "ingress-nginx"}}
	s := Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}, Secrets: []*corev1.Secret{dflt}}

	c, problems := Build(s, DefaultOptions())
	if srv := c.Server("a.example.com"); !srv.TLS || srv.CertificateID != "" || !srv.Locations[0].HTTPSRedirect {
		t.Errorf("without --default-ssl-certificate: TLS %v, certificate %q, redirect %v", srv.TLS, srv.CertificateID, srv.Locations[0].HTTPSRedirect)
	}
	if !strings.Contains(problemsText(problems), "no secret named and no --default-ssl-certificate") {
		t.Errorf("problems:\n%s", problemsText(problems))
	}

	o := DefaultOptions()
	o.DefaultSSLCertificate = "ingress-nginx/dflt"
	b := newBuilderOf(s, o)
	b.certs["ingress-nginx/dflt"] = &model.Certificate{ID: "ingress-nginx/dflt", Hosts: []string{"other.example.net"}}
	for _, p := range b.ingresses {
		b.addIngress(p)
	}
	b.finishLocations()
	b.addDefaultCertificate()
	b.addTLS(ing)
	c = b.config()
	if srv := c.Server("a.example.com"); !srv.TLS || srv.CertificateID != "ingress-nginx/dflt" {
		t.Errorf("with --default-ssl-certificate: TLS %v, certificate %q", srv.TLS, srv.CertificateID)
	}
	if !c.Server("a.example.com").Locations[0].HTTPSRedirect {
		t.Errorf("no HTTPS redirect on a host served with the default certificate")
	}
	if len(b.problems) != 0 {
		t.Errorf("problems:\n%s", problemsText(b.problems))
	}
}

// TestSourceRangeFailsClosed: one invalid entry in an allow or deny list
// refuses every request; the entries that did parse must not let anyone in.
func TestSourceRangeFailsClosed(t *testing.T) {
	for _, ann := range []map[string]string{
		{annotations.Prefix + "allowlist-source-range": "10.0.0.0/8, 10.0.0.0/33"},
		{annotations.Prefix + "whitelist-source-range": "10.0.0.0/8, nope"},
		{annotations.Prefix + "denylist-source-range": "203.0.113.0/24, ;", annotations.Prefix + "allowlist-source-range": "10.0.0.0/8"},
	} {
		ing := newTestIngress("ing", 0, testRule("a.example.com", "/"))
		ing.Annotations = ann
		c, _ := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
		conf, err := nginxconf.NGINXConf(c, nginxconf.DefaultConfOptions())
		if err != nil {
			t.Fatal(err)
		}
		text := string(conf)
		if !strings.Contains(text, "\t\t\tdeny all;\n") || strings.Contains(text, "allow ") || strings.Contains(text, `deny "`) {
			t.Errorf("%v: want only \"deny all\" in the location, got:\n%s", ann, text[strings.Index(text, "location \"/\""):])
		}
	}
}

// TestCanaryPolicyOldestWins: the traffic policy is a property of the
// canary backend; when two canary Ingresses use the same Service port, the
// older one's policy stays and the younger gets a Problem.
func TestCanaryPolicyOldestWins(t *testing.T) {
	primary := newTestIngress("primary", 0, testRule("a.example.com", "/", "/api"))
	canary := func(name string, age int, path string, ann map[string]string) *networkingv1.Ingress {
		ing := newTestIngress(name, age, testRule("a.example.com", path))
		ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "web-v2"
		ing.Annotations = map[string]string{annotations.Prefix + "canary": "true"}
		for k, v := range ann {
			ing.Annotations[annotations.Prefix+k] = v
		}
		return ing
	}
	older := canary("by-header", 1, "/api", map[string]string{"canary-by-header": "X-Canary"})
	younger := canary("by-weight", 2, "/", map[string]string{"canary-weight": "50"})
	c, problems := Build(Snapshot{
		Ingresses: []*networkingv1.Ingress{younger, primary, older},
		Services:  []*corev1.Service{testService("web"), testService("web-v2")},
	}, DefaultOptions())
	be := c.Backend("default-web-v2-80")
	if be == nil || !be.NoServer || be.TrafficShaping != (model.TrafficShaping{Header: "X-Canary", WeightTotal: 100}) {
		t.Fatalf("canary backend %+v, want the policy of the older canary", be)
	}
	if got := problemsText(problems); !strings.Contains(got, "ingress default/by-weight: spec.rules[0].http.paths[0].backend: backend default-web-v2-80 is already a canary with the traffic policy of ingress default/by-header (older)") {
		t.Errorf("problems:\n%s", got)
	}
}

// TestServiceBackendNames: namespace, Service and port names make the
// backend name written into "set $proxy_upstream_name"; one that the API
// server would refuse (a "$" would be expanded by nginx) drops the path.
func TestServiceBackendNames(t *testing.T) {
	for _, tc := range []struct {
		namespace, service string
		port               networkingv1.ServiceBackendPort
		ok                 bool
	}{
		{"default", "web", networkingv1.ServiceBackendPort{Number: 80}, true},
		{"team-b", "web-2", networkingv1.ServiceBackendPort{Name: "http"}, true},
		{"default", "web$host", networkingv1.ServiceBackendPort{Number: 80}, false},
		{"default", `web"; return 200 "x`, networkingv1.ServiceBackendPort{Number: 80}, false},
		{"default", "Web", networkingv1.ServiceBackendPort{Number: 80}, false},
		{"default", "web", networkingv1.ServiceBackendPort{Name: "$http"}, false},
		{"default", "web", networkingv1.ServiceBackendPort{Name: "http;}"}, false},
		{"default", "web", networkingv1.ServiceBackendPort{}, false},
		{"default", "web", networkingv1.ServiceBackendPort{Number: 70000}, false},
		{"$ns", "web", networkingv1.ServiceBackendPort{Number: 80}, false},
	} {
		err := checkServiceBackend(tc.namespace, &networkingv1.IngressServiceBackend{Name: tc.service, Port: tc.port})
		if (err == nil) != tc.ok {
			t.Errorf("%s/%s %+v: error %v, want ok %v", tc.namespace, tc.service, tc.port, err, tc.ok)
		}
	}
	ing := newTestIngress("ing", 0, testRule("a.example.com", "/"))
	ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "web$host"
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}}, DefaultOptions())
	if len(c.Server("a.example.com").Locations) != 0 || len(problems) != 1 {
		t.Errorf("locations %v, problems:\n%s", c.Server("a.example.com").Locations, problemsText(problems))
	}
}

// TestProxyBuffersFollowBufferSize: proxy_buffers is sized with
// proxy_buffer_size, or nginx -t fails for a proxy_buffer_size above 8k.
func TestProxyBuffersFollowBufferSize(t *testing.T) {
	ing := newTestIngress("ing", 0, testRule("a.example.com", "/"))
	ing.Annotations = map[string]string{annotations.Prefix + "proxy-buffer-size": "32k"}
	c, _ := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	c.Global.ProxyBufferSize = "16k"
	conf, err := nginxconf.NGINXConf(c, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\tproxy_buffer_size \"16k\";\n\tproxy_buffers 4 \"16k\";\n", "\t\t\tproxy_buffer_size \"32k\";\n\t\t\tproxy_buffers 4 \"32k\";\n"} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
}

func newBuilderOf(s Snapshot, o Options) *builder { return newBuilder(s, o, newServiceIndex(s)) }
