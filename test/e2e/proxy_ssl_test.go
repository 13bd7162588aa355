package e2e

// TLS towards an HTTPS backend (backend-protocol HTTPS with proxy-ssl-*),
// with a real nginx and an HTTPS httptest backend, compared with
// ingress-nginx's e2e test annotations/proxyssl.go: without verification
// any backend certificate is accepted; with proxy-ssl-verify the backend's
// certificate must chain to the ca.crt of proxy-ssl-secret and name
// proxy-ssl-name (else 502), sent by SNI with proxy-ssl-server-name; the
// tls.crt and tls.key of the Secret are the client certificate nginx
// presents to the backend.

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
)

// tlsBackend starts an HTTPS backend with a certificate of ca for
// backend.internal (and 127.0.0.1) that asks for a client certificate of
// ca and answers "client=<CN or none> sni=<server name>". It returns its
// port.
func tlsBackend(t *testing.T, ca *testcerts.CA) int {
	t.Helper()
	crt, key := ca.IssuePEM(t, "backend", 20, false, "backend.internal")
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := "none"
		if len(r.TLS.PeerCertificates) > 0 {
			client = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		fmt.Fprintf(w, "client=%s sni=%s", client, r.TLS.ServerName)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: ca.Pool()}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

func TestProxySSL(t *testing.T) {
	ca, other := testcerts.NewCA(t), testcerts.NewCA(t)
	port := tlsBackend(t, ca)
	clientCrt, clientKey := ca.IssuePEM(t, "nginx-client", 21, true)
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

	m := serviceOf("tlsbe", &backend{port: port}) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: backend-ca, namespace: e2e}
data:
  ca.crt: %s
---
apiVersion: v1
kind: Secret
metadata: {name: other-ca, namespace: e2e}
data:
  ca.crt: %s
---
apiVersion: v1
kind: Secret
metadata: {name: backend-mtls, namespace: e2e}
data:
  tls.crt: %s
  tls.key: %s
  ca.crt: %s
---
`, b64(ca.PEM), b64(other.PEM), b64(clientCrt), b64(clientKey), b64(ca.PEM))
	https := func(extra map[string]string) map[string]string {
		a := map[string]string{"backend-protocol": "HTTPS"}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	m += ingressOf("noverify", "noverify.example.com", "tlsbe", "2026-01-01T00:00:00Z", https(nil))
	m += ingressOf("verified", "verified.example.com", "tlsbe", "2026-01-02T00:00:00Z", https(map[string]string{
		"proxy-ssl-secret": "e2e/backend-ca", "proxy-ssl-verify": "on",
		"proxy-ssl-name": "backend.internal", "proxy-ssl-server-name": "on",
	}))
	m += ingressOf("wrongname", "wrongname.example.com", "tlsbe", "2026-01-03T00:00:00Z", https(map[string]string{
		"proxy-ssl-secret": "backend-ca", "proxy-ssl-verify": "on", "proxy-ssl-name": "someone-else.internal",
	}))
	m += ingressOf("wrongca", "wrongca.example.com", "tlsbe", "2026-01-04T00:00:00Z", https(map[string]string{
		"proxy-ssl-secret": "other-ca", "proxy-ssl-verify": "on", "proxy-ssl-name": "backend.internal",
	}))
	m += ingressOf("mtls", "mtls.example.com", "tlsbe", "2026-01-05T00:00:00Z", https(map[string]string{
		"proxy-ssl-secret": "backend-mtls", "proxy-ssl-verify": "on", "proxy-ssl-name": "backend.internal",
		"proxy-ssl-protocols": "TLSv1.2 TLSv1.3",
	}))
	n := startNginx(t, m)
	if len(n.problems) > 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	n.requireLuaRouted(t, "noverify.example.com", "verified.example.com", "wrongname.example.com", "wrongca.example.com", "mtls.example.com")
	for _, tc := range []struct {
		host   string
		status int
		body   string // the start of the backend's answer
	}{
		{"noverify.example.com", http.StatusOK, "client=none"},
		{"verified.example.com", http.StatusOK, "client=none sni=backend.internal"},
		{"wrongname.example.com", http.StatusBadGateway, ""},
		{"wrongca.example.com", http.StatusBadGateway, ""},
		{"mtls.example.com", http.StatusOK, "client=nginx-client"},
	} {
		code, body := n.get(t, tc.host, "/")
		if code != tc.status || !strings.HasPrefix(body, tc.body) {
			t.Errorf("%s: %d %q, want %d %q…", tc.host, code, body, tc.status, tc.body)
		}
	}
}
