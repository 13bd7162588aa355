package e2e

// Client certificate authentication (auth-tls-*) with a real nginx and a
// real TLS client, compared with ingress-nginx's e2e test
// annotations/authtls.go: a client without a certificate, or with one of
// another CA, gets 400 (or the redirect of auth-tls-error-page); one of
// the CA gets 200 and the backend the ssl-client-* headers; a subject that
// auth-tls-match-cn refuses gets 403; "optional" lets a client without a
// certificate in, with ssl-client-verify NONE.

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
)

// tlsAnswer is what an HTTPS request through nginx gave.
type tlsAnswer struct {
	status   int
	location string
	got      map[string]string // the headers the echo backend got
}

// getClientCert sends GET https://host/ to nginx (SNI host), presenting
// cert when not nil (whatever CAs nginx names as acceptable).
func (n *liveNginx) getClientCert(t *testing.T, host string, cert *tls.Certificate) tlsAnswer {
	t.Helper()
	return getClientCert(t, n.httpsPort, host, cert)
}

// getClientCert sends GET https://host/ to nginx's HTTPS port (SNI host),
// presenting cert when not nil.
func getClientCert(t *testing.T, httpsPort int, host string, cert *tls.Certificate) tlsAnswer {
	t.Helper()
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, TLSClientConfig: &tls.Config{
		ServerName: host, InsecureSkipVerify: true,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if cert == nil {
				return &tls.Certificate{}, nil
			}
			return cert, nil
		},
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(httpsPort)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	c := &http.Client{Timeout: 5 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET https://%s/: %v", host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := tlsAnswer{status: resp.StatusCode, location: resp.Header.Get("Location")}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &a.got); err != nil {
			t.Fatalf("backend answer %q: %v", body, err)
		}
	}
	return a
}

func clientCert(t *testing.T, ca *testcerts.CA, cn string, serial int64) *tls.Certificate {
	t.Helper()
	crt, key := ca.IssuePEM(t, cn, serial, true)
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	return &pair
}

func TestClientCertificateAuth(t *testing.T) {
	port := headerEcho(t)
	ca, rogue := testcerts.NewCA(t), testcerts.NewCA(t)
	alice, mallory := clientCert(t, ca, "alice", 10), clientCert(t, ca, "mallory", 11)
	forged := clientCert(t, rogue, "alice", 12)

	m := serviceOf("echo", &backend{port: port}) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: e2e}
data:
  ca.crt: %s
---
`, base64.StdEncoding.EncodeToString(ca.PEM))
	m += ingressOf("mtls", "mtls.example.com", "echo", "2026-01-01T00:00:00Z", map[string]string{
		"auth-tls-secret": "e2e/client-ca", "auth-tls-pass-certificate-to-upstream": "true",
		"auth-tls-match-cn": "CN=(alice|bob)$",
	})
	m += ingressOf("errpage", "errpage.example.com", "echo", "2026-01-02T00:00:00Z", map[string]string{
		"auth-tls-secret": "client-ca", "auth-tls-error-page": "https://errors.example.com/client-cert",
	})
	m += ingressOf("optional", "optional.example.com", "echo", "2026-01-03T00:00:00Z", map[string]string{
		"auth-tls-secret": "client-ca", "auth-tls-verify-client": "optional",
	})
	m += ingressOf("plain", "plain.example.com", "echo", "2026-01-04T00:00:00Z", nil)
	n := startNginx(t, m)
	if len(n.problems) > 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	// A host without auth-tls on the same nginx asks for no certificate.
	if a := n.getClientCert(t, "plain.example.com", nil); a.status != http.StatusOK || a.got["Ssl-Client-Verify"] != "" {
		t.Errorf("plain host without a certificate: %d, ssl-client-verify %q, want 200 and no header", a.status, a.got["Ssl-Client-Verify"])
	}

	// Without a certificate, or with one of another CA: 400, as nginx
	// answers ssl_verify_client on.
	for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another CA's certificate": forged} {
		if a := n.getClientCert(t, "mtls.example.com", cert); a.status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, a.status)
		}
	}
	// A certificate of the CA whose subject match-cn refuses: 403.
	if a := n.getClientCert(t, "mtls.example.com", mallory); a.status != http.StatusForbidden {
		t.Errorf("mallory: status %d, want 403", a.status)
	}
	// alice: 200, and the backend learns who she is.
	a := n.getClientCert(t, "mtls.example.com", alice)
	if a.status != http.StatusOK {
		t.Fatalf("alice: status %d, want 200", a.status)
	}
	for h, want := range map[string]string{
		"Ssl-Client-Verify":     "SUCCESS",
		"Ssl-Client-Subject-Dn": "CN=alice",
		"Ssl-Client-Issuer-Dn":  "CN=kubectl-ingress test CA",
	} {
		if got := a.got[h]; got != want {
			t.Errorf("alice: backend got %s %q, want %q", h, got, want)
		}
	}
	if pemCert, err := url.QueryUnescape(a.got["Ssl-Client-Cert"]); err != nil || !strings.Contains(pemCert, "BEGIN CERTIFICATE") {
		t.Errorf("alice: backend got ssl-client-cert %q (%v), want her URL-encoded PEM", a.got["Ssl-Client-Cert"], err)
	}

	// auth-tls-error-page: a failed verification is redirected there.
	if a := n.getClientCert(t, "errpage.example.com", nil); a.status != http.StatusFound || a.location != "https://errors.example.com/client-cert" {
		t.Errorf("errpage without a certificate: %d %q, want 302 to the error page", a.status, a.location)
	}
	if a := n.getClientCert(t, "errpage.example.com", alice); a.status != http.StatusOK {
		t.Errorf("errpage with alice: status %d, want 200", a.status)
	}

	// optional: in without a certificate, the backend told NONE; with
	// alice's, SUCCESS.
	if a := n.getClientCert(t, "optional.example.com", nil); a.status != http.StatusOK || a.got["Ssl-Client-Verify"] != "NONE" {
		t.Errorf("optional without a certificate: %d, ssl-client-verify %q, want 200 NONE", a.status, a.got["Ssl-Client-Verify"])
	}
	if a := n.getClientCert(t, "optional.example.com", alice); a.status != http.StatusOK || a.got["Ssl-Client-Verify"] != "SUCCESS" {
		t.Errorf("optional with alice: %d, ssl-client-verify %q, want 200 SUCCESS", a.status, a.got["Ssl-Client-Verify"])
	}
}

// caManifests are the echo Service, a Secret holding caPEM as ca.crt and
// an Ingress for host asking for client certificates of it.
func caManifests(port int, host string, caPEM []byte) string {
	return serviceOf("echo", &backend{port: port}) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: e2e}
data:
  ca.crt: %s
---
`, base64.StdEncoding.EncodeToString(caPEM)) + ingressOf("mtls", host, "echo", "2026-01-01T00:00:00Z", map[string]string{"auth-tls-secret": "client-ca"})
}

// TestClientCARotation: a new CA in the Secret is a new file name in
// nginx.conf (nginx reads the CA at load), so the controller reloads; the
// old CA's file is removed once nginx serves the new config.
func TestClientCARotation(t *testing.T) {
	port := headerEcho(t)
	const host = "rotate.example.com"
	ca1, ca2 := testcerts.NewCA(t), testcerts.NewCA(t)
	alice1, alice2 := clientCert(t, ca1, "alice", 30), clientCert(t, ca2, "alice", 31)
	fc := startFilesController(t, map[string]string{"app.yaml": caManifests(port, host, ca1.PEM)})
	if a := getClientCert(t, fc.httpsPort, host, alice1); a.status != http.StatusOK {
		t.Fatalf("alice of the first CA: status %d, want 200", a.status)
	}
	if a := getClientCert(t, fc.httpsPort, host, alice2); a.status != http.StatusBadRequest {
		t.Errorf("alice of the second CA before the rotation: status %d, want 400", a.status)
	}
	caFiles := func() []string {
		entries, _ := os.ReadDir(filepath.Join(fc.inst.FilesDir(), "ca"))
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	before := caFiles()
	stats := fc.settle(t)

	fc.write(t, "app.yaml", caManifests(port, host, ca2.PEM))
	// Old workers drain after the reload: wait until the workers of the
	// new config alone serve, then the first CA's client is refused.
	waitFor(t, 20*time.Second, "the second CA", func() bool {
		return getClientCert(t, fc.httpsPort, host, alice2).status == http.StatusOK
	})
	fc.workerPids(t)
	for range 5 {
		if a := getClientCert(t, fc.httpsPort, host, alice1); a.status != http.StatusBadRequest {
			t.Errorf("alice of the first CA after the rotation: status %d, want 400", a.status)
		}
	}
	now := fc.settle(t)
	if now.Reloads <= stats.Reloads {
		t.Errorf("the CA rotation did not reload: reloads %d → %d", stats.Reloads, now.Reloads)
	}
	after := caFiles()
	if len(before) != 1 || len(after) != 1 || before[0] == after[0] {
		t.Errorf("CA files %v → %v, want one file replaced by another (the old one removed)", before, after)
	}
}
