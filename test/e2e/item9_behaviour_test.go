package e2e

// Behaviour that issue 12 item 9 found to differ from ingress-nginx, checked
// with real traffic through nginx: CORS (ingress-nginx's e2e test
// annotations/cors.go), the HTTPS redirect (its lua_ingress.lua),
// X-Forwarded-Port behind a non-443 HTTPS port, server-tokens, and the hosts
// of an Ingress with a tls section that the section does not list.

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// corsHeaderNames are the headers enable-cors adds.
var corsHeaderNames = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods",
	"Access-Control-Allow-Headers", "Access-Control-Expose-Headers", "Access-Control-Max-Age",
}

// ingress-nginx's defaults of cors-allow-methods and cors-allow-headers.
const (
	corsDefaultMethods = "GET, PUT, POST, DELETE, PATCH, OPTIONS"
	corsDefaultHeaders = "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization"
)

func TestCORSBehaviour(t *testing.T) {
	be := startBackend(t, "cors", 0)
	manifests := serviceOf("cors", be) +
		nsIngressOf("e2e", "any", "2026-01-01T00:00:00Z", "any.cors.test", "Prefix", "/", "cors",
			"enable-cors", "true") +
		nsIngressOf("e2e", "wild", "2026-01-01T00:00:01Z", "wild.cors.test", "Prefix", "/", "cors",
			"enable-cors", "true", "cors-allow-origin", "http://*.origin.cors.com, http://*.origin.com:8080") +
		nsIngressOf("e2e", "schemes", "2026-01-01T00:00:02Z", "schemes.cors.test", "Prefix", "/", "cors",
			"enable-cors", "true", "cors-allow-origin", "test://localhost, tauri://localhost:3000") +
		nsIngressOf("e2e", "lists", "2026-01-01T00:00:03Z", "lists.cors.test", "Prefix", "/", "cors",
			"enable-cors", "true", "cors-allow-origin", "https://origin.cors.com:8080, https://origin2.cors.com",
			"cors-allow-methods", "POST, GET", "cors-allow-headers", "DNT, User-Agent",
			"cors-expose-headers", "X-CustomResponseHeader, X-CustomSecondHeader",
			"cors-max-age", "200", "cors-allow-credentials", "false")
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	c := newClient(2)
	do := func(method, host, origin string) reply {
		t.Helper()
		req := n.request(host, "/")
		req.Method = method
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		r := send(c, req)
		if r.err != nil {
			t.Fatalf("%s %s Origin %q: %v", method, host, origin, r.err)
		}
		return r
	}
	// allowed checks an answer that carries the CORS headers of want
	// (a header absent from want must be absent).
	allowed := func(name string, r reply, status int, want map[string]string) {
		t.Helper()
		if r.status != status {
			t.Errorf("%s: status %d, want %d", name, r.status, status)
		}
		for _, h := range corsHeaderNames {
			got := r.header.Values(h)
			w, ok := want[h]
			switch {
			case !ok && len(got) > 0:
				t.Errorf("%s: %s %q, want none", name, h, got)
			case ok && (len(got) != 1 || got[0] != w):
				t.Errorf("%s: %s %q, want exactly %q", name, h, got, w)
			}
		}
	}
	refused := func(name string, r reply) {
		t.Helper()
		allowed(name, r, http.StatusOK, nil)
		if r.backend != "cors" {
			t.Errorf("%s: answered by %q, want the backend", name, r.backend)
		}
	}
	defaults := func(origin string) map[string]string {
		return map[string]string{
			"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods": corsDefaultMethods, "Access-Control-Allow-Headers": corsDefaultHeaders,
			"Access-Control-Max-Age": "1728000",
		}
	}

	t.Run("any origin", func(t *testing.T) {
		allowed("GET without Origin", do("GET", "any.cors.test", ""), 200, defaults("*"))
		allowed("GET with an Origin", do("GET", "any.cors.test", "https://x.example"), 200, defaults("*"))
		allowed("preflight", do("OPTIONS", "any.cors.test", "https://x.example"), 204, defaults("*"))
	})

	t.Run("wildcard origins: exactly one label", func(t *testing.T) {
		for _, o := range []string{"http://foo.origin.cors.com", "http://bar-foo.origin.cors.com", "http://FOO.origin.cors.com", "http://a.origin.com:8080"} {
			allowed("GET "+o, do("GET", "wild.cors.test", o), 200, defaults(o))
		}
		allowed("preflight", do("OPTIONS", "wild.cors.test", "http://foo.origin.cors.com"), 204, defaults("http://foo.origin.cors.com"))
		for _, o := range []string{
			"http://bar.foo.origin.cors.com", // two labels
			"http://foo.notorigin.cors.com",
			"http://origin.cors.com",          // no label at all
			"http://a.origin.com",             // port missing
			"https://foo.origin.cors.com",     // another scheme
			"http://foo.origin.cors.com.evil", // the regex is anchored at the end
			"xhttp://foo.origin.cors.com",     // … and at the start (ingress-nginx's is not: we refuse more)
		} {
			refused("GET "+o, do("GET", "wild.cors.test", o))
		}
		refused("GET without Origin", do("GET", "wild.cors.test", ""))
		// A preflight of an origin not allowed is the backend's to answer.
		r := do("OPTIONS", "wild.cors.test", "http://bar.foo.origin.cors.com")
		refused("preflight of another origin", r)
	})

	t.Run("origins of any scheme", func(t *testing.T) {
		for _, o := range []string{"test://localhost", "tauri://localhost:3000"} {
			allowed("GET "+o, do("GET", "schemes.cors.test", o), 200, defaults(o))
		}
		refused("GET tauri://localhost", do("GET", "schemes.cors.test", "tauri://localhost"))
	})

	t.Run("lists as written, max-age on every answer", func(t *testing.T) {
		want := map[string]string{
			"Access-Control-Allow-Origin":   "https://origin.cors.com:8080",
			"Access-Control-Allow-Methods":  "POST, GET",
			"Access-Control-Allow-Headers":  "DNT, User-Agent",
			"Access-Control-Expose-Headers": "X-CustomResponseHeader, X-CustomSecondHeader",
			"Access-Control-Max-Age":        "200",
		}
		allowed("GET", do("GET", "lists.cors.test", "https://origin.cors.com:8080"), 200, want)
		allowed("preflight", do("OPTIONS", "lists.cors.test", "https://origin.cors.com:8080"), 204, want)
		want["Access-Control-Allow-Origin"] = "https://origin2.cors.com"
		allowed("GET, second origin", do("GET", "lists.cors.test", "https://origin2.cors.com"), 200, want)
		refused("GET http://no.origin.com", do("GET", "lists.cors.test", "http://no.origin.com"))
		refused("GET origin.cors.com:8080 without a scheme", do("GET", "lists.cors.test", "origin.cors.com:8080"))
	})
}

// TestTLSSectionCoversEveryRuleHost: an Ingress with a tls section makes
// every one of its rule hosts a TLS host, as in ingress-nginx: a host the
// section does not list, and no certificate of it covers, serves the
// default certificate and plain HTTP is redirected; an Ingress without a
// tls section is not redirected.
func TestTLSSectionCoversEveryRuleHost(t *testing.T) {
	port := headerEcho(t)
	secret, _ := tlsSecretYAML(t, "listed-tls", "listed.example.com")
	manifests := serviceOf("echo", &backend{port: port}) + secret + `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: mixed, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  tls: [{hosts: [listed.example.com], secretName: listed-tls}]
  rules:
  - host: listed.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}]}
  - host: unlisted.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}]}
---
` + nsIngressOf("e2e", "plain", "2026-01-01T00:00:01Z", "plain.example.com", "Prefix", "/", "echo")
	n := startNginx(t, manifests)
	for _, tc := range []struct {
		host     string
		status   int
		location string
	}{
		{"listed.example.com", 308, "https://listed.example.com/a"},
		{"unlisted.example.com", 308, "https://unlisted.example.com/a"},
		{"plain.example.com", 200, ""},
	} {
		if a := n.send(t, false, tc.host, "/a"); a.status != tc.status || a.location != tc.location {
			t.Errorf("http://%s/a: %d Location %q, want %d %q", tc.host, a.status, a.location, tc.status, tc.location)
		}
	}
	if cn := n.servedCertificate(t, "unlisted.example.com").Subject.CommonName; cn != "Kubernetes Ingress Controller Fake Certificate" {
		t.Errorf("unlisted.example.com served %q, want the default certificate", cn)
	}
	if a := n.send(t, true, "unlisted.example.com", "/a"); a.status != 200 {
		t.Errorf("https://unlisted.example.com/a: %d, want 200", a.status)
	}
}

// TestForwardedPortBehindOtherHTTPSPort: nginx listens for HTTPS on a port
// other than 443 (the e2e harness always does): the backend is told
// X-Forwarded-Port 443, the port the client used in front of it, as
// ingress-nginx's lua_ingress.lua says for its HTTPS listener; plain HTTP
// says its own port.
func TestForwardedPortBehindOtherHTTPSPort(t *testing.T) {
	const host = "port.example.com"
	n := startNginx(t, headersManifests(headerEcho(t), host, "", nil))
	if n.httpsPort == 443 {
		t.Skip("the harness chose port 443")
	}
	checkGot(t, "HTTPS", n.send(t, true, host, "/"), map[string]string{"X-Forwarded-Port": "443", "X-Forwarded-Proto": "https"})
	checkGot(t, "HTTP", n.send(t, false, host, "/"), map[string]string{"X-Forwarded-Port": strconv.Itoa(n.httpPort), "X-Forwarded-Proto": "http"})
}

// TestServerTokens: with server-tokens "false" (the default) an answer
// carries no Server header at all, neither nginx's nor the backend's, as
// ingress-nginx clears it; with "true" nginx names itself with its version.
func TestServerTokens(t *testing.T) {
	const host = "tokens.example.com"
	port := headerEcho(t)
	for _, tc := range []struct {
		data map[string]string
		want string // a prefix; "" for no header
	}{
		{nil, ""},
		{map[string]string{"server-tokens": "false"}, ""},
		{map[string]string{"server-tokens": "true"}, "nginx/"},
	} {
		n := startNginx(t, headersManifests(port, host, "", tc.data))
		for _, path := range []string{"/", "/missing-host"} {
			h := host
			if path != "/" {
				h = "unknown.example.com"
			}
			r := send(newClient(1), n.request(h, path))
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := r.header.Values("Server")
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("%v, %s: Server %q, want none", tc.data, h, got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("%v, %s: Server %q, want one starting with %q", tc.data, h, got, tc.want)
			}
		}
	}
}

// TestHTTPSRedirectTrailingSlash: the HTTPS redirect (force-ssl-redirect
// here, on a host without TLS) drops the final "/" of the request URI, as
// ingress-nginx's lua_ingress.lua does unless preserve-trailing-slash is
// set: GET / goes to https://host, /a/ to https://host/a; a URI whose last
// byte is not "/" (a query after it) is kept.
func TestHTTPSRedirectTrailingSlash(t *testing.T) {
	const host = "force.example.com"
	manifests := serviceOf("echo", &backend{port: headerEcho(t)}) +
		nsIngressOf("e2e", "force", "2026-01-01T00:00:00Z", host, "Prefix", "/", "echo", "force-ssl-redirect", "true")
	n := startNginx(t, manifests)
	for path, want := range map[string]string{
		"/":       "https://" + host,
		"/a/":     "https://" + host + "/a",
		"/a/b":    "https://" + host + "/a/b",
		"/a/?q=1": "https://" + host + "/a/?q=1",
		"/a//":    "https://" + host + "/a/",
		// The last byte of the URI, query included, as ingress-nginx
		// looks at $request_uri.
		"/?next=/": "https://" + host + "/?next=",
	} {
		if a := n.send(t, false, host, path); a.status != 308 || a.location != want {
			t.Errorf("http://%s%s: %d Location %q, want 308 %q", host, path, a.status, a.location, want)
		}
	}
	if a := n.send(t, true, host, "/"); a.status != 200 {
		t.Errorf("https://%s/: %d, want 200", host, a.status)
	}
}
