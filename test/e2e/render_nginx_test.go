package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// serviceYAML is a Service named name whose EndpointSlice points at
// 127.0.0.1:port (no endpoints when port is 0).
func serviceYAML(name string, port int) string {
	endpoints := "[]"
	if port > 0 {
		endpoints = `[{addresses: ["127.0.0.1"], conditions: {ready: true}}]`
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: e2e}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-1
  namespace: e2e
  labels: {kubernetes.io/service-name: %[1]s}
addressType: IPv4
ports: [{name: http, port: %[2]d}]
endpoints: %[3]s
---
`, name, max(port, 1), endpoints)
}

func tlsSecretYAML(t testing.TB, name string, hosts ...string) (string, []byte) {
	t.Helper()
	crt, key, err := nginx.SelfSignedCertificate(hosts[0], hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata: {name: %s, namespace: e2e}
data:
  tls.crt: %s
  tls.key: %s
---
`, name, base64.StdEncoding.EncodeToString(crt), base64.StdEncoding.EncodeToString(key)), crt
}

const e2eIngresses = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: paths, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  tls:
  - hosts: [shop.example.com]
    secretName: shop-tls
  - hosts: ["*.wild.example.com"]
    secretName: wild-tls
  rules:
  - host: paths.example.com
    http:
      paths:
      - {path: /exact, pathType: Exact, backend: {service: {name: alpha, port: {number: 80}}}}
      - {path: /prefix, pathType: Prefix, backend: {service: {name: beta, port: {name: http}}}}
      - {path: /impl, pathType: ImplementationSpecific, backend: {service: {name: gamma, port: {number: 80}}}}
      - {path: /empty, pathType: Prefix, backend: {service: {name: empty, port: {number: 80}}}}
      - {path: /missing, pathType: Prefix, backend: {service: {name: does-not-exist, port: {number: 80}}}}
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: alpha, port: {number: 80}}}}
  - host: "*.wild.example.com"
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: gamma, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: regex
  namespace: e2e
  creationTimestamp: "2026-01-02T00:00:00Z"
  annotations:
    nginx.ingress.kubernetes.io/use-regex: "true"
spec:
  ingressClassName: nginx
  rules:
  - host: regex.example.com
    http:
      paths:
      - {path: "/items/[0-9]+$", pathType: ImplementationSpecific, backend: {service: {name: alpha, port: {number: 80}}}}
      - {path: /items, pathType: Prefix, backend: {service: {name: beta, port: {number: 80}}}}
---
`

func TestRenderedConfigServesRealTraffic(t *testing.T) {
	shopTLS, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	wildTLS, wildCrt := tlsSecretYAML(t, "wild-tls", "*.wild.example.com")
	manifests := serviceYAML("alpha", namedBackend(t, "alpha")) +
		serviceYAML("beta", namedBackend(t, "beta")) +
		serviceYAML("gamma", namedBackend(t, "gamma")) +
		serviceYAML("empty", 0) + shopTLS + wildTLS + e2eIngresses
	n := startNginx(t, manifests)
	if len(n.problems) != 1 || !strings.Contains(n.problems[0].String(), "does-not-exist") {
		t.Fatalf("want exactly the missing-service problem, got %v", n.problems)
	}

	// paths.example.com is a rule host of an Ingress with a tls section
	// that neither lists nor covers it: as in ingress-nginx it is a TLS
	// host with the default certificate, redirected over plain HTTP, so
	// its routing is checked over HTTPS.
	cases := []struct {
		host, path string
		https      bool
		status     int
		backend    string // the body starts with it; "" for no check
	}{
		{"paths.example.com", "/exact", false, 308, ""}, // TLS host (default certificate): ssl-redirect
		{"paths.example.com", "/exact", true, 200, "alpha"},
		{"paths.example.com", "/exact/more", true, 404, ""},
		{"paths.example.com", "/prefix", true, 200, "beta"},
		{"paths.example.com", "/prefix/", true, 200, "beta"},
		{"paths.example.com", "/prefix/deeper/still", true, 200, "beta"},
		{"paths.example.com", "/prefixed", true, 404, ""}, // Prefix is element-wise
		{"paths.example.com", "/impl", true, 200, "gamma"},
		{"paths.example.com", "/implementation", true, 200, "gamma"}, // plain prefix, as ingress-nginx
		{"paths.example.com", "/empty/x", true, 503, ""},             // a Service without endpoints
		{"paths.example.com", "/missing", true, 503, ""},             // a Service that does not exist
		{"paths.example.com", "/", true, 404, ""},                    // the built-in default backend
		{"regex.example.com", "/items/42", false, 200, "alpha"},      // the longer regex first
		{"regex.example.com", "/ITEMS/42", false, 200, "alpha"},      // case-insensitive, as ingress-nginx
		{"regex.example.com", "/items/abc", false, 200, "beta"},
		{"unknown.example.com", "/exact", false, 404, ""}, // no such host: the catch-all server
		{"a.wild.example.com", "/x", false, 308, ""},      // TLS host: ssl-redirect
		{"wild.example.com", "/x", false, 404, ""},        // a wildcard covers exactly one label, not the bare domain
		{"a.b.wild.example.com", "/x", false, 404, ""},    // … nor two labels (the Ingress spec; ingress-nginx's regex)
		{"shop.example.com", "/cart", false, 308, ""},     // TLS host: ssl-redirect
	}
	for _, c := range cases {
		get, scheme := n.get, "http"
		if c.https {
			get, scheme = n.getTLS, "https"
		}
		status, body := get(t, c.host, c.path)
		if status != c.status || !strings.HasPrefix(body, c.backend) {
			t.Errorf("GET %s://%s%s = %d %q, want %d from %q", scheme, c.host, c.path, status, body, c.status, c.backend)
		}
	}
	if got := n.servedCertificate(t, "paths.example.com"); got.Subject.CommonName != "Kubernetes Ingress Controller Fake Certificate" {
		t.Errorf("SNI paths.example.com served %q, want the default certificate", got.Subject.CommonName)
	}

	// TLS: SNI chooses the certificate; unknown names get the default one.
	if got := n.servedCertificate(t, "shop.example.com"); !sameCert(got.Raw, shopCrt) {
		t.Errorf("SNI shop.example.com served %v, want the shop certificate", got.DNSNames)
	}
	if got := n.servedCertificate(t, "x.wild.example.com"); !sameCert(got.Raw, wildCrt) {
		t.Errorf("SNI x.wild.example.com served %v, want the wildcard certificate", got.DNSNames)
	}
	if got := n.servedCertificate(t, "unknown.example.com"); got.Subject.CommonName != "Kubernetes Ingress Controller Fake Certificate" {
		t.Errorf("SNI unknown.example.com served %q, want the default certificate", got.Subject.CommonName)
	}

	// Over HTTPS the TLS hosts serve their backends.
	for _, c := range []struct{ host, backend string }{{"shop.example.com", "alpha"}, {"a.wild.example.com", "gamma"}} {
		if status, body := n.getTLS(t, c.host, "/x"); status != 200 || !strings.HasPrefix(body, c.backend) {
			t.Errorf("GET https://%s/x = %d %q, want 200 from %s", c.host, status, body, c.backend)
		}
	}

	// A bad POST is refused and the last good backends keep serving.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, body := range []string{`{not json`, `[{"endpoints": []}]`, `{"name": "x"}`} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, n.statusURL+"/configuration/backends", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST /configuration/backends %s = %d, want 400", body, resp.StatusCode)
		}
	}
	if status, body := n.getTLS(t, "paths.example.com", "/prefix/x"); status != 200 || !strings.HasPrefix(body, "beta") {
		t.Errorf("after bad POSTs: GET /prefix/x = %d %q, want 200 from beta", status, body)
	}
	got, err := n.lua.GetBackends(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := luaapi.FromModel(n.config)
	if len(got) != len(want) {
		t.Errorf("GET /configuration/backends has %d backends, want %d", len(got), len(want))
	}
}
