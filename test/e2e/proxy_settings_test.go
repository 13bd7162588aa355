package e2e

import (
	"bufio"
	"fmt"
	"io"
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

// The proxy settings of issue 12 (pkg/annotations/proxy*.go) through a
// real nginx, against httptest backends: what a client and a backend see.

// handlerBackend starts a loopback backend with h and returns it as a
// backend of the harness.
func handlerBackend(t *testing.T, name string, h http.HandlerFunc) *backend {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &backend{name: name, port: srv.Listener.Addr().(*net.TCPAddr).Port, srv: srv}
}

// rawGet sends GET path with Host host to nginx's HTTP port and returns
// the answer without following redirects.
func (n *liveNginx) rawGet(t *testing.T, host, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %s): %v", path, host, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestProxyNextUpstream: a Service whose first endpoint answers 502 and
// whose second is down behind one that works. With proxy-next-upstream
// "error timeout http_502" every request reaches the working endpoint
// (nginx retries the next one); with proxy-next-upstream-tries "1" the
// requests that start on a bad endpoint fail (502), as in ingress-nginx.
func TestProxyNextUpstream(t *testing.T) {
	bad := handlerBackend(t, "bad", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "bad")
	})
	good := startBackend(t, "good", 0)
	down := startBackend(t, "down", 0)
	down.stop() // its port refuses: an "error" for nginx
	n := startNginx(t, serviceOf("flaky", bad, down, good)+
		ingressOf("retry", "retry.test", "flaky", "2026-01-01T00:00:00Z", map[string]string{
			"proxy-next-upstream": "error timeout http_502"})+
		ingressOf("once", "once.test", "flaky", "2026-01-01T00:00:01Z", map[string]string{
			"proxy-next-upstream": "error timeout http_502", "proxy-next-upstream-tries": "1"})+
		ingressOf("redirect-default", "default.test", "flaky", "2026-01-01T00:00:02Z", nil))
	n.requireLuaRouted(t, "retry.test", "once.test", "default.test")
	const requests = 12
	count := func(host string) (ok, failed int) {
		for range requests {
			status, body := n.get(t, host, "/")
			switch {
			case status == http.StatusOK && strings.HasPrefix(body, "good "):
				ok++
			case status == http.StatusBadGateway:
				failed++
			default:
				t.Fatalf("%s: status %d %q", host, status, body)
			}
		}
		return ok, failed
	}
	if ok, failed := count("retry.test"); ok != requests {
		t.Errorf("retry.test (http_502 retried): %d of %d requests failed, want none", failed, requests)
	}
	if ok, failed := count("once.test"); failed == 0 || ok == 0 {
		t.Errorf("once.test (tries 1): %d ok, %d failed; want both (no retry after a bad first endpoint)", ok, failed)
	}
	// The default ("error timeout"): the down endpoint is retried, the
	// 502 of the answering one is not.
	if ok, failed := count("default.test"); failed == 0 || ok == 0 {
		t.Errorf("default.test: %d ok, %d failed; want the 502s to reach the client", ok, failed)
	}
}

// TestProxyCookieAndRedirect: proxy-cookie-path and proxy-cookie-domain
// rewrite the backend's Set-Cookie, proxy-redirect-from/-to its Location
// (and "default", "off", and ingress-nginx's default "off", in both
// modes); use-port-in-redirects names nginx's port in the redirects it
// makes absolute.
func TestProxyCookieAndRedirect(t *testing.T) {
	be := handlerBackend(t, "app", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "1", Path: "/one/sub", Domain: "backend.internal"})
		switch r.URL.Path {
		case "/balancer":
			// the URL of nginx's proxy_pass: what "default" rewrites
			w.Header().Set("Location", "http://upstream_balancer/login")
		case "/relative":
			w.Header().Set("Location", "/login")
		default:
			w.Header().Set("Location", "http://backend:8080/login?next=%2F")
		}
		w.WriteHeader(http.StatusFound)
	})
	n := startNginx(t, serviceOf("app", be)+
		ingressOf("rewrites", "app.test", "app", "2026-01-01T00:00:00Z", map[string]string{
			"proxy-cookie-path":   "/one/ /app/",
			"proxy-cookie-domain": "backend.internal app.test",
			"proxy-redirect-from": "http://backend:8080/",
			"proxy-redirect-to":   "https://app.test/app/",
		})+
		ingressOf("plain", "plain.test", "app", "2026-01-01T00:00:01Z", nil)+
		ingressOf("redirect-default", "default.test", "app", "2026-01-01T00:00:02Z", map[string]string{"proxy-redirect-from": "default"})+
		ingressOf("redirect-off", "off.test", "app", "2026-01-01T00:00:03Z", map[string]string{"proxy-redirect-from": "off"})+
		ingressOf("cookies", "cookies.test", "app", "2026-01-01T00:00:04Z", map[string]string{"proxy-cookie-path": "/one/ /app/"})+
		ingressOf("app-root", "root.test", "app", "2026-01-01T00:00:05Z", map[string]string{"app-root": "/start"})+
		ingressOf("port", "port.test", "app", "2026-01-01T00:00:06Z", map[string]string{"use-port-in-redirects": "true", "proxy-redirect-from": "default"})+
		nsIngressOf("e2e", "port-dir", "2026-01-01T00:00:07Z", "port.test", "ImplementationSpecific", "/dir/", "app", "use-port-in-redirects", "true")+
		nsIngressOf("e2e", "dir", "2026-01-01T00:00:08Z", "plain.test", "ImplementationSpecific", "/dir/", "app"))
	n.requireLuaRouted(t, "app.test", "plain.test", "default.test", "off.test", "cookies.test", "root.test", "port.test")
	// ingress-nginx writes "proxy_redirect off" unless proxy-redirect-from
	// says otherwise: a Location naming nginx's upstream is sent as it is,
	// rewritten by "default" only. nginx makes a backend's Location
	// absolute only when a proxy_redirect rewrote it to a path
	// (absolute_redirect), but where app-root turns that off; a relative
	// Location it did not rewrite is sent as it is. Absolute without the
	// port nginx listens on, as ingress-nginx's port_in_redirect off, but
	// with use-port-in-redirects (in Lua routing a shape location).
	const upstream = "http://upstream_balancer/login"
	absolute := func(host string) string { return "http://" + host + "/login" }
	withPort := "http://port.test:" + strconv.Itoa(n.httpPort)
	for _, tc := range []struct{ host, path, want string }{
		{"plain.test", "/balancer", upstream},
		{"default.test", "/balancer", absolute("default.test")},
		{"cookies.test", "/balancer", upstream}, // in Lua routing a shape location: the same
		{"off.test", "/balancer", upstream},
		{"app.test", "/balancer", upstream}, // its own from/to only
		{"root.test", "/balancer", upstream},
		{"port.test", "/balancer", withPort + "/login"},
		{"plain.test", "/relative", "/login"},
		{"default.test", "/relative", "/login"},
		{"port.test", "/relative", "/login"},
		{"root.test", "/relative", "/login"},
		{"root.test", "/", "/start"}, // app-root's own redirect
		// nginx's own 301 to a directory (the router's, in Lua routing)
		{"plain.test", "/dir?a=1", "http://plain.test/dir/?a=1"},
		{"port.test", "/dir?a=1", withPort + "/dir/?a=1"},
	} {
		if got := n.rawGet(t, tc.host, tc.path).Header.Get("Location"); got != tc.want {
			t.Errorf("%s%s: Location %q, want %q", tc.host, tc.path, got, tc.want)
		}
	}
	resp := n.rawGet(t, "app.test", "/")
	if got, want := resp.Header.Get("Set-Cookie"), "sid=1; Path=/app/sub; Domain=app.test"; got != want {
		t.Errorf("Set-Cookie %q, want %q", got, want)
	}
	if got, want := resp.Header.Get("Location"), "https://app.test/app/login?next=%2F"; got != want {
		t.Errorf("Location %q, want %q", got, want)
	}
	resp = n.rawGet(t, "plain.test", "/")
	if got, want := resp.Header.Get("Set-Cookie"), "sid=1; Path=/one/sub; Domain=backend.internal"; got != want {
		t.Errorf("without the annotations: Set-Cookie %q, want it unchanged %q", got, want)
	}
	if got, want := resp.Header.Get("Location"), "http://backend:8080/login?next=%2F"; got != want {
		t.Errorf("without the annotations: Location %q, want it unchanged %q", got, want)
	}
}

// TestLimitRPM: limit-rpm 1 with a burst of 1 (limit-burst-multiplier 1)
// lets two requests of a quick series through and refuses the rest with
// the ConfigMap's limit-req-status-code (429); limit-allowlist exempts the
// client; another Ingress without a limit answers every request.
func TestLimitRPM(t *testing.T) {
	be := startBackend(t, "web", 0)
	n := startNginx(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\n"+
		"data: {limit-req-status-code: \"429\"}\n---\n"+serviceOf("web", be)+
		ingressOf("per-minute", "rpm.test", "web", "2026-01-01T00:00:00Z", map[string]string{
			"limit-rpm": "1", "limit-burst-multiplier": "1"})+
		ingressOf("exempt", "exempt.test", "web", "2026-01-01T00:00:01Z", map[string]string{
			"limit-rpm": "1", "limit-burst-multiplier": "1", "limit-allowlist": "127.0.0.1"})+
		ingressOf("free", "free.test", "web", "2026-01-01T00:00:02Z", nil))
	const requests = 6
	for _, tc := range []struct {
		host    string
		limited bool
	}{{"rpm.test", true}, {"exempt.test", false}, {"free.test", false}} {
		var got []int
		for range requests {
			status, _ := n.get(t, tc.host, "/")
			got = append(got, status)
		}
		if !tc.limited {
			for i, s := range got {
				if s != http.StatusOK {
					t.Errorf("%s: request %d: status %d, want 200 (%v)", tc.host, i, s, got)
				}
			}
			continue
		}
		// The first request and the one of the burst pass; a minute has
		// not passed for the others.
		for i, s := range got {
			want := http.StatusTooManyRequests
			if i < 2 {
				want = http.StatusOK
			}
			if s != want {
				t.Errorf("%s: request %d: status %d, want %d (%v)", tc.host, i, s, want, got)
			}
		}
	}
}

// TestConnectionProxyHeaderAndHTTPVersion: connection-proxy-header is the
// Connection header the backend gets (instead of none for a plain
// request); proxy-http-version 1.0 is the protocol it sees.
func TestConnectionProxyHeaderAndHTTPVersion(t *testing.T) {
	be := handlerBackend(t, "echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s|%s", r.Proto, strings.Join(r.Header.Values("Connection"), ","))
	})
	n := startNginx(t, serviceOf("echo", be)+
		ingressOf("keepalive", "keep.test", "echo", "2026-01-01T00:00:00Z", map[string]string{"connection-proxy-header": "keep-alive"})+
		ingressOf("http10", "old.test", "echo", "2026-01-01T00:00:01Z", map[string]string{"proxy-http-version": "1.0"})+
		ingressOf("plain", "plain.test", "echo", "2026-01-01T00:00:02Z", nil))
	n.requireLuaRouted(t, "keep.test", "old.test", "plain.test")
	for host, want := range map[string]string{
		"keep.test":  "HTTP/1.1|keep-alive",
		"old.test":   "HTTP/1.0|",
		"plain.test": "HTTP/1.1|",
	} {
		status, body := n.get(t, host, "/")
		if status != http.StatusOK || body != want {
			t.Errorf("%s: %d %q, want the backend to see %q (protocol|Connection)", host, status, body, want)
		}
	}
}

// TestPreserveTrailingSlash: the HTTPS redirect drops the URI's trailing
// "/" by default (ingress-nginx: GET / → https://host, /a/ → https://host/a)
// and keeps it with preserve-trailing-slash "true".
func TestPreserveTrailingSlash(t *testing.T) {
	be := startBackend(t, "web", 0)
	n := startNginx(t, serviceOf("web", be)+
		ingressOf("drop", "drop.test", "web", "2026-01-01T00:00:00Z", map[string]string{"force-ssl-redirect": "true"})+
		ingressOf("keep", "keep.test", "web", "2026-01-01T00:00:01Z", map[string]string{"force-ssl-redirect": "true", "preserve-trailing-slash": "true"}))
	for _, tc := range []struct{ host, path, want string }{
		{"drop.test", "/", "https://drop.test"},
		{"drop.test", "/a/", "https://drop.test/a"},
		{"drop.test", "/a/?x=1", "https://drop.test/a/?x=1"},
		{"drop.test", "/a", "https://drop.test/a"},
		{"keep.test", "/", "https://keep.test/"},
		{"keep.test", "/a/", "https://keep.test/a/"},
	} {
		resp := n.rawGet(t, tc.host, tc.path)
		if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != tc.want {
			t.Errorf("%s%s: %d Location %q, want 308 %q", tc.host, tc.path, resp.StatusCode, resp.Header.Get("Location"), tc.want)
		}
	}
}

// TestAccessAndRewriteLog: enable-access-log "false" writes no access log
// line for the location's requests (the other location's are logged);
// enable-rewrite-log "true" logs the location's rewrite to the error log
// (notice level).
func TestAccessAndRewriteLog(t *testing.T) {
	be := startBackend(t, "web", 0)
	n := startNginx(t, serviceOf("web", be)+
		nsIngressOf("e2e", "quiet", "2026-01-01T00:00:00Z", "logs.test", "Prefix", "/quiet-path", "web", "enable-access-log", "false")+
		nsIngressOf("e2e", "logged", "2026-01-01T00:00:01Z", "logs.test", "Prefix", "/logged-path", "web")+
		nsIngressOf("e2e", "rewritten", "2026-01-01T00:00:02Z", "rewrite.test", "Prefix", "/old-path", "web",
			"enable-rewrite-log", "true", "rewrite-target", "/new-path")+
		// a configuration-snippet's rewrite (the router's in Lua routing)
		nsIngressOf("e2e", "snippet", "2026-01-01T00:00:03Z", "rewrite.test", "Prefix", "/snip-old", "web",
			"enable-rewrite-log", "true", "configuration-snippet", "rewrite ^/snip-old$ /snip-new break;"))
	n.requireLuaRouted(t, "logs.test", "rewrite.test")
	for _, p := range []string{"/quiet-path", "/logged-path", "/old-path", "/snip-old"} {
		host := "logs.test"
		if p == "/old-path" || p == "/snip-old" {
			host = "rewrite.test"
		}
		if status, body := n.get(t, host, p); status != http.StatusOK {
			t.Fatalf("%s: %d %q", p, status, body)
		}
	}
	logs := filepath.Join(n.inst.Prefix(), "logs")
	// nginx writes an access log line when the request ends, before the
	// client has the answer's end in most cases but not always: wait for
	// the logged request's line, then the quiet one's would be there too.
	var access string
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(logs, "access.log"))
		if err != nil {
			t.Fatal(err)
		}
		access = string(data)
		if strings.Contains(access, "/logged-path") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(access, "GET /logged-path") {
		t.Errorf("access.log has no line for /logged-path:\n%s", access)
	}
	if strings.Contains(access, "/quiet-path") {
		t.Errorf("access.log logs /quiet-path (enable-access-log false):\n%s", access)
	}
	errs, err := os.ReadFile(filepath.Join(logs, "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(errs), `rewritten data: "/new-path"`) {
		t.Errorf("error.log has no rewrite log line for /old-path (enable-rewrite-log true)")
	}
	if !strings.Contains(string(errs), `"^/snip-old$" matches "/snip-old"`) || !strings.Contains(string(errs), `rewritten data: "/snip-new", args: ""`) {
		t.Errorf("error.log has no rewrite log lines for the snippet's rewrite of /snip-old (enable-rewrite-log true)")
	}
}

// TestClientHeaderKeys: large-client-header-buffers bounds a request
// header line (nginx answers 400 above one buffer), and
// enable-underscores-in-headers lets a header with an underscore reach the
// backend (nginx drops it by default, as an invalid name).
func TestClientHeaderKeys(t *testing.T) {
	be := handlerBackend(t, "echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "x_custom=%q", r.Header.Get("X_Custom"))
	})
	long := strings.Repeat("v", 10*1024) // above one 8k buffer, below 16k
	for _, tc := range []struct {
		data                string
		longStatus          int
		underscoreForwarded bool
	}{
		{"{}", http.StatusBadRequest, false},
		{`{large-client-header-buffers: "4 16k", enable-underscores-in-headers: "true"}`, http.StatusOK, true},
	} {
		n := startNginx(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\n"+
			"data: "+tc.data+"\n---\n"+serviceOf("echo", be)+ingressOf("echo", "headers.test", "echo", "2026-01-01T00:00:00Z", nil))
		if a := n.sendRaw(t, "headers.test", "X-Long", long); a.status != tc.longStatus {
			t.Errorf("ConfigMap %s: a 10k header: status %d, want %d", tc.data, a.status, tc.longStatus)
		}
		a := n.sendRaw(t, "headers.test", "X_Custom", "1")
		if got := strings.Contains(a.body, `x_custom="1"`); a.status != http.StatusOK || got != tc.underscoreForwarded {
			t.Errorf("ConfigMap %s: X_Custom: %d %q, want forwarded %v", tc.data, a.status, a.body, tc.underscoreForwarded)
		}
	}
}

// rawAnswer is a status and body.
type rawAnswer struct {
	status int
	body   string
}

// sendRaw sends GET / with Host host and one header written as given (Go's
// client would canonicalize an underscore name the same; it keeps it).
func (n *liveNginx) sendRaw(t *testing.T, host, name, value string) rawAnswer {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(n.httpPort), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n%s: %s\r\nConnection: close\r\n\r\n", host, name, value)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return rawAnswer{status: resp.StatusCode, body: string(body)}
}
