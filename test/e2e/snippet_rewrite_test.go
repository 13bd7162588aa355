package e2e

// A configuration-snippet's rewrite and return lines in both routing
// modes: in Lua routing the router runs them (the host keeps no classic
// server block), with the same answers as the classic location's, and a
// route that a rewrite's "last" reaches is served with its own
// directives, not those of the shape location it was reached from.

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

func TestSnippetRewrites(t *testing.T) {
	web, other := uriBackend(t, "web"), uriBackend(t, "other")
	m := serviceYAML("web", web) + serviceYAML("other", other) +
		luaIngress("base", "rw.example.com", false, nil, "Prefix / web", "Prefix /new other") +
		luaIngress("api", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/api/(.*)$ /$1 break;\n"}, "Prefix /api web") +
		luaIngress("old", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/old/(.*)$ /new/$1 last;\n"}, "Prefix /old web") +
		luaIngress("perm", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/perm/(.*)$ /target/$1?from=perm permanent;\n"}, "Prefix /perm web") +
		luaIngress("ret", "rw.example.com", false, map[string]string{"configuration-snippet": `return 200 "server=$server_name backend=$proxy_upstream_name uri=$uri";` + "\n"}, "Prefix /ret web") +
		luaIngress("loop", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/loop /loop last;\n"}, "Prefix /loop web") +
		// a shape location (more_set_headers) that a rewrite leaves, and
		// one that a rewrite enters
		luaIngress("shaped", "rw.example.com", false, map[string]string{"configuration-snippet": "more_set_headers \"X-Shaped: 1\";\nrewrite ^/shaped/back(.*)$ /new$1 last;\n"}, "Prefix /shaped other") +
		luaIngress("amp", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/amp/(.*)$ /new/x?a=$1 break;\n"}, "Prefix /amp web") +
		// a rewrite without flag leaves the route before its backend
		// protocol applies (the next route's backend speaks HTTP)
		luaIngress("legacy", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/legacy/(.*)$ /new/$1;\n", "backend-protocol": "HTTPS"}, "Prefix /legacy web") +
		// ten URI changes are nginx's limit, an eleventh answers 500
		luaIngress("hop", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/hop/a(a*)$ /hop/$1 last;\n"}, "Prefix /hop web") +
		luaIngress("toshape", "rw.example.com", false, map[string]string{"configuration-snippet": "rewrite ^/toshape(.*)$ /shaped$1 last;\nrewrite ^/toplain(.*)$ /new$1 last;\n", "limit-rate": "1"}, "Prefix /toshape web", "Prefix /toplain web")
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startRoutedNginx(t, m, mode, "rw.example.com")
			for _, tc := range []struct {
				path     string
				status   int
				body     string // the start of the body
				location string
				shaped   bool // the answer has X-Shaped
			}{
				{path: "/api/items?q=1", status: 200, body: "web /items?q=1"},
				{path: "/old/a%20b?q=1", status: 200, body: "other /new/a%20b?q=1"},
				// the capture escaped as an argument (the path held a "+"),
				// then the escapes of printable characters undone
				{path: "/perm/a+b%20c?q=1", status: 301, location: "http://rw.example.com/target/a+b%20c?from=perm&q=1"},
				{path: "/ret/x", status: 200, body: "server=rw.example.com backend=e2e-web-80 uri=/ret/x"},
				{path: "/loop", status: 500},
				{path: "/hop/aaaaaaaaaa", status: 200, body: "web /hop/"},
				{path: "/hop/aaaaaaaaaaa", status: 500},
				// a capture copied into an argument: "&" escaped (no
				// argument of the client's own), "/" not
				{path: "/amp/x%2Fy&z", status: 200, body: "web /new/x?a=x/y%26z"},
				{path: "/legacy/x", status: 200, body: "other /new/x"},
				// a control byte in the new URI, escaped to the backend
				{path: "/api/a%0Db", status: 200, body: "web /a%0Db"},
				{path: "/toshape/x", status: 200, body: "other /shaped/x", shaped: true},
				// from a route with limit-rate (which this harness does not
				// see throttle: lua_routing_diff_test.go) to one without
				{path: "/toplain/big", status: 200, body: "other /new/big"},
				// from the shape location to a route without it
				{path: "/shaped/back/y", status: 200, body: "other /new/y"},
			} {
				resp, body := fetch(t, c, n.request("rw.example.com", tc.path))
				got := strconv.Itoa(resp.StatusCode) + " " + string(body)
				if resp.StatusCode != tc.status || !strings.HasPrefix(string(body), tc.body) ||
					resp.Header.Get("Location") != tc.location || (resp.Header.Get("X-Shaped") == "1") != tc.shaped {
					t.Errorf("GET %s: %.80s, Location %q, X-Shaped %q; want %d %q, Location %q, X-Shaped %v",
						tc.path, got, resp.Header.Get("Location"), resp.Header.Get("X-Shaped"), tc.status, tc.body, tc.location, tc.shaped)
				}
			}
		})
	}
}

// TestLuaRoutingRefusesBadRewrites: the routes endpoint drops a host entry
// whose snippet rewrites nginx would not run (a regex that does not
// compile, an unknown flag, a return code below 200, a redirect without a
// URL) and keeps the host's last good entry.
func TestLuaRoutingRefusesBadRewrites(t *testing.T) {
	port := uriBackend(t, "root")
	n := startLuaNginx(t, serviceYAML("root", port)+luaIngress("a", "a.example.com", false, nil, "Prefix / root"))
	good := n.hostRoutes(t, "a.example.com")
	for _, tc := range []struct {
		name  string
		rw    luaapi.RouteRewrite
		field string
	}{
		{"a regex that does not compile", luaapi.RouteRewrite{Regex: "^/(a", Replacement: "/b"}, "rewrites[0].regex"},
		{"an unknown flag", luaapi.RouteRewrite{Regex: "^/a", Replacement: "/b", Flag: "next"}, "rewrites[0].flag"},
		{"no replacement", luaapi.RouteRewrite{Regex: "^/a"}, "rewrites[0].replacement"},
		{"a return of 103", luaapi.RouteRewrite{Return: &luaapi.RouteReturn{Code: 103}}, "rewrites[0].return.code"},
		{"a redirect without a URL", luaapi.RouteRewrite{Return: &luaapi.RouteReturn{Code: 301}}, "rewrites[0].return.text"},
	} {
		// a route's (configuration-snippet), then the host's (server-snippet)
		inRoute := good
		inRoute.Version = "bad"
		inRoute.Paths = slices.Clone(good.Paths)
		inRoute.Paths[0].Settings.Rewrites = []luaapi.RouteRewrite{tc.rw}
		inHost := good
		inHost.Version, inHost.Rewrites = "bad", []luaapi.RouteRewrite{tc.rw}
		n.refusesEntry(t, tc.name+" (configuration-snippet)", inRoute, tc.field)
		n.refusesEntry(t, tc.name+" (server-snippet)", inHost, tc.field)
	}
	n.check(t, luaReq{host: "a.example.com", path: "/x", status: 200, body: "root /x"})
}

// TestServerSnippetRewrites: a server-snippet's rewrite lines (run before
// the path is matched, once) and proxy_hide_header (every answer of the
// host's backends), as Nextcloud's ingress has them, in both routing
// modes; in Lua routing without a classic server block.
func TestServerSnippetRewrites(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Powered-By", "PHP")
		w.Header().Set("X-Kept", "1")
		fmt.Fprintf(w, "web %s", r.RequestURI)
	}))
	t.Cleanup(srv.Close)
	snippet := `server_tokens off;
proxy_hide_header X-Powered-By;
rewrite ^/.well-known/carddav /remote.php/dav permanent;
rewrite ^/.well-known/host-meta /public.php?service=host-meta last;
rewrite ^/old/(.*)$ /app/$1;
rewrite ^/twice/(.*)$ /twice/x$1;
location = /robots.txt { return 200 "User-agent: *"; }
`
	m := serviceYAML("web", srv.Listener.Addr().(*net.TCPAddr).Port) +
		luaIngress("nc", "nc.example.com", false, map[string]string{"server-snippet": snippet}, "Prefix / web") +
		luaIngress("api", "nc.example.com", false, map[string]string{"enable-cors": "true"}, "Prefix /api web")
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startRoutedNginx(t, m, mode, "nc.example.com")
			for _, tc := range []struct {
				path     string
				status   int
				body     string
				location string
			}{
				{path: "/.well-known/carddav", status: 301, location: "http://nc.example.com/remote.php/dav"},
				{path: "/.well-known/host-meta?x=1", status: 200, body: "web /public.php?service=host-meta&x=1"},
				{path: "/old/a?b=1", status: 200, body: "web /app/a?b=1"},
				// once: not again in the named location the route is served in
				{path: "/twice/a", status: 200, body: "web /twice/xa"},
				{path: "/api/x", status: 200, body: "web /api/x"},
				{path: "/plain", status: 200, body: "web /plain"},
				{path: "/robots.txt", status: 200, body: "User-agent: *"},
			} {
				resp, body := fetch(t, c, n.request("nc.example.com", tc.path))
				if resp.StatusCode != tc.status || string(body) != tc.body && tc.body != "" || resp.Header.Get("Location") != tc.location {
					t.Errorf("GET %s: %d %.80q, Location %q; want %d %q, Location %q", tc.path, resp.StatusCode, body, resp.Header.Get("Location"), tc.status, tc.body, tc.location)
				}
				if tc.status == 200 && tc.path != "/robots.txt" && (resp.Header.Get("X-Powered-By") != "" || resp.Header.Get("X-Kept") != "1") {
					t.Errorf("GET %s: X-Powered-By %q, X-Kept %q; want it hidden and X-Kept passed", tc.path, resp.Header.Get("X-Powered-By"), resp.Header.Get("X-Kept"))
				}
			}
		})
	}
}

// TestRewriteTargetArgumentEscape: a capture that rewrite-target copies
// into the arguments is escaped as nginx's NGX_ESCAPE_ARGS when the
// request's path was quoted, "&" and ";" included, so that a client cannot
// add arguments of its own (the Lua router escaped neither before), in
// both routing modes.
func TestRewriteTargetArgumentEscape(t *testing.T) {
	m := serviceYAML("web", uriBackend(t, "web")) +
		luaIngress("rtq", "rtq.example.com", false, map[string]string{"use-regex": "true", "rewrite-target": "/new/x?a=$1"}, "ImplementationSpecific /rtq/(.*) web")
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startNginxWith(t, m, nginxOptions{routing: mode})
			for path, want := range map[string]string{
				"/rtq/x%2Fy&z;w": "web /new/x?a=x/y%26z%3Bw",
				"/rtq/plain&z":   "web /new/x?a=plain&z", // not quoted: copied as it is
			} {
				if status, body := n.get(t, "rtq.example.com", path); status != http.StatusOK || body != want {
					t.Errorf("GET %s: %d %q, want 200 %q", path, status, body, want)
				}
			}
		})
	}
}

// startRoutedNginx starts nginx in routing mode on manifests m and fails
// the test on a problem or, in Lua routing, when host keeps a classic
// server block.
func startRoutedNginx(t *testing.T, m, mode, host string) *liveNginx {
	t.Helper()
	n := startNginxWith(t, m, nginxOptions{routing: mode})
	if len(n.problems) > 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	if mode == nginxconf.RoutingLua && bytes.Contains(n.conf, []byte(host)) {
		t.Fatalf("%s keeps a classic server block", host)
	}
	return n
}

// fetch sends req with c and reads the whole answer.
func fetch(t *testing.T, c *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return resp, body
}
