package e2e

// Client certificate revocation (auth-tls-secret with a ca.crl), in both
// routing modes: nginx's ssl_crl in a classic server, the router's
// handshake in Lua routing (lua/client_auth.lua: a verify store with the
// CA and the CRL, nginx's CRL checks).

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// crlManifests are the echo Service, a Secret with caPEM as ca.crt and
// crlPEM as ca.crl, and Ingresses for crl.example.com (verify on) and
// optional-crl.example.com (optional) asking for client certificates of
// it.
func crlManifests(port int, caPEM, crlPEM []byte) string {
	return serviceOf("echo", &backend{port: port}) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: e2e}
data:
  ca.crt: %s
  ca.crl: %s
---
`, base64.StdEncoding.EncodeToString(caPEM), base64.StdEncoding.EncodeToString(crlPEM)) +
		ingressOf("crl", "crl.example.com", "echo", "2026-01-01T00:00:00Z", map[string]string{"auth-tls-secret": "e2e/client-ca"}) +
		ingressOf("optional", "optional-crl.example.com", "echo", "2026-01-01T00:00:01Z", map[string]string{
			"auth-tls-secret": "e2e/client-ca", "auth-tls-verify-client": "optional"})
}

// TestClientCertificateRevocation: a certificate the CA's CRL revokes
// gets 400 as one of another CA ("optional" too, which lets only a
// missing certificate in); the others get 200 and the backend
// SUCCESS. A new CRL in the Secret (alice revoked, mallory no longer)
// takes effect: a reload in classic routing, none in Lua routing, where
// the hosts are Lua-routed.
func TestClientCertificateRevocation(t *testing.T) {
	port := headerEcho(t)
	lua := e2eRouting(t) == nginxconf.RoutingLua
	ca := testcerts.NewCA(t)
	certs := map[string]*tls.Certificate{"alice": clientCert(t, ca, "alice", 10), "mallory": clientCert(t, ca, "mallory", 11)}
	first := crlManifests(port, ca.PEM, ca.CRL(t, 1, 11))
	fc := startFilesController(t, map[string]string{"app.yaml": first})
	if lua {
		cfg, _ := buildConfig(t, first)
		for i := range cfg.Servers {
			if s := &cfg.Servers[i]; strings.HasSuffix(s.Hostname, "crl.example.com") {
				if reasons := nginxconf.LuaRoutable(cfg, s); len(reasons) != 0 {
					t.Fatalf("%s is classic: %v", s.Hostname, reasons)
				}
			}
		}
	}
	// answers says what each host answers each certificate (and no
	// certificate): "200 SUCCESS", "400", "200 NONE" …
	answers := func() map[string]string {
		out := map[string]string{}
		for _, host := range []string{"crl.example.com", "optional-crl.example.com"} {
			for name, cert := range certs {
				a := getClientCert(t, fc.httpsPort, host, cert)
				out[host+" "+name] = strings.TrimSpace(fmt.Sprintf("%d %s", a.status, a.got["Ssl-Client-Verify"]))
			}
		}
		a := getClientCert(t, fc.httpsPort, "optional-crl.example.com", nil)
		out["optional-crl.example.com none"] = strings.TrimSpace(fmt.Sprintf("%d %s", a.status, a.got["Ssl-Client-Verify"]))
		return out
	}
	want := func(revoked string) map[string]string {
		out := map[string]string{"optional-crl.example.com none": "200 NONE"}
		for _, host := range []string{"crl.example.com", "optional-crl.example.com"} {
			for name := range certs {
				out[host+" "+name] = "200 SUCCESS"
				if name == revoked {
					out[host+" "+name] = "400"
				}
			}
		}
		return out
	}
	if got := answers(); !maps.Equal(got, want("mallory")) {
		t.Fatalf("mallory revoked: %v, want %v", got, want("mallory"))
	}
	stats := fc.settle(t)
	fc.write(t, "app.yaml", crlManifests(port, ca.PEM, ca.CRL(t, 2, 10)))
	waitFor(t, 20*time.Second, "the second CRL", func() bool {
		return getClientCert(t, fc.httpsPort, "crl.example.com", certs["mallory"]).status == http.StatusOK
	})
	now := fc.settle(t)
	if got := answers(); !maps.Equal(got, want("alice")) {
		t.Errorf("alice revoked: %v, want %v", got, want("alice"))
	}
	switch {
	case lua && now.Reloads != stats.Reloads:
		t.Errorf("the new CRL reloaded in Lua routing: reloads %d → %d", stats.Reloads, now.Reloads)
	case !lua && now.Reloads <= stats.Reloads:
		t.Errorf("the new CRL did not reload: reloads %d → %d", stats.Reloads, now.Reloads)
	}
}
