package e2e

// Client certificate authentication (auth-tls-*) with a real nginx and a
// real TLS client, compared with ingress-nginx's e2e test
// annotations/authtls.go: a client without a certificate, or with one of
// another CA, gets 400 (or the redirect of auth-tls-error-page); one of
// the CA gets 200 and the backend the ssl-client-* headers; a subject that
// auth-tls-match-cn refuses gets 403; "optional" lets a client without a
// certificate in, with ssl-client-verify NONE.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
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
	return clientCertRequest{port: httpsPort, sni: host, host: host, cert: cert}.get(t)
}

// clientCertRequest is a GET https://host/ to nginx's HTTPS port with
// SNI sni (none when ""), presenting cert when not nil, with header.
type clientCertRequest struct {
	port      int
	sni, host string
	cert      *tls.Certificate
	header    map[string]string
}

func (cr clientCertRequest) get(t *testing.T) tlsAnswer {
	t.Helper()
	host, cert := cr.host, cr.cert
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, TLSClientConfig: &tls.Config{
		ServerName: cr.sni, InsecureSkipVerify: true,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if cert == nil {
				return &tls.Certificate{}, nil
			}
			return cert, nil
		},
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(cr.port)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range cr.header {
		req.Header.Add(k, v) // two spellings of a name: two headers
	}
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
	m += ingressOf("noca", "noca.example.com", "echo", "2026-01-04T00:00:00Z", map[string]string{
		"auth-tls-secret": "client-ca", "auth-tls-verify-client": "optional_no_ca",
	})
	m += ingressOf("plain", "plain.example.com", "echo", "2026-01-05T00:00:00Z", nil)
	n := startNginx(t, m)
	if len(n.problems) > 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	if e2eRouting(t) == nginxconf.RoutingLua && (bytes.Contains(n.conf, []byte("example.com")) || len(n.routes) < 5) {
		t.Fatalf("the hosts with auth-tls are not Lua-routed (%d entries)", len(n.routes))
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

	// optional_no_ca: in with a certificate of another CA, the backend
	// told why it failed; optional refuses it.
	if a := n.getClientCert(t, "noca.example.com", forged); a.status != http.StatusOK || !strings.HasPrefix(a.got["Ssl-Client-Verify"], "FAILED:") {
		t.Errorf("optional_no_ca with another CA's certificate: %d, ssl-client-verify %q, want 200 FAILED:…", a.status, a.got["Ssl-Client-Verify"])
	}
	if a := n.getClientCert(t, "optional.example.com", forged); a.status != http.StatusBadRequest {
		t.Errorf("optional with another CA's certificate: status %d, want 400", a.status)
	}

	// A request for a host that asks for certificates over a handshake
	// of another name: 421 (the certificate, if any, was not asked for
	// this host); the other way round nothing is asked.
	for _, tc := range []struct {
		sni, host string
		cert      *tls.Certificate
		status    int
	}{
		{"plain.example.com", "mtls.example.com", alice, http.StatusMisdirectedRequest},
		{"optional.example.com", "mtls.example.com", alice, http.StatusMisdirectedRequest},
		{"mtls.example.com", "plain.example.com", alice, http.StatusOK},
		// without SNI the catch-all's handshake, which asks for nothing
		{"", "mtls.example.com", alice, http.StatusBadRequest},
	} {
		if a := (clientCertRequest{port: n.httpsPort, sni: tc.sni, host: tc.host, cert: tc.cert}).get(t); a.status != tc.status {
			t.Errorf("SNI %q, Host %s: status %d, want %d", tc.sni, tc.host, a.status, tc.status)
		}
	}

	// The ssl-client-* headers a client sends: replaced where the host
	// asks for certificates (each of them, when the client sends two),
	// passed on elsewhere (as ingress-nginx).
	spoof := map[string]string{"ssl-client-verify": "SUCCESS", "SSL-Client-Verify": "SUCCESS", "ssl-client-subject-dn": "CN=alice", "ssl-client-cert": "forged"}
	if a := (clientCertRequest{port: n.httpsPort, sni: "optional.example.com", host: "optional.example.com", header: spoof}).get(t); a.status != http.StatusOK ||
		a.got["Ssl-Client-Verify"] != "NONE" || a.got["Ssl-Client-Subject-Dn"] != "" || a.got["Ssl-Client-Cert"] != "forged" {
		t.Errorf("optional host, a client's own headers: %d, backend got %v; want NONE, no subject, its own ssl-client-cert (not passed)", a.status, a.got)
	}
	if a := (clientCertRequest{port: n.httpsPort, sni: "plain.example.com", host: "plain.example.com", header: spoof}).get(t); a.status != http.StatusOK || a.got["Ssl-Client-Verify"] != "SUCCESS | SUCCESS" {
		t.Errorf("plain host, a client's own headers: %d, backend got %v; want them passed on", a.status, a.got)
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

// TestClientCARotation: a new CA in the Secret is a new file name. In
// classic routing nginx.conf names it (nginx reads the CA at load), so the
// controller reloads; in Lua routing the host's route names it and the
// router's handshake reads it, so nothing reloads. Either way the first
// CA's client is refused at once, even with a TLS session that the first
// CA verified, and the old CA's file is removed once nginx serves the new
// config.
func TestClientCARotation(t *testing.T) {
	port := headerEcho(t)
	const host = "rotate.example.com"
	lua := e2eRouting(t) == nginxconf.RoutingLua
	ca1, ca2 := testcerts.NewCA(t), testcerts.NewCA(t)
	alice1, alice2 := clientCert(t, ca1, "alice", 30), clientCert(t, ca2, "alice", 31)
	fc := startFilesController(t, map[string]string{"app.yaml": caManifests(port, host, ca1.PEM)})
	if a := getClientCert(t, fc.httpsPort, host, alice1); a.status != http.StatusOK {
		t.Fatalf("alice of the first CA: status %d, want 200", a.status)
	}
	if a := getClientCert(t, fc.httpsPort, host, alice2); a.status != http.StatusBadRequest {
		t.Errorf("alice of the second CA before the rotation: status %d, want 400", a.status)
	}
	// a session of alice's first certificate, verified by the first CA
	sessions := tls.NewLRUClientSessionCache(4)
	if a := resumedClientCert(t, fc.httpsPort, host, alice1, sessions); a.status != http.StatusOK {
		t.Fatalf("alice of the first CA, keeping her session: status %d, want 200", a.status)
	}
	if a := resumedClientCert(t, fc.httpsPort, host, alice1, sessions); !a.resumed || a.status != http.StatusOK {
		t.Errorf("alice of the first CA, offering her session: resumed %v, status %d; want it resumed and 200", a.resumed, a.status)
	}
	// a connection kept alive across the rotation, whose handshake the
	// first CA verified
	kept := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1, TLSClientConfig: &tls.Config{
		ServerName: host, InsecureSkipVerify: true, Certificates: []tls.Certificate{*alice1},
	}}
	defer kept.CloseIdleConnections()
	keptGet := func() int {
		req, err := http.NewRequest(http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(fc.httpsPort)+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := (&http.Client{Timeout: 5 * time.Second, Transport: kept}).Do(req)
		if err != nil {
			t.Fatalf("GET https://%s/ on the kept connection: %v", host, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := keptGet(); status != http.StatusOK {
		t.Fatalf("alice of the first CA on a kept connection: status %d, want 200", status)
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
	pids := fc.workerPids(t)

	fc.write(t, "app.yaml", caManifests(port, host, ca2.PEM))
	// Old workers drain after a reload: wait until the workers of the
	// new config alone serve, then the first CA's client is refused.
	waitFor(t, 20*time.Second, "the second CA", func() bool {
		return getClientCert(t, fc.httpsPort, host, alice2).status == http.StatusOK
	})
	now := fc.settle(t)
	after := fc.workerPids(t)
	for range 5 {
		if a := getClientCert(t, fc.httpsPort, host, alice1); a.status != http.StatusBadRequest {
			t.Errorf("alice of the first CA after the rotation: status %d, want 400", a.status)
		}
	}
	if a := resumedClientCert(t, fc.httpsPort, host, alice1, sessions); a.resumed || a.status != http.StatusBadRequest {
		t.Errorf("alice of the first CA offering her session after the rotation: resumed %v, status %d; want a full handshake and 400", a.resumed, a.status)
	}
	// The kept connection: in classic routing the old workers closed it
	// (the client asks again over a new one: 400); the Lua router answers
	// 421, for a connection whose handshake other client certificate
	// settings made, and the client asks again over a new one.
	want := http.StatusBadRequest
	if lua {
		want = http.StatusMisdirectedRequest
	}
	if status := keptGet(); status != want {
		t.Errorf("alice of the first CA on the connection kept from before the rotation: status %d, want %d", status, want)
	}
	switch {
	case lua && (now.Reloads != stats.Reloads || !slices.Equal(pids, after)):
		t.Errorf("the CA rotation reloaded in Lua routing: reloads %d → %d, workers %v → %v", stats.Reloads, now.Reloads, pids, after)
	case !lua && now.Reloads <= stats.Reloads:
		t.Errorf("the CA rotation did not reload: reloads %d → %d", stats.Reloads, now.Reloads)
	}
	files := caFiles()
	if len(before) != 1 || len(files) != 1 || before[0] == files[0] {
		t.Errorf("CA files %v → %v, want one file replaced by another (the old one removed)", before, files)
	}
}

// resumedTLS is what resumedClientCert saw.
type resumedTLS struct {
	status  int
	resumed bool
}

// resumedClientCert sends GET / to host over a new TLS connection
// presenting cert, offering a session of sessions (and keeping the one
// nginx gives).
func resumedClientCert(t *testing.T, httpsPort int, host string, cert *tls.Certificate, sessions tls.ClientSessionCache) resumedTLS {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(httpsPort), &tls.Config{
		ServerName: host, InsecureSkipVerify: true, ClientSessionCache: sessions,
		// TLS 1.3: Go resumes TLS 1.2 sessions by ticket only, which
		// nginx does not give by default (ssl-session-tickets); a TLS 1.3
		// ticket comes with the answer and names the session cache's
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{*cert},
	})
	if err != nil {
		t.Fatalf("TLS to %s: %v", host, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host); err != nil {
		t.Fatalf("GET https://%s/: %v", host, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET https://%s/: %v", host, err)
	}
	resp.Body.Close()
	return resumedTLS{status: resp.StatusCode, resumed: conn.ConnectionState().DidResume}
}

// TestLuaRoutingRefusesBadClientAuth: the routes endpoint checks a host
// entry's clientAuth itself (the file the handshake reads must be one the
// controller wrote: never a path out of files/, the CVE-2025-24513
// shape), drops such an entry alone and keeps the host's last good one.
func TestLuaRoutingRefusesBadClientAuth(t *testing.T) {
	port := uriBackend(t, "root")
	n := startLuaNginx(t, serviceYAML("root", port)+luaIngress("a", "a.example.com", false, nil, "Prefix / root"))
	good := n.hostRoutes(t, "a.example.com")
	ok := luaapi.RouteClientAuth{CAFile: "files/ca/x.pem", Verify: "on", Depth: 1}
	for _, tc := range []struct {
		name  string
		edit  func(*luaapi.RouteClientAuth)
		field string
	}{
		{"a path out of files/", func(ca *luaapi.RouteClientAuth) { ca.CAFile = "files/../../../etc/passwd" }, "clientAuth.caFile"},
		{"an absolute path", func(ca *luaapi.RouteClientAuth) { ca.CAFile = "/etc/ssl/private/key.pem" }, "clientAuth.caFile"},
		{"a CRL path out of files/", func(ca *luaapi.RouteClientAuth) { ca.CRLFile = "files/crl/../../../etc/shadow" }, "clientAuth.crlFile"},
		{"an unknown verify", func(ca *luaapi.RouteClientAuth) { ca.Verify = "maybe" }, "clientAuth.verify"},
		{"depth 0", func(ca *luaapi.RouteClientAuth) { ca.Depth = 0 }, "clientAuth.depth"},
		{"an error page that is not a URL", func(ca *luaapi.RouteClientAuth) { ca.ErrorPage = "javascript:alert(1)" }, "clientAuth.errorPage"},
		{"an error page path with a control byte", func(ca *luaapi.RouteClientAuth) { ca.ErrorPage = "/x\r\nLocation: evil" }, "clientAuth.errorPage"},
	} {
		ca := ok
		tc.edit(&ca)
		bad := good
		bad.Version, bad.ClientAuth = "bad", &ca
		n.refusesEntry(t, tc.name, bad, tc.field)
	}
	n.check(t, luaReq{host: "a.example.com", path: "/x", status: 200, body: "root /x"})
}

// TestLuaRoutingRefusesBadCiphers: the routes endpoint checks a host
// entry's tls itself: a cipher list with other bytes than OpenSSL's list
// syntax (a ';' would end nginx's directive in a classic server: the
// injection shape), one that OpenSSL takes no cipher of (a classic
// server's nginx -t fails on it), a preference that is not a boolean. It
// drops such an entry alone and keeps the host's last good one.
func TestLuaRoutingRefusesBadCiphers(t *testing.T) {
	port := uriBackend(t, "root")
	n := startLuaNginx(t, serviceYAML("root", port)+luaIngress("a", "a.example.com", false, nil, "Prefix / root"))
	good := n.hostRoutes(t, "a.example.com")
	// a Suite B list first, accepted: it sets a mode on whatever it is set
	// on, after which OpenSSL takes any list (the check must not keep it)
	suiteB := good
	suiteB.Version, suiteB.TLS = "suite-b", &luaapi.RouteTLS{Ciphers: "SUITEB128"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: []luaapi.HostRoutes{suiteB}}); err != nil || len(dropped) != 0 {
		t.Fatalf("a Suite B list: dropped %+v, %v", dropped, err)
	}
	for _, tc := range []struct {
		name  string
		json  string
		field string
	}{
		{"a directive after the list", `{"ciphers": "HIGH; ssl_verify_client off"}`, "tls.ciphers"},
		{"a newline", `{"ciphers": "HIGH\nx"}`, "tls.ciphers"},
		{"no cipher OpenSSL knows", `{"ciphers": "FOO-BAR"}`, "tls.ciphers"},
		{"no cipher left", `{"ciphers": "!ALL"}`, "tls.ciphers"},
		{"a number", `{"ciphers": 3}`, "tls.ciphers"},
		{"a preference that is a string", `{"preferServerCiphers": "yes"}`, "tls.preferServerCiphers"},
		{"not an object", `"HIGH"`, "tls"},
	} {
		bad := good
		bad.Version = "bad"
		bad.TLS = nil
		raw, err := json.Marshal(bad)
		if err != nil {
			t.Fatal(err)
		}
		var entry map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entry); err != nil {
			t.Fatal(err)
		}
		entry["tls"] = json.RawMessage(tc.json)
		n.refusesRawEntry(t, tc.name, entry, tc.field)
	}
	n.check(t, luaReq{host: "a.example.com", path: "/x", status: 200, body: "root /x"})
}
