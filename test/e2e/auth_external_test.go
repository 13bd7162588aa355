package e2e

// External authentication through real nginx, compared with ingress-nginx's
// e2e tests annotations/auth.go and settings/global_external_auth.go: an
// oauth2-proxy-like auth server answers 202 (with identity headers and a
// cookie), 401, 403 or 500, chosen by a request header of the client.

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// authServer is the auth service of the tests: it records the last
// request it got and answers by the client's X-Test-Auth header.
type authServer struct {
	port int
	mu   sync.Mutex
	last *http.Request
	// refuse makes every answer 401 (the auth service "down" for the
	// cache test), whatever the client asks.
	refuse bool
}

func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	a := &authServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.last = r.Clone(r.Context())
		refuse := a.refuse
		a.mu.Unlock()
		mode := r.Header.Get("X-Test-Auth")
		if refuse {
			mode = ""
		}
		switch mode {
		case "plain": // no cookie: an answer nginx may cache
			w.Header().Set("X-Auth-Request-User", "bob")
			w.WriteHeader(http.StatusAccepted)
		case "ok":
			w.Header().Set("X-Auth-Request-User", "alice")
			w.Header().Set("X-Auth-Request-Email", "alice@example.com")
			w.Header().Set("Set-Cookie", "_oauth2_proxy=s3cr3t; Path=/")
			w.WriteHeader(http.StatusAccepted)
		case "deny":
			w.WriteHeader(http.StatusForbidden)
		case "boom":
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	a.port = srv.Listener.Addr().(*net.TCPAddr).Port
	return a
}

// lastRequest returns the last request the auth server got and forgets it.
func (a *authServer) lastRequest() *http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.last
	a.last = nil
	return r
}

func (a *authServer) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(a.port) + path
}

// authAnswer is what one request through nginx gave.
type authAnswer struct {
	status    int
	location  string
	setCookie []string
	body      string
}

// authDo sends method path to nginx with Host host and the headers given
// as name, value pairs.
func (n *liveNginx) authDo(t *testing.T, method, host, path string, headers ...string) authAnswer {
	t.Helper()
	resp, body := n.call(t, method, host, path, "the body", headers...)
	return authAnswer{status: resp.StatusCode, location: resp.Header.Get("Location"), setCookie: resp.Header.Values("Set-Cookie"), body: string(body)}
}

func TestExternalAuth(t *testing.T) {
	auth := startAuthServer(t)
	echo := headerEcho(t)
	manifests := serviceOf("echo", &backend{port: echo}) +
		ingressOf("oauth", "auth.test", "echo", "2026-01-01T00:00:00Z", map[string]string{
			"auth-url":              auth.url("/oauth2/auth"),
			"auth-signin":           "http://$host/auth/start",
			"auth-response-headers": "X-Auth-Request-User, X-Auth-Request-Email",
		}) +
		ingressOf("escaped", "rd.test", "echo", "2026-01-01T00:00:01Z", map[string]string{
			"auth-url":    auth.url("/oauth2/auth"),
			"auth-signin": "https://$host/oauth2/start?rd=$escaped_request_uri",
		}) +
		ingressOf("param", "param.test", "echo", "2026-01-01T00:00:02Z", map[string]string{
			"auth-url":                   auth.url("/oauth2/auth"),
			"auth-signin":                "http://$host/auth/start",
			"auth-signin-redirect-param": "orig",
		}) +
		ingressOf("post", "post.test", "echo", "2026-01-01T00:00:03Z", map[string]string{
			"auth-url":    auth.url("/verify?x=1"),
			"auth-method": "POST",
		}) +
		ingressOf("no-signin", "nosignin.test", "echo", "2026-01-01T00:00:04Z", map[string]string{
			"auth-url": auth.url("/oauth2/auth"),
		}) +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: auth-headers, namespace: e2e}\ndata: {X-Tenant: shop team, X-Fwd-Method: $request_method}\n---\n" +
		ingressOf("headers", "headers.test", "echo", "2026-01-01T00:00:05Z", map[string]string{
			"auth-url":               auth.url("/oauth2/auth"),
			"auth-proxy-set-headers": "auth-headers",
			"auth-request-redirect":  "https://$host$request_uri",
		})
	n := startNginx(t, manifests)
	for _, p := range n.problems {
		t.Errorf("problem: %s", p)
	}
	n.requireLuaRouted(t, "auth.test", "rd.test", "param.test", "post.test", "nosignin.test", "headers.test")

	t.Run("401 redirects to the sign-in URL with rd", func(t *testing.T) {
		a := n.authDo(t, "GET", "auth.test", "/?a=b&c=d")
		want := "http://auth.test/auth/start?rd=http://auth.test" + url.QueryEscape("/?a=b&c=d")
		if a.status != http.StatusFound || a.location != want {
			t.Errorf("got %d Location %q, want 302 %q", a.status, a.location, want)
		}
		a = n.authDo(t, "GET", "rd.test", "/app/x?a=b")
		want = "https://rd.test/oauth2/start?rd=" + url.QueryEscape("/app/x?a=b")
		if a.status != http.StatusFound || a.location != want {
			t.Errorf("sign-in URL with its own rd: got %d Location %q, want 302 %q", a.status, a.location, want)
		}
		a = n.authDo(t, "GET", "param.test", "/p")
		want = "http://param.test/auth/start?orig=http://param.test" + url.QueryEscape("/p")
		if a.status != http.StatusFound || a.location != want {
			t.Errorf("auth-signin-redirect-param: got %d Location %q, want 302 %q", a.status, a.location, want)
		}
		if a := n.authDo(t, "GET", "nosignin.test", "/"); a.status != http.StatusUnauthorized {
			t.Errorf("without auth-signin: got %d, want 401", a.status)
		}
	})

	t.Run("403 and errors of the auth service", func(t *testing.T) {
		if a := n.authDo(t, "GET", "auth.test", "/", "X-Test-Auth", "deny"); a.status != http.StatusForbidden {
			t.Errorf("403 of the auth service: got %d, want 403", a.status)
		}
		if a := n.authDo(t, "GET", "auth.test", "/", "X-Test-Auth", "boom"); a.status != http.StatusInternalServerError {
			t.Errorf("502 of the auth service: got %d, want 500", a.status)
		}
	})

	t.Run("2xx passes with the response headers", func(t *testing.T) {
		a := n.authDo(t, "GET", "auth.test", "/hello?x=1", "X-Test-Auth", "ok", "X-Auth-Request-User", "mallory")
		if a.status != http.StatusOK {
			t.Fatalf("got %d %q, want 200", a.status, a.body)
		}
		for _, want := range []string{`"X-Auth-Request-User":"alice"`, `"X-Auth-Request-Email":"alice@example.com"`} {
			if !strings.Contains(a.body, want) {
				t.Errorf("backend did not get %s: %s", want, a.body)
			}
		}
		if strings.Contains(a.body, "mallory") {
			t.Errorf("the client's X-Auth-Request-User reached the backend: %s", a.body)
		}
		if len(a.setCookie) != 1 || !strings.HasPrefix(a.setCookie[0], "_oauth2_proxy=s3cr3t") {
			t.Errorf("Set-Cookie %q, want the auth service's", a.setCookie)
		}
		r := auth.lastRequest()
		if r == nil {
			t.Fatal("the auth service got no request")
		}
		want := map[string]string{
			"X-Original-Url":          "http://auth.test/hello?x=1",
			"X-Original-Method":       "GET",
			"X-Auth-Request-Redirect": "/hello?x=1",
			"X-Sent-From":             "nginx-ingress-controller",
		}
		for k, v := range want {
			if got := r.Header.Get(k); got != v {
				t.Errorf("auth service got %s %q, want %q", k, got, v)
			}
		}
		if r.Method != "GET" || r.URL.Path != "/oauth2/auth" || r.Host != "127.0.0.1" || r.ContentLength > 0 {
			t.Errorf("auth request: %s %s Host %s length %d", r.Method, r.URL, r.Host, r.ContentLength)
		}
		// A listed header the auth service does not send is not sent
		// either: the client's own never reaches the backend.
		b := n.authDo(t, "GET", "auth.test", "/", "X-Test-Auth", "plain", "X-Auth-Request-Email", "spoof@example.com")
		if b.status != http.StatusOK || !strings.Contains(b.body, `"X-Auth-Request-User":"bob"`) || strings.Contains(b.body, "spoof") {
			t.Errorf("auth answer without X-Auth-Request-Email: got %d %s", b.status, b.body)
		}
	})

	t.Run("auth-proxy-set-headers and auth-request-redirect", func(t *testing.T) {
		if a := n.authDo(t, "DELETE", "headers.test", "/x?y=1", "X-Test-Auth", "ok"); a.status != http.StatusOK {
			t.Fatalf("got %d, want 200", a.status)
		}
		r := auth.lastRequest()
		if r == nil {
			t.Fatal("the auth service got no request")
		}
		want := map[string]string{"X-Tenant": "shop team", "X-Fwd-Method": "DELETE", "X-Auth-Request-Redirect": "https://headers.test/x?y=1"}
		for k, v := range want {
			if got := r.Header.Get(k); got != v {
				t.Errorf("auth service got %s %q, want %q", k, got, v)
			}
		}
	})

	t.Run("auth-method", func(t *testing.T) {
		a := n.authDo(t, "PUT", "post.test", "/doc", "X-Test-Auth", "ok")
		if a.status != http.StatusOK {
			t.Fatalf("got %d, want 200", a.status)
		}
		r := auth.lastRequest()
		if r == nil || r.Method != "POST" || r.URL.RequestURI() != "/verify?x=1" || r.Header.Get("X-Original-Method") != "PUT" {
			t.Errorf("auth request %v, want POST /verify?x=1 with X-Original-Method PUT", r)
		}
		if a := n.authDo(t, "PUT", "auth.test", "/doc", "X-Test-Auth", "ok"); a.status != http.StatusOK {
			t.Fatalf("got %d, want 200", a.status)
		}
		if r := auth.lastRequest(); r == nil || r.Method != "GET" || r.Header.Get("X-Original-Method") != "PUT" {
			t.Errorf("without auth-method: auth request %v, want GET with X-Original-Method PUT", r)
		}
	})
}

// TestGlobalExternalAuth: global-auth-url applies to every Ingress, and
// enable-global-auth "false" opts one out, as does a path of
// no-auth-locations.
func TestGlobalExternalAuth(t *testing.T) {
	auth := startAuthServer(t)
	echo := headerEcho(t)
	manifests := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  global-auth-url: %q
  global-auth-response-headers: "X-Auth-Request-User"
  no-auth-locations: "/.well-known/acme-challenge, /healthz"
---
`, auth.url("/global")) + serviceOf("echo", &backend{port: echo}) +
		ingressOf("protected", "global.test", "echo", "2026-01-01T00:00:00Z", nil) +
		nsIngressOf("e2e", "health", "2026-01-01T00:00:01Z", "global.test", "Exact", "/healthz", "echo") +
		ingressOf("optout", "optout.test", "echo", "2026-01-01T00:00:02Z", map[string]string{"enable-global-auth": "false"})
	n := startNginx(t, manifests)
	for _, p := range n.problems {
		t.Errorf("problem: %s", p)
	}
	n.requireLuaRouted(t, "global.test", "optout.test")
	if a := n.authDo(t, "GET", "global.test", "/"); a.status != http.StatusUnauthorized {
		t.Errorf("global auth: got %d, want 401", a.status)
	}
	a := n.authDo(t, "GET", "global.test", "/", "X-Test-Auth", "ok")
	if a.status != http.StatusOK || !strings.Contains(a.body, `"X-Auth-Request-User":"alice"`) {
		t.Errorf("global auth, signed in: got %d %s", a.status, a.body)
	}
	if r := auth.lastRequest(); r == nil || r.URL.Path != "/global" {
		t.Errorf("the global auth service got %v", r)
	}
	if a := n.authDo(t, "GET", "global.test", "/healthz"); a.status != http.StatusOK {
		t.Errorf("no-auth-locations: got %d, want 200", a.status)
	}
	if a := n.authDo(t, "GET", "optout.test", "/"); a.status != http.StatusOK {
		t.Errorf(`enable-global-auth "false": got %d, want 200`, a.status)
	}
	if r := auth.lastRequest(); r != nil {
		t.Errorf("the auth service was asked for an opted-out or no-auth path: %s %s", r.Method, r.URL)
	}
}

// TestExternalAuthSatisfy: with satisfy any, a client of the source range
// passes without authentication (the auth service is not asked); with the
// default (all) it must also authenticate. All three hosts are Lua-routed
// in Lua routing.
func TestExternalAuthSatisfy(t *testing.T) {
	auth := startAuthServer(t)
	echo := headerEcho(t)
	manifests := serviceOf("echo", &backend{port: echo}) +
		ingressOf("any", "any.test", "echo", "2026-01-01T00:00:00Z", map[string]string{
			"auth-url": auth.url("/auth"), "whitelist-source-range": "127.0.0.0/8", "satisfy": "any",
		}) +
		ingressOf("all", "all.test", "echo", "2026-01-01T00:00:01Z", map[string]string{
			"auth-url": auth.url("/auth"), "whitelist-source-range": "127.0.0.0/8",
		}) +
		ingressOf("other-net", "othernet.test", "echo", "2026-01-01T00:00:02Z", map[string]string{
			"auth-url": auth.url("/auth"), "whitelist-source-range": "10.0.0.0/8", "satisfy": "any",
		})
	n := startNginx(t, manifests)
	n.requireLuaRouted(t, "any.test", "all.test", "othernet.test")
	if a := n.authDo(t, "GET", "any.test", "/"); a.status != http.StatusOK {
		t.Errorf("satisfy any from the allowed network: got %d, want 200", a.status)
	}
	// nginx's access phase stops at the range: the auth service is not asked
	if r := auth.lastRequest(); r != nil {
		t.Errorf("satisfy any from the allowed network: the auth service was asked (%s)", r.Header.Get("X-Original-URL"))
	}
	if a := n.authDo(t, "GET", "all.test", "/"); a.status != http.StatusUnauthorized {
		t.Errorf("satisfy all without credentials: got %d, want 401", a.status)
	}
	if a := n.authDo(t, "GET", "othernet.test", "/"); a.status != http.StatusUnauthorized {
		t.Errorf("satisfy any from another network without credentials: got %d, want 401", a.status)
	}
	auth.lastRequest()
	if a := n.authDo(t, "GET", "othernet.test", "/", "X-Test-Auth", "ok"); a.status != http.StatusOK {
		t.Errorf("satisfy any from another network, signed in: got %d, want 200", a.status)
	}
	if r := auth.lastRequest(); r == nil {
		t.Error("satisfy any from another network: the auth service was not asked")
	}
}

// TestExternalAuthCache: with auth-cache-key the auth service's 202 is
// cached per key, so a signed-in client passes while the auth service
// refuses everyone, and another key does not; nor does the same key on
// another host with the same settings (in Lua routing the two share one
// shape location: the answers are cached per route).
func TestExternalAuthCache(t *testing.T) {
	auth := startAuthServer(t)
	echo := headerEcho(t)
	manifests := serviceOf("echo", &backend{port: echo}) +
		ingressOf("cached", "cache.test", "echo", "2026-01-01T00:00:00Z", map[string]string{
			"auth-url": auth.url("/auth"), "auth-cache-key": "$http_authorization", "auth-cache-duration": "202 401 30m",
		}) +
		ingressOf("cached-too", "cache2.test", "echo", "2026-01-01T00:00:01Z", map[string]string{
			"auth-url": auth.url("/auth"), "auth-cache-key": "$http_authorization", "auth-cache-duration": "202 401 30m",
		})
	n := startNginx(t, manifests)
	n.requireLuaRouted(t, "cache.test", "cache2.test")
	if a := n.authDo(t, "GET", "cache.test", "/", "X-Test-Auth", "plain", "Authorization", "Bearer one"); a.status != http.StatusOK {
		t.Fatalf("first request: got %d, want 200", a.status)
	}
	if r := auth.lastRequest(); r == nil {
		t.Fatal("the auth service was not asked")
	}
	auth.mu.Lock()
	auth.refuse = true
	auth.mu.Unlock()
	if a := n.authDo(t, "GET", "cache.test", "/", "X-Test-Auth", "plain", "Authorization", "Bearer one"); a.status != http.StatusOK {
		t.Errorf("cached key: got %d, want 200", a.status)
	}
	if r := auth.lastRequest(); r != nil {
		t.Errorf("the auth service was asked again for a cached key")
	}
	if a := n.authDo(t, "GET", "cache.test", "/", "X-Test-Auth", "plain", "Authorization", "Bearer two"); a.status != http.StatusUnauthorized {
		t.Errorf("another key: got %d, want 401", a.status)
	}
	if a := n.authDo(t, "GET", "cache2.test", "/", "X-Test-Auth", "plain", "Authorization", "Bearer one"); a.status != http.StatusUnauthorized {
		t.Errorf("the cached key on another host: got %d, want 401 (an answer is cached for its route only)", a.status)
	}
}
