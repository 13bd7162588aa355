package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func annotated(ing *networkingv1.Ingress, kv ...string) *networkingv1.Ingress {
	ing.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		ing.Annotations["nginx.ingress.kubernetes.io/"+kv[i]] = kv[i+1]
	}
	return ing
}

// TestWWWRedirects: the other name of each host with from-to-www-redirect
// gets a redirect server unless it is a host or an alias of its own, or
// another redirect's name; the certificate only when it covers the name.
func TestWWWRedirects(t *testing.T) {
	s := Snapshot{
		Services: []*corev1.Service{testService("web")},
		Ingresses: []*networkingv1.Ingress{
			annotated(newTestIngress("a", 0, testRule("a.example.com", "/"), testRule("www.b.example.com", "/"), testRule("taken.example.com", "/")),
				"from-to-www-redirect", "true"),
			newTestIngress("b", 1, testRule("www.taken.example.com", "/")),
			annotated(newTestIngress("c", 2, testRule("c.example.com", "/")), "server-alias", "www.c.example.com", "from-to-www-redirect", "true"),
			annotated(newTestIngress("d", 3, testRule("d.example.com", "/")), "from-to-www-redirect", "false"),
		},
	}
	c, problems := Build(s, DefaultOptions())
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	var got []string
	for _, r := range c.WWWRedirects {
		got = append(got, r.From+">"+r.To+"@"+r.Ingress.Name)
	}
	if want := "b.example.com>www.b.example.com@a www.a.example.com>a.example.com@a"; strings.Join(got, " ") != want {
		t.Errorf("redirects %q, want %q", strings.Join(got, " "), want)
	}
}

// TestServerCiphersOldestWins: the oldest Ingress of a host sets its
// ciphers; a younger one that agrees is silent, one that disagrees is a
// Problem and changes nothing.
func TestServerCiphersOldestWins(t *testing.T) {
	s := Snapshot{
		Services: []*corev1.Service{testService("web")},
		Ingresses: []*networkingv1.Ingress{
			annotated(newTestIngress("young", 2, testRule("h.example.com", "/y")), "ssl-ciphers", "LOW"),
			annotated(newTestIngress("old", 0, testRule("h.example.com", "/o")), "ssl-ciphers", "HIGH", "ssl-prefer-server-ciphers", "false"),
			annotated(newTestIngress("same", 1, testRule("h.example.com", "/s")), "ssl-ciphers", "HIGH"),
		},
	}
	c, problems := Build(s, DefaultOptions())
	srv := c.Server("h.example.com")
	if srv.SSLCiphers != "HIGH" || srv.SSLPreferServerCiphers == nil || *srv.SSLPreferServerCiphers {
		t.Errorf("server %+v", srv)
	}
	if len(problems) != 1 || problems[0].Object.Name != "young" || !strings.Contains(problems[0].Reason, `already has ssl-ciphers "HIGH" from ingress default/old`) {
		t.Errorf("problems %v", problems)
	}
}

// TestConfigMapReferences: custom-headers and fastcgi-params-configmap
// resolve in the Ingress namespace, are applied to every path of the
// Ingress, and deny the paths (503) when missing, refused or elsewhere;
// add-headers and proxy-set-headers fill the Global headers.
func TestConfigMapReferences(t *testing.T) {
	cm := func(ns, name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	}
	s := Snapshot{
		Services: []*corev1.Service{testService("web")},
		ConfigMaps: []*corev1.ConfigMap{
			cm("ingress-nginx", "ingress-nginx-controller", map[string]string{
				"global-allowed-response-headers": "X-A", "add-headers": "ingress-nginx/resp", "proxy-set-headers": "missing"}),
			cm("ingress-nginx", "resp", map[string]string{"X-Frame-Options": "DENY"}),
			cm("default", "hdrs", map[string]string{"X-A": "1"}),
			cm("default", "php", map[string]string{"SCRIPT_FILENAME": "/srv$fastcgi_script_name"}),
		},
		Ingresses: []*networkingv1.Ingress{
			annotated(newTestIngress("ok", 0, testRule("ok.example.com", "/", "/b")), "custom-headers", "hdrs"),
			annotated(newTestIngress("missing", 1, testRule("missing.example.com", "/")), "custom-headers", "default/nope"),
			annotated(newTestIngress("fcgi", 2, testRule("fcgi.example.com", "/")), "backend-protocol", "FCGI", "fastcgi-params-configmap", "php", "fastcgi-index", "i.php"),
		},
	}
	c, problems := Build(s, DefaultOptions())
	text := problemsText(problems)
	for _, want := range []string{
		`configmap ingress-nginx/ingress-nginx-controller: data[proxy-set-headers]: ConfigMap ingress-nginx/missing not found; no header is added`,
		`ingress default/missing: metadata.annotations[nginx.ingress.kubernetes.io/custom-headers]: ConfigMap default/nope not found; the Ingress's paths answer 503`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	if len(problems) != 2 {
		t.Errorf("%d problems:\n%s", len(problems), text)
	}
	if g := c.Global; len(g.ResponseHeaders) != 1 || g.ResponseHeaders[0] != (model.Header{Name: "X-Frame-Options", Value: "DENY", Vars: true}) || len(g.BackendHeaders) != 0 {
		t.Errorf("global headers %+v %+v", g.ResponseHeaders, g.BackendHeaders)
	}
	for _, l := range c.Server("ok.example.com").Locations {
		if len(l.Settings.CustomHeaders) != 1 || l.Settings.CustomHeaders[0].Vars || l.Settings.Denied != "" {
			t.Errorf("ok %s: %+v", l.Path, l.Settings)
		}
	}
	if l := c.Server("missing.example.com").Locations[0]; l.Settings.Denied == "" {
		t.Errorf("missing: not denied")
	}
	l := c.Server("fcgi.example.com").Locations[0]
	if f := l.Settings.FastCGI; f == nil || f.Index != "i.php" || len(f.Params) != 1 || l.Settings.BackendProtocol != "FCGI" {
		t.Errorf("fcgi %+v %+v", l.Settings, l.Settings.FastCGI)
	}
}
