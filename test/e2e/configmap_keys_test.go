package e2e

// ConfigMap keys of the global settings through a real nginx and real
// traffic: block-* answer 403, enable-real-ip takes the client address
// from forwarded-for-header only from proxy-real-ip-cidr, hide-headers,
// log-format-upstream and skip-access-log-urls write the expected access
// lines, use-proxy-protocol reads a PROXY v1 header.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// poweredEcho is headerEcho with an X-Powered-By header of the backend's.
func poweredEcho(t *testing.T) int {
	t.Helper()
	return echoBackend(t, "X-Powered-By", "PHP/5.1", "X-Kept", "yes")
}

func TestBlockConfigKeys(t *testing.T) {
	const host = "block.example.com"
	port := poweredEcho(t)
	n := startNginx(t, headersManifests(port, host, "", map[string]string{
		"enable-real-ip":     "true",
		"proxy-real-ip-cidr": "127.0.0.1",
		"block-cidrs":        "192.0.2.0/24",
		"block-user-agents":  "~*gptbot,ExactBot",
		"block-referers":     `~*spam\.example`,
		"hide-headers":       "X-Powered-By",
	}))
	for _, tc := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"a plain request", nil, 200},
		{"a regex User-Agent, any case", []string{"User-Agent", "Mozilla/5.0 (compatible; GPTBot/1.0)"}, 403},
		{"an exact User-Agent", []string{"User-Agent", "ExactBot"}, 403},
		{"not the exact User-Agent", []string{"User-Agent", "ExactBot/2"}, 200},
		{"a regex Referer", []string{"Referer", "http://www.SPAM.example/x"}, 403},
		{"another Referer", []string{"Referer", "http://fine.example/"}, 200},
		{"a blocked client address (real IP from a trusted peer)", []string{"X-Forwarded-For", "192.0.2.5"}, 403},
		{"another client address", []string{"X-Forwarded-For", "198.51.100.1"}, 200},
	} {
		a := n.send(t, false, host, "/", tc.headers...)
		if a.status != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, a.status, tc.want)
		}
	}
	// hide-headers: the backend's X-Powered-By does not reach the client.
	resp := plainGet(t, n.httpPort, host, "/", nil)
	if resp.Header.Get("X-Powered-By") != "" || resp.Header.Get("X-Kept") != "yes" {
		t.Errorf("hide-headers: X-Powered-By %q (want none), X-Kept %q (want yes)", resp.Header.Get("X-Powered-By"), resp.Header.Get("X-Kept"))
	}
	// the blocked addresses answer 403 on a host no Ingress names too
	if a := n.send(t, false, "other.example.com", "/", "X-Forwarded-For", "192.0.2.9"); a.status != 403 {
		t.Errorf("default server: status %d, want 403", a.status)
	}
}

// plainGet sends GET path with Host host and the headers, and returns the
// answer (body read and closed).
func plainGet(t *testing.T, port int, host, path string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Timeout: 5 * time.Second, Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestRealIPTrustedPeers: enable-real-ip takes the client address from
// forwarded-for-header, and only when the peer is in proxy-real-ip-cidr.
func TestRealIPTrustedPeers(t *testing.T) {
	const host = "realip.example.com"
	port := headerEcho(t)
	for _, tc := range []struct {
		name, cidr, want string
	}{
		{"trusted peer", "127.0.0.0/8", "203.0.113.9"},
		{"untrusted peer", "10.0.0.0/8", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := startNginx(t, headersManifests(port, host, "", map[string]string{
				"enable-real-ip":       "true",
				"forwarded-for-header": "CF-Connecting-IP",
				"proxy-real-ip-cidr":   tc.cidr,
			}))
			a := n.send(t, false, host, "/", "CF-Connecting-IP", "203.0.113.9", "X-Forwarded-For", "1.1.1.1")
			checkGot(t, tc.name, a, map[string]string{"X-Forwarded-For": tc.want, "X-Real-Ip": tc.want})
		})
	}
}

// waitForLog waits until the file holds a line containing want (nginx
// writes the access line after the answer) and returns the file.
func waitForLog(t *testing.T, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) || time.Now().After(deadline) {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLogFormatUpstream: the access log has the ConfigMap's format, with
// ingress-nginx's per-location variables and nginx's escaping of a quote,
// and skip-access-log-urls leaves a URI out. $server_name is the host's
// server (in Lua routing the host entry the router chose, not its own
// server's "_").
func TestLogFormatUpstream(t *testing.T) {
	const host = "log.example.com"
	port := headerEcho(t)
	n := startNginx(t, headersManifests(port, host, "", map[string]string{
		"log-format-upstream":  `kit ${server_name} $namespace/$ingress_name $service_name:$service_port $status "$http_user_agent" $request_uri`,
		"skip-access-log-urls": "/healthz",
	}))
	if a := n.send(t, false, host, "/healthz"); a.status != 200 {
		t.Fatalf("/healthz: %d", a.status)
	}
	if a := n.send(t, false, host, "/hello", "User-Agent", `a"b`); a.status != 200 {
		t.Fatalf("/hello: %d", a.status)
	}
	want := `kit log.example.com e2e/echo echo:80 200 "a\x22b" /hello`
	log := waitForLog(t, filepath.Join(n.inst.Prefix(), "logs", "access.log"), want)
	if !strings.Contains(log, want+"\n") {
		t.Errorf("access log lacks %q:\n%s", want, log)
	}

	if strings.Contains(log, "/healthz") {
		t.Errorf("skip-access-log-urls: /healthz logged:\n%s", log)
	}
}

// TestProxyProtocolConfigKey: with use-proxy-protocol the HTTP port reads
// a PROXY v1 header, whose address is the client's (from a trusted peer);
// a request without one is refused.
func TestProxyProtocolConfigKey(t *testing.T) {
	const host = "pp.example.com"
	port := headerEcho(t)
	n := startNginx(t, headersManifests(port, host, "", map[string]string{
		"use-proxy-protocol": "true",
		"proxy-real-ip-cidr": "127.0.0.1",
	}))
	status, body := rawRequest(t, n.httpPort, "PROXY TCP4 203.0.113.7 127.0.0.1 5555 80\r\n"+
		"GET / HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	if status != 200 {
		t.Fatalf("with a PROXY header: status %d", status)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("backend answer %q: %v", body, err)
	}
	if got["X-Forwarded-For"] != "203.0.113.7" || got["X-Real-Ip"] != "203.0.113.7" {
		t.Errorf("backend got X-Forwarded-For %q, X-Real-Ip %q; want 203.0.113.7", got["X-Forwarded-For"], got["X-Real-Ip"])
	}
	if status, _ := rawRequest(t, n.httpPort, "GET / HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); status == 200 {
		t.Errorf("without a PROXY header: status 200, want a refusal")
	}
}

// rawRequest writes req on a new connection to the port and returns the
// answer's status (0 when the connection closed without one) and body.
func rawRequest(t *testing.T, port int, req string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprint(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}

// TestBrotliConfigKey: with enable-brotli a client that accepts br gets a
// brotli answer (Debian's brotli filter module, loaded for the key), and
// one that does not gets it plain.
func TestBrotliConfigKey(t *testing.T) {
	if _, err := os.Stat("/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so"); err != nil {
		t.Skip("libnginx-mod-http-brotli-filter is not installed (make deps installs it)")
	}
	const host = "br.example.com"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = fmt.Fprint(w, strings.Repeat("compress me ", 200))
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	n := startNginx(t, headersManifests(port, host, "", map[string]string{"enable-brotli": "true", "brotli-types": "text/plain"}))
	for _, tc := range []struct{ accept, want string }{{"br", "br"}, {"gzip", ""}, {"", ""}} {
		resp := plainGet(t, n.httpPort, host, "/", map[string]string{"Accept-Encoding": tc.accept})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != tc.want {
			t.Errorf("Accept-Encoding %q: status %d, Content-Encoding %q, want %q", tc.accept, resp.StatusCode, resp.Header.Get("Content-Encoding"), tc.want)
		}
	}
}

// TestForceSSLRedirectConfigKey: force-ssl-redirect in the ConfigMap
// redirects plain HTTP of a host without TLS, with http-redirect-code,
// except the locations under no-tls-redirect-locations (cert-manager's
// ACME HTTP-01 solver Ingress), as ingress-nginx checks the location's
// path.
func TestForceSSLRedirectConfigKey(t *testing.T) {
	const host = "force.example.com"
	port := headerEcho(t)
	// cert-manager's solver: an Ingress of its own for the token's path
	solver := `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: solver, namespace: e2e, creationTimestamp: "2026-01-02T00:00:00Z"}
spec:
  ingressClassName: nginx
  rules:
  - host: ` + host + `
    http:
      paths:
      - {path: /.well-known/acme-challenge/token, pathType: Exact, backend: {service: {name: echo, port: {number: 80}}}}
`
	n := startNginx(t, headersManifests(port, host, "", map[string]string{
		"force-ssl-redirect": "true",
		"http-redirect-code": "301",
	})+solver)
	if a := n.send(t, false, host, "/app"); a.status != 301 || a.location != "https://"+host+"/app" {
		t.Errorf("GET /app: %d %q, want 301 https://%s/app", a.status, a.location, host)
	}
	if a := n.send(t, false, host, "/.well-known/acme-challenge/token"); a.status != 200 {
		t.Errorf("ACME challenge: %d %q, want 200 from the backend", a.status, a.location)
	}
}
