package e2e

// Translated snippets (issue 13) through a real nginx: configuration-snippet
// and server-snippet annotations as the corpus uses them (security
// headers, hidden backend headers, Linkerd's l5d-dst-override, nested
// deny and webfinger locations, rewrite, sub_filter), answered as
// ingress-nginx answered the raw text.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	snippetHeadersText = `# security headers
add_header X-Frame-Options "DENY" always;
more_set_headers "X-Snippet: host=$host";
proxy_hide_header X-Powered-By;
more_clear_headers X-Backend-Secret;
proxy_set_header X-Tenant "t-$namespace";
proxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;
`
	// snippetRewriteText rewrites the path: in the Lua pass it keeps its
	// host classic (model.Snippet.ShapeBlocker)
	snippetRewriteText = `rewrite ^/api/(.*)$ /v2/$1 break;
`
	snippetServerText = `location ~ ^/(ping|ready) { deny all; return 404; }
location = /.well-known/webfinger {
    return 301 https://x.example/.well-known/webfinger?$args;
}
rewrite ^/old/(.*)$ /new/$1 permanent;
`
	snippetSubFilterText = `sub_filter 'http://old.example/' 'https://new.example/';
sub_filter_once off;
proxy_set_header Accept-Encoding "";
`
)

// htmlBackend answers every request with an HTML page that names
// http://old.example/ twice.
func htmlBackend(t *testing.T) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head></head><body><a href="http://old.example/a">a</a> <a href="http://old.example/b">b</a></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// startSnippetNginx starts nginx on the manifests, whose Ingresses carry
// snippet annotations that render translates; any Problem fails the test.
func startSnippetNginx(t *testing.T, manifests string) *liveNginx {
	t.Helper()
	n := startNginx(t, manifests)
	for _, p := range n.problems {
		t.Errorf("problem: %v", p)
	}
	return n
}

// TestSnippetHeaders: a configuration-snippet adds response headers
// (add_header, more_set_headers with a variable), hides and clears the
// backend's (proxy_hide_header, more_clear_headers), sends request headers
// with ingress-nginx's variables (Linkerd's l5d-dst-override) beside the
// usual ones (Host, X-Forwarded-*); with the path rewritten too. In the
// Lua pass the host without the rewrite is Lua-routed (the snippet in a
// shape location), the other classic: both answer alike.
func TestSnippetHeaders(t *testing.T) {
	port := echoBackend(t, "X-Powered-By", "php/8", "X-Backend-Secret", "s3cr3t", "X-Kept", "yes")
	manifests := serviceYAML("echo", port) +
		nsIngressOf("e2e", "snip", "2026-01-01T00:00:00Z", "snip.example.com", "Prefix", "/", "echo",
			"configuration-snippet", snippetHeadersText) +
		nsIngressOf("e2e", "snip-rw", "2026-01-01T00:00:00Z", "rw.example.com", "Prefix", "/", "echo",
			"configuration-snippet", snippetHeadersText+snippetRewriteText)
	n := startSnippetNginx(t, manifests)
	n.requireLuaRouted(t, "snip.example.com")
	for _, host := range []string{"snip.example.com", "rw.example.com"} {
		t.Run(host, func(t *testing.T) { checkSnippetHeaders(t, n, host) })
	}
}

// checkSnippetHeaders checks the answers of snippetHeadersText on host.
func checkSnippetHeaders(t *testing.T, n *liveNginx, host string) {
	resp, body := n.call(t, http.MethodGet, host, "/api/users?id=1", "", "X-Forwarded-For", "203.0.113.9")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/users: %d %s", resp.StatusCode, body)
	}
	for name, want := range map[string]string{
		"X-Frame-Options":  "DENY",
		"X-Snippet":        "host=" + host,
		"X-Powered-By":     "",
		"X-Backend-Secret": "",
		"X-Kept":           "yes",
	} {
		if got := strings.Join(resp.Header.Values(name), " | "); got != want {
			t.Errorf("response header %s: %q, want %q", name, got, want)
		}
	}
	var got map[string]string
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("backend answer %s: %v", body, err)
	}
	for name, want := range map[string]string{
		"X-Tenant":          "t-e2e",
		"L5d-Dst-Override":  "echo.e2e.svc.cluster.local:80",
		"Host":              host,
		"X-Forwarded-Host":  host,
		"X-Forwarded-Proto": "http",
		"X-Forwarded-For":   "127.0.0.1",
		"X-Original-Uri":    "", // proxy-add-original-uri-header is off
	} {
		if got[name] != want {
			t.Errorf("backend got %s %q, want %q (all: %v)", name, got[name], want, got)
		}
	}

	// an error answer carries add_header ... always too
	resp, _ = n.call(t, http.MethodGet, host, "/v2/x", "")
	if resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("X-Frame-Options on /v2/x: %q", resp.Header.Get("X-Frame-Options"))
	}
}

// TestSnippetRewritePath: the rewrite of a configuration-snippet changes
// the path the backend gets.
func TestSnippetRewritePath(t *testing.T) {
	port := namedBackend(t, "named")
	manifests := serviceYAML("named", port) +
		nsIngressOf("e2e", "snip", "2026-01-01T00:00:00Z", "rw.example.com", "Prefix", "/", "named",
			"configuration-snippet", snippetHeadersText+snippetRewriteText)
	n := startSnippetNginx(t, manifests)
	for path, want := range map[string]string{"/api/users": "named /v2/users", "/other": "named /other"} {
		if status, body := n.get(t, "rw.example.com", path); status != 200 || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, status, body, want)
		}
	}
}

// TestSnippetServerLocations: a server-snippet's nested locations answer
// (the deny location 404, the webfinger redirect with the query), its
// server-level rewrite redirects, and the Ingress's own paths still reach
// the backend.
func TestSnippetServerLocations(t *testing.T) {
	port := namedBackend(t, "site")
	manifests := serviceYAML("site", port) +
		nsIngressOf("e2e", "site", "2026-01-01T00:00:00Z", "srv.example.com", "Prefix", "/", "site",
			"server-snippet", snippetServerText)
	n := startSnippetNginx(t, manifests)
	for _, c := range []struct {
		path, location string
		status         int
		body           string
	}{
		{path: "/ping", status: 404},
		{path: "/ready", status: 404},
		{path: "/ready/deep", status: 404},
		{path: "/.well-known/webfinger?resource=acct:a@srv.example.com", status: 301,
			location: "https://x.example/.well-known/webfinger?resource=acct:a@srv.example.com"},
		// nginx makes the relative replacement absolute, without the port
		// it listens on (port_in_redirect off, as ingress-nginx)
		{path: "/old/page?x=1", status: 301, location: "http://srv.example.com/new/page?x=1"},
		{path: "/pong", status: 200, body: "site /pong"},
		{path: "/", status: 200, body: "site /"},
	} {
		resp, body := n.call(t, http.MethodGet, "srv.example.com", c.path, "")
		if resp.StatusCode != c.status || resp.Header.Get("Location") != c.location || (c.body != "" && string(body) != c.body) {
			t.Errorf("GET %s: %d Location %q %q, want %d %q %q", c.path, resp.StatusCode, resp.Header.Get("Location"), body, c.status, c.location, c.body)
		}
	}
}

// TestSnippetSubFilter: sub_filter replaces every occurrence in an HTML
// answer (sub_filter_once off; Accept-Encoding cleared so the backend does
// not compress).
func TestSnippetSubFilter(t *testing.T) {
	port := htmlBackend(t)
	manifests := serviceYAML("html", port) +
		nsIngressOf("e2e", "page", "2026-01-01T00:00:00Z", "html.example.com", "Prefix", "/", "html",
			"configuration-snippet", snippetSubFilterText)
	n := startSnippetNginx(t, manifests)
	n.requireLuaRouted(t, "html.example.com")
	resp, body := n.call(t, http.MethodGet, "html.example.com", "/", "", "Accept-Encoding", "identity")
	want := `<html><head></head><body><a href="https://new.example/a">a</a> <a href="https://new.example/b">b</a></body></html>`
	if resp.StatusCode != 200 || string(body) != want {
		t.Errorf("GET /: %d %s, want %s", resp.StatusCode, body, want)
	}
}

// TestSnippetServerAndLocationHeaders: the request and response headers of
// a server-snippet reach every path of the host, also a path whose
// location writes its own proxy_set_header set (upstream-vhost) and one
// whose configuration-snippet adds headers of its own (nginx would drop
// the server's there: the writer writes them again), where a header of
// the same name is the location's.
func TestSnippetServerAndLocationHeaders(t *testing.T) {
	server := `proxy_set_header X-From-Server "s";
proxy_set_header X-Both "server";
add_header X-Server-Header "s" always;
add_header X-Both-Answer "server";
`
	location := `proxy_set_header X-From-Location "l";
proxy_set_header X-Both "location";
add_header X-Both-Answer "location";
add_header X-Loc "l";
`
	port := echoBackend(t)
	manifests := serviceYAML("echo", port) +
		nsIngressOf("e2e", "owner", "2026-01-01T00:00:00Z", "both.example.com", "Prefix", "/", "echo",
			"server-snippet", server, "configuration-snippet", location) +
		nsIngressOf("e2e", "vhost", "2026-01-01T00:00:01Z", "both.example.com", "Prefix", "/vhost", "echo",
			"upstream-vhost", "inner.example")
	n := startSnippetNginx(t, manifests)
	for _, c := range []struct {
		path     string
		request  map[string]string
		response map[string]string
	}{
		{"/", map[string]string{"X-From-Server": "s", "X-From-Location": "l", "X-Both": "location", "Host": "both.example.com"},
			map[string]string{"X-Server-Header": "s", "X-Both-Answer": "location", "X-Loc": "l"}},
		{"/vhost", map[string]string{"X-From-Server": "s", "X-From-Location": "", "X-Both": "server", "Host": "inner.example"},
			map[string]string{"X-Server-Header": "s", "X-Both-Answer": "server", "X-Loc": ""}},
	} {
		resp, body := n.call(t, http.MethodGet, "both.example.com", c.path, "")
		var got map[string]string
		if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", c.path, resp.StatusCode, body)
		}
		for name, want := range c.request {
			if got[name] != want {
				t.Errorf("GET %s: backend got %s %q, want %q", c.path, name, got[name], want)
			}
		}
		for name, want := range c.response {
			if v := strings.Join(resp.Header.Values(name), " | "); v != want {
				t.Errorf("GET %s: response header %s %q, want %q", c.path, name, v, want)
			}
		}
	}
}
