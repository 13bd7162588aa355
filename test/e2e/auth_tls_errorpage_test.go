package e2e

// auth-tls-error-page as a path: nginx's "error_page 495 496 = /path"
// in a classic server, the router's internal redirect in Lua routing.

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// methodBackend answers "<name> <method> <request URI> <body length>"
// with status code.
func methodBackend(t testing.TB, name string, code int) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(code)
		fmt.Fprintf(w, "%s %s %s %d", name, r.Method, r.RequestURI, len(body))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// TestClientCertificateErrorPagePath: a failed client verification on a
// host whose auth-tls-error-page is a path is served by that path's
// route of the host (nginx's internal redirect: the method becomes GET,
// the request's arguments dropped, its body passed on, the answer's status
// the page's: as classic nginx 1.22 does); a verified client gets its own
// path.
func TestClientCertificateErrorPagePath(t *testing.T) {
	ca := testcerts.NewCA(t)
	alice := clientCert(t, ca, "alice", 40)
	app, errs := methodBackend(t, "app", 200), methodBackend(t, "errors", 403)
	m := serviceYAML("app", app) + serviceYAML("errors", errs) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: e2e}
data:
  ca.crt: %s
---
`, base64.StdEncoding.EncodeToString(ca.PEM)) +
		luaIngress("mtls", "page.example.com", false, map[string]string{"auth-tls-secret": "e2e/client-ca", "auth-tls-error-page": "/cert-error"},
			"Prefix / app") +
		// the page's route served in the router's every-phase location (an
		// ngx.exec, whose rewrite phase checks the certificate again)
		luaIngress("errs", "page.example.com", false, map[string]string{"enable-cors": "true"}, "Exact /cert-error errors")
	n := startNginx(t, m)
	if len(n.problems) > 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	if e2eRouting(t) == nginxconf.RoutingLua {
		for i := range n.config.Servers {
			if s := &n.config.Servers[i]; s.Hostname == "page.example.com" {
				if reasons := nginxconf.LuaRoutable(n.config, s); len(reasons) != 0 {
					t.Errorf("%s is classic: %v", s.Hostname, reasons)
				}
			}
		}
	}
	do := func(method, path, body string, cert *tls.Certificate) string {
		t.Helper()
		tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: "page.example.com", InsecureSkipVerify: true}}
		if cert != nil {
			tr.TLSClientConfig.Certificates = []tls.Certificate{*cert}
		}
		defer tr.CloseIdleConnections()
		req, err := http.NewRequest(method, "https://127.0.0.1:"+strconv.Itoa(n.httpsPort)+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "page.example.com"
		resp, err := (&http.Client{Timeout: 5 * time.Second, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(fmt.Sprintf("%d %s %s", resp.StatusCode, got, resp.Header.Get("Access-Control-Allow-Origin")))
	}
	for _, tc := range []struct {
		method, path, body string
		cert               *tls.Certificate
		want               string
	}{
		{"GET", "/x?a=1", "", nil, "403 errors GET /cert-error 0 *"},
		{"POST", "/x", "payload", nil, "403 errors GET /cert-error 7 *"},
		{"GET", "/cert-error", "", nil, "403 errors GET /cert-error 0 *"},
		{"GET", "/x?a=1", "", alice, "200 app GET /x?a=1 0"},
		{"POST", "/x", "payload", alice, "200 app POST /x 7"},
	} {
		if got := do(tc.method, tc.path, tc.body, tc.cert); got != tc.want {
			t.Errorf("%s %s (certificate %t): %q, want %q", tc.method, tc.path, tc.cert != nil, got, tc.want)
		}
	}
}
