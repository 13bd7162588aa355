package e2e

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential test of --routing=lua: the same manifests and requests
// through a classic nginx and a Lua-routing nginx (lua_routing_test.go has
// the harness).

// TestLuaRoutingMatchesClassic sends the same requests (every host × a
// set of paths with near misses: trailing slashes, case, extra segments,
// dot segments, wildcard depths, unknown hosts) to a classic nginx and a
// Lua-routing nginx of the same manifests: the status, the backend and
// the URI it got, its Host and X-Forwarded-Prefix, and the Location
// (ports aside) must be the same.
func TestLuaRoutingMatchesClassic(t *testing.T) {
	ports := map[string]int{}
	for _, name := range []string{"root", "api", "exact", "re", "wild", "catch"} {
		ports[name] = uriBackend(t, name)
	}
	ports["tlsback"] = uriTLSBackend(t, "tlsback")
	manifests := luaRoutingManifests(ports, false) +
		luaIngress("paths", "p.example.com", false, nil, "Prefix /a root", "Prefix /a/b api", "Exact /a/b exact",
			"ImplementationSpecific /a/b/c re", "ImplementationSpecific /x/ wild", "Exact /e/ catch", "ImplementationSpecific /docs api") +
		luaIngress("regexes", "q.example.com", false, map[string]string{"use-regex": "true"},
			"ImplementationSpecific /p/[a-z]+ api", "ImplementationSpecific /p/.* exact", "Prefix /p re", "Exact /p/x wild", "Prefix /z/ root") +
		luaIngress("tlsapi", "t.example.com", true, map[string]string{"preserve-trailing-slash": "true"}, "Prefix /api api") +
		luaIngress("nolog", "nolog.example.com", false, map[string]string{"enable-access-log": "false"}, "Prefix /a api") +
		luaIngress("approotdocs", "ar.example.com", false, map[string]string{"app-root": "/home"}, "ImplementationSpecific /docs/ api", "Prefix /home root") +
		luaIngress("sticky", "canary.example.com", false, map[string]string{"affinity": "cookie", "session-cookie-name": "route"}, "Prefix /app root") +
		luaIngress("canary", "canary.example.com", false, map[string]string{"canary": "true", "canary-by-header": "X-Canary"}, "Prefix /app exact") +
		luaIngress("corsany", "ca.example.com", false, map[string]string{"enable-cors": "true"}, "Prefix / api") +
		luaIngress("corslist", "co.example.com", false, map[string]string{"enable-cors": "true",
			"cors-allow-origin": "https://a.example.org, https://*.b.example.org", "cors-allow-methods": "GET, PUT",
			"cors-expose-headers": "X-Id", "cors-allow-credentials": "false", "cors-max-age": "60"}, "Prefix / api", "Exact /gone missing") +
		luaIngress("custom", "ch.example.com", false, map[string]string{"custom-headers": "custom", "enable-cors": "true"}, "Prefix / api") +
		luaIngress("customredir", "chr.example.com", false, map[string]string{"custom-headers": "custom", "permanent-redirect": "https://x.example.org/"}, "Prefix / api") +
		luaIngress("snippet", "snip.example.com", false, map[string]string{"custom-headers": "custom", "enable-cors": "true",
			"configuration-snippet": "more_set_headers \"X-Shop: snip\";\nmore_set_headers \"Access-Control-Max-Age: 9\";\n" +
				"add_header X-Frame-Options \"DENY\" always;\nproxy_set_header X-Forwarded-Prefix \"/snip\";\nmore_clear_headers X-Price;\n"},
			"Prefix / api", "Exact /gone missing") +
		luaIngress("customgone", "chg.example.com", false, map[string]string{"custom-headers": "nope"}, "Prefix / api") +
		luaIngress("small", "bs.example.com", false, map[string]string{"proxy-body-size": "1k"}, "Prefix / api") +
		luaIngress("big", "bb.example.com", false, map[string]string{"proxy-body-size": "3m"}, "Prefix / api") +
		luaIngress("stream", "bst.example.com", false, map[string]string{"proxy-body-size": "1k", "proxy-request-buffering": "off"}, "Prefix / api") +
		luaIngress("tuned", "tuned.example.com", false, map[string]string{"proxy-buffering": "on", "proxy-buffer-size": "16k",
			"proxy-next-upstream": "error timeout http_502", "proxy-http-version": "1.0", "custom-http-errors": "404"}, "Prefix / api") +
		luaIngress("rate", "rate.example.com", false, map[string]string{"limit-rate": "100", "limit-rate-after": "0"}, "Prefix /r api") +
		luaIngress("rq", "rq.example.com", false, map[string]string{"rewrite-target": "/y?n=$1"}, "ImplementationSpecific /q/(.*) api") +
		luaIngress("rz", "rz.example.com", false, map[string]string{"rewrite-target": "/z/$1?"}, "ImplementationSpecific /q/(.*) api") +
		luaIngress("httpsback", "hb.example.com", false, map[string]string{"backend-protocol": "HTTPS", "upstream-vhost": "inner.example"}, "Exact /s tlsback", "Prefix / tlsback") +
		luaIngress("rr", "rr.example.com", false, map[string]string{"rewrite-target": "https://new.example.org/$1"}, "ImplementationSpecific /q/(.*) api") +
		// a classic server's wildcard server-alias covers an exact host
		// of another Ingress: that host is classic too, the exact name
		// winning in both modes
		luaIngress("aliased", "aliased.example.com", false, map[string]string{"server-alias": "*.al.example.com", "server-snippet": `add_header X-Classic "1";`}, "Prefix / exact") +
		luaIngress("underalias", "b.al.example.com", false, nil, "Prefix / api") +
		// server-aliases of a Lua-routed host, exact and wildcard
		luaIngress("luaalias", "la.example.com", false, map[string]string{"server-alias": "www.la.example.com, *.lw.example.com"}, "Prefix / re", "Exact /x api") +
		`apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  global-allowed-response-headers: "X-Shop,X-Price,Access-Control-Max-Age"
  add-headers: ingress-nginx/response-headers
---
apiVersion: v1
kind: ConfigMap
metadata: {name: response-headers, namespace: ingress-nginx}
data:
  X-Served-Host: "$host"
  X-Shop: "global"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: custom, namespace: e2e}
data:
  X-Shop: "ours"
  X-Price: "$5 $remote_addr"
  Access-Control-Max-Age: "7"
---
`
	classic := startNginx(t, manifests)
	lua := startLuaNginx(t, manifests)
	for _, host := range []string{"ca.example.com", "co.example.com", "ch.example.com", "chr.example.com", "chg.example.com", "nolog.example.com", "canary.example.com", "hb.example.com", "snip.example.com", "la.example.com"} {
		if bytes.Contains(lua.conf, []byte(`"`+host+`"`)) {
			t.Errorf("%s has a classic server block: the test wants the router to serve it", host)
		}
	}
	for _, n := range []*liveNginx{classic, lua.liveNginx} {
		// the snippet applies, and its more_set_headers and
		// more_clear_headers lines win custom-headers (written before
		// them in a classic location); CORS's headers win the snippet's
		// (the CORS loop below compares every header)
		r, b := n.call(t, http.MethodGet, "snip.example.com", "/c", "", "Origin", "https://a.example.org")
		got := fmt.Sprintf("%d %q %q %s %s %s", r.StatusCode, r.Header.Values("X-Shop"), r.Header.Values("X-Price"),
			r.Header.Get("Access-Control-Max-Age"), r.Header.Get("X-Frame-Options"), r.Header.Get("X-Got-Prefix"))
		if want := `200 ["snip"] [] 1728000 DENY /snip`; got != want {
			t.Errorf("GET http://snip.example.com/c: %s (%.100s), want %s", got, b, want)
		}
	}
	hosts := []string{"a.example.com", "r.example.com", "rw.example.com", "x.w.example.com", "y.x.w.example.com", "w.example.com",
		"redir.example.com", "secure.example.com", "approot.example.com", "allow.example.com", "allowme.example.com",
		"deny.example.com", "cors.example.com", "p.example.com", "q.example.com", "t.example.com", "nolog.example.com", "ar.example.com", "hb.example.com", "snip.example.com", "unknown.example.org",
		"aliased.example.com", "b.al.example.com", "c.al.example.com",
		"la.example.com", "www.la.example.com", "x.lw.example.com", "y.x.lw.example.com", "lw.example.com"}
	paths := []string{"/", "/a", "/a/", "/A", "/a/b", "/a/b/", "/a/bc", "/a/b/c", "/a/b/c/", "/a/b/cd", "/a/b/c/d",
		"/x", "/x/", "/x/y", "/e", "/e/", "/e/x", "/p", "/p/", "/p/abc", "/p/ABC", "/p/x", "/p/1", "/z", "/z/", "/z/1",
		"/docs", "/docs/", "/docs?q=1", "/api", "/api/", "/api/x?q=1", "/apix", "/exact", "/exact/", "/v1/items",
		"/V2/items/x", "/app", "/app/", "/app/x?y=1", "/home", "/catch", "/catch/x", "/other", "/a//b", "/a/./b/", "/a/../x", "/%7Ea", "/s", "/s/x?y=1"}
	port := regexpPorts(classic.httpPort, lua.httpPort)
	differ := 0
	kinds := map[string]int{} // status and backend: the test must see many
	id := 0
	for _, host := range hosts {
		for _, path := range paths {
			id++
			rid := fmt.Sprintf("lua-diff-%d", id)
			cr, cb := classic.call(t, http.MethodGet, host, path, "", "X-Request-ID", rid)
			lr, lb := lua.call(t, http.MethodGet, host, path, "", "X-Request-ID", rid)
			c := fmt.Sprintf("%d %q %s %q %q", cr.StatusCode, cb, port(cr.Header.Get("Location")), cr.Header.Get("X-Got-Host"), cr.Header.Get("X-Got-Prefix"))
			l := fmt.Sprintf("%d %q %s %q %q", lr.StatusCode, lb, port(lr.Header.Get("Location")), lr.Header.Get("X-Got-Host"), lr.Header.Get("X-Got-Prefix"))
			kinds[fmt.Sprintf("%d %s", cr.StatusCode, cr.Header.Get("X-Backend"))]++
			if c != l {
				differ++
				if differ <= 30 {
					t.Errorf("GET http://%s%s: classic %.200s, lua %.200s", host, path, c, l)
				}
			}
		}
	}
	// Over HTTPS (SNI the host): no HTTPS redirect, the same routes.
	for _, host := range hosts {
		for _, path := range []string{"/", "/a/b", "/api/x?q=1", "/docs", "/app/x", "/p/abc", "/catch"} {
			cs, cb := classic.getTLS(t, host, path)
			ls, lb := lua.getTLS(t, host, path)
			if cs != ls || port(cb) != port(lb) {
				differ++
				t.Errorf("GET https://%s%s: classic %d %.100q, lua %d %.100q", host, path, cs, cb, ls, lb)
			}
		}
	}
	// proxy-body-size: Content-Length and chunked bodies against the
	// route's limit (1k, the ConfigMap's 1m, 3m).
	for _, host := range []string{"bs.example.com", "bb.example.com", "bst.example.com", "a.example.com"} {
		for _, size := range []int{500, 2 << 10, 2 << 20, 4 << 20} {
			for _, chunked := range []bool{false, true} {
				cs := postBody(t, classic, host, size, chunked)
				ls := postBody(t, lua.liveNginx, host, size, chunked)
				kinds[fmt.Sprintf("%d body", cs)]++
				if cs != ls {
					differ++
					t.Errorf("POST http://%s/ of %d bytes (chunked %v): classic %d, lua %d", host, size, chunked, cs, ls)
				}
			}
		}
	}
	// the same over HTTP/2 without a Content-Length (nginx reads such a
	// body as it reads a chunked one)
	for _, host := range []string{"bs.example.com", "bb.example.com", "bst.example.com", "a.example.com"} {
		for _, size := range []int{500, 2 << 10, 2 << 20, 4 << 20} {
			cs, ls := postBodyH2(t, classic, host, size), postBodyH2(t, lua.liveNginx, host, size)
			kinds[fmt.Sprintf("%d body (HTTP/2)", cs)]++
			if cs != ls {
				differ++
				t.Errorf("POST https://%s/ of %d bytes over HTTP/2 without a length: classic %d, lua %d", host, size, cs, ls)
			}
		}
	}
	if !bytes.Contains(lua.conf, []byte(`client_max_body_size "3m";`)) {
		t.Error("the router's location does not have the largest proxy-body-size (3m)")
	}
	// limit-rate: the same answers. (Not observed as throttling: here the
	// classic location's limit_rate 100k let 250 KiB through in a few ms,
	// where a bare nginx with limit_rate and proxy_pass throttles; to be
	// understood apart from the router.)
	for _, path := range []string{"/r/big", "/big"} {
		var got [2]string
		for i, n := range []*liveNginx{classic, lua.liveNginx} {
			r, b := n.call(t, http.MethodGet, "rate.example.com", path, "")
			got[i] = fmt.Sprintf("%d %d", r.StatusCode, len(b))
		}
		if got[0] != got[1] {
			differ++
			t.Errorf("GET http://rate.example.com%s: classic %s, lua %s", path, got[0], got[1])
		}
	}
	// The client's X-Forwarded-Prefix passes where the route sets none.
	for _, host := range []string{"a.example.com", "rw.example.com", "unknown.example.org"} {
		for _, path := range []string{"/api", "/app/x", "/catch"} {
			cr, cb := classic.call(t, http.MethodGet, host, path, "", "X-Forwarded-Prefix", "/client")
			lr, lb := lua.call(t, http.MethodGet, host, path, "", "X-Forwarded-Prefix", "/client")
			c := fmt.Sprintf("%d %q %s", cr.StatusCode, cb, cr.Header.Get("X-Got-Prefix"))
			l := fmt.Sprintf("%d %q %s", lr.StatusCode, lb, lr.Header.Get("X-Got-Prefix"))
			if c != l {
				differ++
				t.Errorf("GET http://%s%s (X-Forwarded-Prefix /client): classic %s, lua %s", host, path, c, l)
			}
		}
	}
	// rewrite-target with arguments and redirects: nginx's rewrite rules
	// for "?" and escaped captures.
	for _, host := range []string{"rq.example.com", "rz.example.com", "rr.example.com", "rw.example.com"} {
		for _, path := range []string{"/q/x", "/q/x?o=1", "/q/p%3Fq?o=1", "/q/a+b?o=1", "/q/%7Ex", "/Q/x/y", "/app/p%3Fq?o=1", "/app/a+b"} {
			cr, cb := classic.call(t, http.MethodGet, host, path, "")
			lr, lb := lua.call(t, http.MethodGet, host, path, "")
			c := fmt.Sprintf("%d %q %s", cr.StatusCode, cb, cr.Header.Get("Location"))
			l := fmt.Sprintf("%d %q %s", lr.StatusCode, lb, lr.Header.Get("Location"))
			kinds[fmt.Sprintf("%d %s rewrite", cr.StatusCode, cr.Header.Get("X-Backend"))]++
			if c != l {
				differ++
				t.Errorf("GET http://%s%s: classic %s, lua %s", host, path, c, l)
			}
		}
	}
	// Canary and affinity: the balancer decides as for a classic location,
	// and the affinity cookie's Path is the route's $location_path.
	for _, path := range []string{"/app", "/app/x", "/other"} {
		for _, canary := range []string{"", "always", "never"} {
			cr, cb := classic.call(t, http.MethodGet, "canary.example.com", path, "", "X-Canary", canary)
			lr, lb := lua.call(t, http.MethodGet, "canary.example.com", path, "", "X-Canary", canary)
			c := fmt.Sprintf("%d %q %s", cr.StatusCode, cb, cookiePath(cr))
			l := fmt.Sprintf("%d %q %s", lr.StatusCode, lb, cookiePath(lr))
			kinds[fmt.Sprintf("%d %s", cr.StatusCode, cr.Header.Get("X-Backend"))]++
			if c != l {
				differ++
				t.Errorf("GET http://canary.example.com%s (X-Canary %q): classic %s, lua %s", path, canary, c, l)
			}
		}
	}
	// CORS and custom headers: the same answers and headers for every
	// origin and method.
	for _, host := range []string{"ca.example.com", "co.example.com", "cors.example.com", "ch.example.com", "chr.example.com", "chg.example.com", "snip.example.com", "a.example.com"} {
		for _, origin := range []string{"", "https://a.example.org", "https://A.Example.ORG", "https://x.b.example.org", "https://y.x.b.example.org", "https://evil.org"} {
			for _, method := range []string{http.MethodGet, http.MethodOptions} {
				for _, path := range []string{"/c", "/gone"} {
					cr, cb := classic.call(t, method, host, path, "", "Origin", origin)
					lr, lb := lua.call(t, method, host, path, "", "Origin", origin)
					c, l := corsAnswer(cr, cb), corsAnswer(lr, lb)
					kinds[fmt.Sprintf("%d %s cors", cr.StatusCode, cr.Header.Get("X-Backend"))]++
					if c != l {
						differ++
						t.Errorf("%s http://%s%s (Origin %q): classic %s, lua %s", method, host, path, origin, c, l)
					}
				}
			}
		}
	}
	// The access logs: the same requests, each with the same status and
	// $proxy_upstream_name.
	classicLog, luaLog := accessLogByID(t, classic), accessLogByID(t, lua.liveNginx)
	if len(classicLog) == 0 || len(classicLog) == id {
		t.Errorf("classic access log: %d of %d requests: the test must see both logged and unlogged ones", len(classicLog), id)
	}
	for rid, c := range classicLog {
		if l := luaLog[rid]; l != c {
			t.Errorf("access log of %s: classic %q, lua %q", rid, c, l)
		}
	}
	for rid, l := range luaLog {
		if _, ok := classicLog[rid]; !ok {
			t.Errorf("access log of %s: only lua logged %q", rid, l)
		}
	}
	t.Logf("%d requests (%d logged), answers by status and backend: %v", len(hosts)*len(paths), len(classicLog), kinds)
	if differ > 0 {
		t.Errorf("%d of %d requests differ", differ, len(hosts)*len(paths))
	}
	if len(kinds) < 10 {
		t.Errorf("only %d kinds of answer: the requests do not exercise the routing", len(kinds))
	}
}

// regexpPorts returns a function that replaces the given ports in a
// Location by "PORT".
func regexpPorts(ports ...int) func(string) string {
	return func(s string) string {
		for _, p := range ports {
			s = strings.ReplaceAll(s, ":"+strconv.Itoa(p), ":PORT")
		}
		return s
	}
}

// accessLogByID reads nginx's access log (ingress-nginx's format) and
// returns, for each request ID of the differential test, its status and
// $proxy_upstream_name.
func accessLogByID(t *testing.T, n *liveNginx) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(n.inst.Prefix(), "logs", "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[len(f)-1], "lua-diff-") {
			continue
		}
		status := ""
		if q := strings.Split(line, `"`); len(q) > 2 {
			if g := strings.Fields(q[2]); len(g) > 0 {
				status = g[0]
			}
		}
		upstream := ""
		if i := strings.Index(line, "] ["); i >= 0 {
			if j := strings.LastIndex(line[:i], "["); j >= 0 {
				upstream = line[j+1 : i]
			}
		}
		out[f[len(f)-1]] = status + " " + upstream
	}
	return out
}

// cookiePath gives the name and Path of each cookie an answer sets.
func cookiePath(r *http.Response) string {
	var out []string
	for _, c := range r.Cookies() {
		out = append(out, c.Name+" path="+c.Path)
	}
	return strings.Join(out, ",")
}

// corsAnswer gives the status, body and CORS-related headers of an answer.
func corsAnswer(r *http.Response, body []byte) string {
	var hs []string
	for name, v := range r.Header {
		if strings.HasPrefix(name, "Access-Control-") || strings.HasPrefix(name, "X-") && name != "X-Got-Host" || name == "Content-Type" || name == "Content-Length" || name == "Location" {
			hs = append(hs, name+"="+strings.Join(v, "|"))
		}
	}
	slices.Sort(hs)
	return fmt.Sprintf("%d %.60q %v", r.StatusCode, body, hs)
}

// postBodyH2 POSTs size bytes to https://host/ over HTTP/2 without a
// Content-Length and returns the status (-1 when nginx reset the stream
// before answering).
func postBodyH2(t *testing.T, n *liveNginx, host string, size int) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "https://127.0.0.1:"+strconv.Itoa(n.httpsPort)+"/", io.MultiReader(bytes.NewReader(make([]byte, size))))
	if err != nil {
		t.Fatal(err)
	}
	req.Host, req.ContentLength = host, -1
	tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: host, InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetHTTP2(true)
	return postStatus(t, req, tr, 2)
}

// postStatus sends req through tr (closed after) and returns the answer's
// status, its body read; -1 when no answer came (nginx may answer 413 and
// close before the body is sent). major is the HTTP version the answer
// must have.
func postStatus(t *testing.T, req *http.Request, tr *http.Transport, major int) int {
	t.Helper()
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: tr}).Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.ProtoMajor != major {
		t.Fatalf("answer over %s, want HTTP/%d", resp.Proto, major)
	}
	return resp.StatusCode
}

// postBody POSTs size bytes to http://host/ (with Content-Length, or
// chunked) and returns the status.
func postBody(t *testing.T, n *liveNginx, host string, size int, chunked bool, with ...func(*http.Request)) int {
	t.Helper()
	body := io.Reader(bytes.NewReader(make([]byte, size)))
	if chunked {
		body = io.MultiReader(body) // no length known: sent chunked
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+"/", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if chunked {
		req.ContentLength = -1
	}
	for _, f := range with {
		f(req)
	}
	return postStatus(t, req, &http.Transport{Proxy: nil}, 1)
}
