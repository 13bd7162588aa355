package e2e

// The request headers a backend gets and the answers' HTTPS headers,
// compared with ingress-nginx's: its e2e test settings/forwarded_headers.go
// (use-forwarded-headers), its nginx.tmpl (X-Original-Forwarded-For/-Host,
// $req_id) and lua_ingress.lua (the HTTPS redirect's host, HSTS).

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// backendHSTS is the Strict-Transport-Security the header echo backend
// sends of its own.
const backendHSTS = "max-age=1"

// headerEcho starts a loopback backend that answers with the request
// headers it got as JSON (Host included), and sends a
// Strict-Transport-Security header of its own. It returns its port.
func headerEcho(t *testing.T) int {
	t.Helper()
	return echoBackend(t, "Strict-Transport-Security", backendHSTS)
}

// headersManifests are a ConfigMap with data, the echo Service and an
// Ingress for host (with a spec.tls entry whose Secret, when secret is
// not "", is not in the input).
func headersManifests(port int, host, secret string, data map[string]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\ndata:\n")
	for k, v := range data {
		fmt.Fprintf(&b, "  %s: %q\n", k, v)
	}
	if len(data) == 0 {
		b.WriteString("  {}\n")
	}
	b.WriteString("---\n")
	b.WriteString(serviceOf("echo", &backend{port: port}))
	fmt.Fprintf(&b, `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: echo, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
`)
	if secret != "" {
		fmt.Fprintf(&b, "  tls: [{hosts: [%s], secretName: %s}]\n", host, secret)
	}
	fmt.Fprintf(&b, `  rules:
  - host: %s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}
`, host)
	return b.String()
}

// answer is what a request through nginx gave.
type answer struct {
	status   int
	location string
	hsts     []string
	got      map[string]string // the headers the backend got
}

// send sends GET path to nginx (HTTPS when tlsOn) with Host host and the
// headers given as name, value pairs.
func (n *liveNginx) send(t *testing.T, tlsOn bool, host, path string, headers ...string) answer {
	t.Helper()
	url := "http://127.0.0.1:" + strconv.Itoa(n.httpPort) + path
	tr := &http.Transport{Proxy: nil}
	if tlsOn {
		url = "https://127.0.0.1:" + strconv.Itoa(n.httpsPort) + path
		tr.TLSClientConfig = &tls.Config{ServerName: host, InsecureSkipVerify: true}
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %s): %v", url, host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, location: resp.Header.Get("Location"), hsts: resp.Header.Values("Strict-Transport-Security")}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &a.got); err != nil {
			t.Fatalf("backend answer %q: %v", body, err)
		}
	}
	return a
}

// checkGot compares the headers the backend got with want ("" means
// absent).
func checkGot(t *testing.T, name string, a answer, want map[string]string) {
	t.Helper()
	if a.status != http.StatusOK {
		t.Errorf("%s: status %d, want 200", name, a.status)
		return
	}
	for k, w := range want {
		if g := a.got[k]; g != w {
			t.Errorf("%s: backend got %s %q, want %q", name, k, g, w)
		}
	}
}

// TestForwardedHeaders: with use-forwarded-headers "false" (the default)
// nothing the client says in X-Forwarded-* reaches the backend under that
// name: Host, X-Forwarded-Host/-Port/-Proto/-Scheme and X-Forwarded-For
// are what nginx saw, and the client's X-Forwarded-For and
// X-Forwarded-Host go as X-Original-Forwarded-For/-Host. With "true" the
// client's X-Forwarded-* are trusted: its X-Forwarded-Host (the first of
// a list) is the backend's Host, its port and scheme are passed, and
// X-Forwarded-For is the client address taken from it (once).
func TestForwardedHeaders(t *testing.T) {
	const host = "fwd.example.com"
	port := headerEcho(t)
	spoof := []string{
		"X-Forwarded-Port", "1234",
		"X-Forwarded-Proto", "myproto",
		"X-Forwarded-Scheme", "myscheme",
		"X-Forwarded-For", "1.2.3.4",
		"X-Forwarded-Host", "myhost",
	}

	t.Run("false", func(t *testing.T) {
		n := startNginx(t, headersManifests(port, host, "", nil))
		httpPort := strconv.Itoa(n.httpPort)
		for _, tc := range []struct {
			name    string
			headers []string
			want    map[string]string
		}{
			{"no forwarded headers", nil, map[string]string{
				"Host": host, "X-Forwarded-Host": host, "X-Forwarded-Port": httpPort,
				"X-Forwarded-Proto": "http", "X-Forwarded-Scheme": "http", "X-Scheme": "http",
				"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1",
				"X-Original-Forwarded-For": "", "X-Original-Forwarded-Host": "",
			}},
			{"ingress-nginx e2e: spoofed headers ignored", spoof, map[string]string{
				"Host": host, "X-Forwarded-Host": host, "X-Forwarded-Port": httpPort,
				"X-Forwarded-Proto": "http", "X-Forwarded-Scheme": "http", "X-Scheme": "http",
				"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1",
				"X-Original-Forwarded-For": "1.2.3.4", "X-Original-Forwarded-Host": "myhost",
			}},
			{"a list in X-Forwarded-For is not kept", []string{"X-Forwarded-For", "1.2.3.4, 127.0.0.1"}, map[string]string{
				"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1",
				"X-Original-Forwarded-For": "1.2.3.4, 127.0.0.1",
			}},
			{"the client's Host header as sent, port included", []string{"Host", host + ":" + httpPort}, map[string]string{
				"Host": host + ":" + httpPort, "X-Forwarded-Host": host + ":" + httpPort,
			}},
			{"a Proxy header never reaches the backend (httpoxy)", []string{"Proxy", "http://evil:3128"}, map[string]string{
				"Proxy": "",
			}},
		} {
			h := tc.headers
			if len(h) == 2 && h[0] == "Host" {
				checkGot(t, tc.name, n.send(t, false, h[1], "/"), tc.want)
				continue
			}
			checkGot(t, tc.name, n.send(t, false, host, "/", h...), tc.want)
		}
	})

	t.Run("true", func(t *testing.T) {
		n := startNginx(t, headersManifests(port, host, "", map[string]string{"use-forwarded-headers": "true"}))
		httpPort := strconv.Itoa(n.httpPort)
		for _, tc := range []struct {
			name    string
			headers []string
			want    map[string]string
		}{
			{"ingress-nginx e2e: single values", spoof, map[string]string{
				"Host": "myhost", "X-Forwarded-Host": "myhost", "X-Forwarded-Port": "1234",
				"X-Forwarded-Proto": "myproto", "X-Forwarded-Scheme": "myproto", "X-Scheme": "myproto",
				"X-Forwarded-For": "1.2.3.4", "X-Real-Ip": "1.2.3.4",
				"X-Original-Forwarded-For": "1.2.3.4", "X-Original-Forwarded-Host": "myhost",
			}},
			{"ingress-nginx e2e: the first X-Forwarded-Host of a list", []string{
				"X-Forwarded-Host", "myhost.com, another.host,example.net", "X-Forwarded-For", "1.2.3.4",
			}, map[string]string{
				"Host": "myhost.com", "X-Forwarded-Host": "myhost.com",
				"X-Original-Forwarded-Host": "myhost.com, another.host,example.net",
			}},
			{"X-Forwarded-For is not doubled", []string{"X-Forwarded-For", "1.2.3.4"}, map[string]string{
				"X-Forwarded-For": "1.2.3.4", "X-Original-Forwarded-For": "1.2.3.4",
			}},
			{"without forwarded headers: what nginx saw", nil, map[string]string{
				"Host": host, "X-Forwarded-Host": host, "X-Forwarded-Port": httpPort,
				"X-Forwarded-Proto": "http", "X-Forwarded-For": "127.0.0.1",
			}},
		} {
			checkGot(t, tc.name, n.send(t, false, host, "/", tc.headers...), tc.want)
		}
	})
}

// TestHTTPSRedirectHost: the redirect of a TLS host goes to the host the
// backend would get, without its port: the Host header, or with
// use-forwarded-headers the client's X-Forwarded-Host; an X-Forwarded-Proto
// of https is trusted only then. The final "/" of the URI is dropped, as
// ingress-nginx's lua_ingress.lua does without preserve-trailing-slash.
func TestHTTPSRedirectHost(t *testing.T) {
	const host = "tls.example.com"
	port := headerEcho(t)
	for _, tc := range []struct {
		name      string
		forwarded bool
		headers   []string
		status    int
		location  string
	}{
		{"false: the Host header", false, nil, 308, "https://tls.example.com/a"},
		{"false: X-Forwarded-Host ignored", false, []string{"X-Forwarded-Host", "myhost:8443"}, 308, "https://tls.example.com/a"},
		{"false: X-Forwarded-Proto ignored", false, []string{"X-Forwarded-Proto", "https"}, 308, "https://tls.example.com/a"},
		{"true: the X-Forwarded-Host, without its port", true, []string{"X-Forwarded-Host", "myhost:8443, other"}, 308, "https://myhost/a"},
		{"true: no X-Forwarded-Host", true, nil, 308, "https://tls.example.com/a"},
		{"true: X-Forwarded-Proto https is not redirected", true, []string{"X-Forwarded-Proto", "https"}, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string]string{"use-forwarded-headers": strconv.FormatBool(tc.forwarded)}
			n := startNginx(t, headersManifests(port, host, "missing", data))
			a := n.send(t, false, host+":"+strconv.Itoa(n.httpPort), "/a/", tc.headers...)
			if a.status != tc.status || a.location != tc.location {
				t.Errorf("answered %d Location %q, want %d %q", a.status, a.location, tc.status, tc.location)
			}
		})
	}
}

// TestTLSMissingSecret: a spec.tls entry whose Secret is not there still
// makes its host a TLS host, as in ingress-nginx: plain HTTP is
// redirected with 308, HTTPS serves the default certificate; the missing
// Secret is a Problem.
func TestTLSMissingSecret(t *testing.T) {
	const host = "nosecret.example.com"
	n := startNginx(t, headersManifests(headerEcho(t), host, "absent", nil))
	if a := n.send(t, false, host, "/path?q=1"); a.status != http.StatusPermanentRedirect || a.location != "https://"+host+"/path?q=1" {
		t.Errorf("HTTP answered %d Location %q, want 308 https://%s/path?q=1", a.status, a.location, host)
	}
	if cn := n.servedCertificate(t, host).Subject.CommonName; cn != nginx.DefaultCertificateCN {
		t.Errorf("HTTPS served %q, want the default certificate", cn)
	}
	if a := n.send(t, true, host, "/path"); a.status != http.StatusOK {
		t.Errorf("HTTPS answered %d, want 200", a.status)
	}
	var problems []string
	for _, p := range n.problems {
		problems = append(problems, p.String())
	}
	if !strings.Contains(strings.Join(problems, "\n"), `secret "e2e/absent" not found`) {
		t.Errorf("no Problem for the missing Secret: %q", problems)
	}
}

// TestRequestID: the client's X-Request-ID reaches the backend as it came;
// without one the backend gets a generated one (32 hex digits), as
// ingress-nginx's $req_id.
func TestRequestID(t *testing.T) {
	const host = "rid.example.com"
	n := startNginx(t, headersManifests(headerEcho(t), host, "", nil))
	for _, tc := range []struct {
		name, sent string
		want       *regexp.Regexp
	}{
		{"passed through", "client-id-123", regexp.MustCompile(`^client-id-123$`)},
		{"generated when absent", "", regexp.MustCompile(`^[0-9a-f]{32}$`)},
	} {
		var h []string
		if tc.sent != "" {
			h = []string{"X-Request-Id", tc.sent}
		}
		a := n.send(t, false, host, "/", h...)
		if got := a.got["X-Request-Id"]; a.status != 200 || !tc.want.MatchString(got) {
			t.Errorf("%s: %d, backend got X-Request-ID %q, want %s", tc.name, a.status, got, tc.want)
		}
	}
}

// TestHSTSHeader: with hsts on (the default) an HTTPS answer carries
// exactly one Strict-Transport-Security, ours, even when the backend sends
// its own; over plain HTTP the backend's passes as it came (ingress-nginx
// sets its header only on HTTPS). With hsts "false" the backend's passes.
func TestHSTSHeader(t *testing.T) {
	const host = "hsts.example.com"
	port := headerEcho(t)
	for _, tc := range []struct {
		name      string
		data      map[string]string
		https     []string
		plainHTTP []string
	}{
		{"hsts on", nil, []string{"max-age=31536000; includeSubDomains"}, []string{backendHSTS}},
		{"hsts on, preload, no subdomains", map[string]string{"hsts-preload": "true", "hsts-include-subdomains": "false", "hsts-max-age": "60"},
			[]string{"max-age=60; preload"}, []string{backendHSTS}},
		{"hsts off", map[string]string{"hsts": "false"}, []string{backendHSTS}, []string{backendHSTS}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := startNginx(t, headersManifests(port, host, "", tc.data))
			if a := n.send(t, true, host, "/"); a.status != 200 || strings.Join(a.hsts, "\n") != strings.Join(tc.https, "\n") {
				t.Errorf("HTTPS: %d Strict-Transport-Security %q, want %q", a.status, a.hsts, tc.https)
			}
			if a := n.send(t, false, host, "/"); a.status != 200 || strings.Join(a.hsts, "\n") != strings.Join(tc.plainHTTP, "\n") {
				t.Errorf("HTTP: %d Strict-Transport-Security %q, want %q", a.status, a.hsts, tc.plainHTTP)
			}
		})
	}
}

// TestOriginalURIHeader: X-Original-URI reaches a backend only with the
// ConfigMap's proxy-add-original-uri-header "true" (ingress-nginx's default
// is "false" since v1.0), and then always nginx's $request_uri, never the
// client's; without the key nginx leaves the client's own header alone,
// as ingress-nginx does.
func TestOriginalURIHeader(t *testing.T) {
	port := headerEcho(t)
	const host = "uri.example.com"
	for _, tc := range []struct {
		key           string
		plain, forged string // what the backend gets without, with the client's header
	}{
		{"", "", "/forged"},
		{"false", "", "/forged"},
		{"true", "/a/b?c=d", "/a/b?c=d"},
	} {
		data := map[string]string{}
		if tc.key != "" {
			data["proxy-add-original-uri-header"] = tc.key
		}
		n := startNginx(t, headersManifests(port, host, "", data))
		n.requireLuaRouted(t, host)
		if a := n.send(t, false, host, "/a/b?c=d"); a.status != 200 || a.got["X-Original-Uri"] != tc.plain {
			t.Errorf("key %q: %d, X-Original-URI %q, want 200 %q", tc.key, a.status, a.got["X-Original-Uri"], tc.plain)
		}
		if a := n.send(t, false, host, "/a/b?c=d", "X-Original-URI", "/forged"); a.status != 200 || a.got["X-Original-Uri"] != tc.forged {
			t.Errorf("key %q, the client sending one: %d, X-Original-URI %q, want 200 %q", tc.key, a.status, a.got["X-Original-Uri"], tc.forged)
		}
	}
}
