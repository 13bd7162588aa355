package e2e

// Request mirroring, from-to-www-redirect, added headers (custom-headers,
// add-headers, proxy-set-headers), per-host TLS ciphers and FastCGI
// backends through a real nginx, compared with ingress-nginx's e2e tests
// annotations/mirror.go, fromtowwwredirect.go, customheaders.go,
// sslciphers.go and fastcgi.go.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// mirrored is one request a mirror server got.
type mirrored struct {
	method, uri, host, body string
}

// mirrorServer starts a loopback server that sends every request it gets
// on the returned channel.
func mirrorServer(t *testing.T) (int, <-chan mirrored) {
	t.Helper()
	ch := make(chan mirrored, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- mirrored{r.Method, r.RequestURI, r.Host, string(b)}
		fmt.Fprint(w, "mirror answer, discarded")
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port, ch
}

// sendBody sends method path with body to nginx's HTTP port with Host
// host and returns the status, the body and the headers of the answer.
func (n *liveNginx) sendBody(t *testing.T, method, host, path, body string) (int, string, http.Header) {
	t.Helper()
	resp, b := n.call(t, method, host, path, body)
	return resp.StatusCode, string(b), resp.Header
}

func waitMirror(t *testing.T, ch <-chan mirrored, what string) mirrored {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: the mirror got no copy within 5s", what)
	}
	return mirrored{}
}

// TestMirror: mirror-target gets a copy of each request (the path through
// $request_uri, the body with mirror-request-body on, the target's host
// or mirror-host as Host) while the client gets the backend's answer; the
// internal location answers no client.
func TestMirror(t *testing.T) {
	backendPort := namedBackend(t, "main")
	mport, copies := mirrorServer(t)
	target := "http://127.0.0.1:" + strconv.Itoa(mport) + "/copy$request_uri"
	manifests := serviceYAML("main", backendPort) +
		nsIngressOf("e2e", "mirrored", "2026-01-01T00:00:00Z", "mirror.example.com", "Prefix", "/", "main",
			"mirror-target", target) +
		nsIngressOf("e2e", "no-body", "2026-01-01T00:00:01Z", "nobody.example.com", "Prefix", "/", "main",
			"mirror-target", target, "mirror-request-body", "off", "mirror-host", "copies.example.com")
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	n.requireLuaRouted(t, "mirror.example.com", "nobody.example.com")

	status, body, _ := n.sendBody(t, http.MethodPost, "mirror.example.com", "/orders?id=7", "hello mirror")
	if status != 200 || body != "main /orders" {
		t.Fatalf("client got %d %q, want the backend's 200", status, body)
	}
	m := waitMirror(t, copies, "mirror-request-body on")
	if want := (mirrored{"POST", "/copy/orders?id=7", "127.0.0.1", "hello mirror"}); m != want {
		t.Errorf("mirror got %+v, want %+v", m, want)
	}

	status, _, _ = n.sendBody(t, http.MethodPost, "nobody.example.com", "/upload", "secret body")
	if status != 200 {
		t.Fatalf("client got %d", status)
	}
	m = waitMirror(t, copies, "mirror-request-body off")
	if m.uri != "/copy/upload" || m.host != "copies.example.com" || m.body != "" {
		t.Errorf("mirror got %+v, want /copy/upload for copies.example.com without the body", m)
	}

	internal := "/_mirror-" + annotations.MirrorID(model.ObjectRef{Kind: "Ingress", Namespace: "e2e", Name: "mirrored"})
	if e2eRouting(t) == nginxconf.RoutingLua {
		// the router's server has one internal location per distinct mirror
		found := regexp.MustCompile(`location = "(/_kubectl_ingress_mirror_[0-9a-f]{16})"`).FindAllSubmatch(n.conf, -1)
		if len(found) != 2 {
			t.Fatalf("%d mirror locations in the Lua nginx.conf, want 2 (one per distinct mirror)", len(found))
		}
		internal = string(found[0][1])
	}
	if status, _ := n.get(t, "mirror.example.com", internal); status != http.StatusNotFound {
		t.Errorf("GET of the internal mirror location %s: %d, want 404", internal, status)
	}
}

// TestFromToWWWRedirect: with from-to-www-redirect a request for the other
// name (www. added or removed) gets a 308 to the same scheme, port and URI
// on the rule's host, the final "/" dropped (ingress-nginx's e2e:
// "http://fromtowwwredirect.bar.com:80/foo", "https://host:443" for "/");
// over HTTPS the www server serves the host's certificate, which covers
// both names; the rule's own host is served.
func TestFromToWWWRedirect(t *testing.T) {
	backendPort := namedBackend(t, "site")
	secret, crt := tlsSecretYAML(t, "foo-tls", "foo.example.com", "www.foo.example.com")
	manifests := serviceYAML("site", backendPort) + secret + `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: foo
  namespace: e2e
  creationTimestamp: "2026-01-01T00:00:00Z"
  annotations:
    nginx.ingress.kubernetes.io/from-to-www-redirect: "true"
    nginx.ingress.kubernetes.io/ssl-redirect: "false"
spec:
  ingressClassName: nginx
  tls: [{hosts: [foo.example.com], secretName: foo-tls}]
  rules:
  - host: foo.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: site, port: {number: 80}}}}
  - host: www.bar.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: site, port: {number: 80}}}}
---
`
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	httpPort, httpsPort := strconv.Itoa(n.httpPort), strconv.Itoa(n.httpsPort)
	for _, tc := range []struct {
		tls            bool
		host, path     string
		status         int
		location, body string
	}{
		{false, "www.foo.example.com", "/foo", 308, "http://foo.example.com:" + httpPort + "/foo", ""},
		{false, "www.foo.example.com", "/a/b/?q=1", 308, "http://foo.example.com:" + httpPort + "/a/b/?q=1", ""},
		{false, "www.foo.example.com", "/dir/", 308, "http://foo.example.com:" + httpPort + "/dir", ""},
		{true, "www.foo.example.com", "/", 308, "https://foo.example.com:" + httpsPort, ""},
		{false, "bar.example.com", "/x", 308, "http://www.bar.example.com:" + httpPort + "/x", ""},
		{false, "foo.example.com", "/foo", 200, "", "site /foo"},
		{true, "foo.example.com", "/", 200, "", "site /"},
		{false, "www.bar.example.com", "/x", 200, "", "site /x"},
	} {
		if tc.status == 200 {
			get := n.get
			if tc.tls {
				get = n.getTLS
			}
			if status, body := get(t, tc.host, tc.path); status != 200 || body != tc.body {
				t.Errorf("GET %s%s (tls %v): %d %q, want 200 %q", tc.host, tc.path, tc.tls, status, body, tc.body)
			}
			continue
		}
		a := n.send(t, tc.tls, tc.host, tc.path)
		if a.status != tc.status || a.location != tc.location {
			t.Errorf("GET %s%s (tls %v): %d Location %q, want %d %q", tc.host, tc.path, tc.tls, a.status, a.location, tc.status, tc.location)
		}
	}
	if got := n.servedCertificate(t, "www.foo.example.com"); !sameCert(got.Raw, crt) {
		t.Errorf("SNI www.foo.example.com: served %v, want the certificate of foo.example.com", got.DNSNames)
	}
}

// headersBackend answers with the request headers it got as JSON and sends
// X-Shop and X-Frame-Options of its own.
func headersBackend(t *testing.T) int {
	t.Helper()
	return echoBackend(t, "X-Shop", "backend", "X-Frame-Options", "SAMEORIGIN")
}

// TestAddedHeaders: custom-headers adds its ConfigMap's headers to the
// answers of its Ingress (replacing the backend's header of the same name,
// a "$" literal, as ingress-nginx's e2e customheaders.go), only with names
// that global-allowed-response-headers lists, and a missing ConfigMap
// answers 503; add-headers adds headers to every answer (variables
// expanded), proxy-set-headers sends headers to every backend, also where
// a location sets its own (upstream-vhost).
func TestAddedHeaders(t *testing.T) {
	port := headersBackend(t)
	manifests := `apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  global-allowed-response-headers: "X-Shop,X-Price"
  add-headers: ingress-nginx/response-headers
  proxy-set-headers: ingress-nginx/request-headers
---
apiVersion: v1
kind: ConfigMap
metadata: {name: response-headers, namespace: ingress-nginx}
data:
  X-Frame-Options: "DENY"
  X-Served-Host: "$host"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: request-headers, namespace: ingress-nginx}
data:
  X-Team: "shop; \"a\""
  X-Client: "$remote_addr"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: custom, namespace: e2e}
data:
  X-Shop: "ours"
  X-Price: "$5 $remote_addr"
---
` + serviceYAML("echo", port) +
		nsIngressOf("e2e", "plain", "2026-01-01T00:00:00Z", "plain.example.com", "Prefix", "/", "echo") +
		nsIngressOf("e2e", "custom", "2026-01-01T00:00:01Z", "custom.example.com", "Prefix", "/", "echo", "custom-headers", "custom") +
		nsIngressOf("e2e", "vhost", "2026-01-01T00:00:02Z", "vhost.example.com", "Prefix", "/", "echo", "upstream-vhost", "internal.example.com") +
		nsIngressOf("e2e", "missing", "2026-01-01T00:00:03Z", "missing.example.com", "Prefix", "/", "echo", "custom-headers", "nope")
	n := startNginx(t, manifests)
	if len(n.problems) != 1 || !strings.Contains(n.problems[0].Reason, "ConfigMap e2e/nope not found") {
		t.Fatalf("problems: %v, want the missing ConfigMap's", n.problems)
	}
	for _, tc := range []struct {
		host    string
		headers map[string][]string // response headers; nil: absent
		sent    map[string]string   // headers the backend got
	}{
		{"plain.example.com",
			map[string][]string{"X-Frame-Options": {"DENY"}, "X-Served-Host": {"plain.example.com"}, "X-Shop": {"backend"}, "X-Price": nil},
			map[string]string{"X-Team": `shop; "a"`, "X-Client": "127.0.0.1", "Host": "plain.example.com"}},
		{"custom.example.com",
			map[string][]string{"X-Frame-Options": {"DENY"}, "X-Served-Host": {"custom.example.com"}, "X-Shop": {"ours"}, "X-Price": {"$5 $remote_addr"}},
			map[string]string{"X-Team": `shop; "a"`, "X-Client": "127.0.0.1"}},
		{"vhost.example.com",
			map[string][]string{"X-Frame-Options": {"DENY"}},
			map[string]string{"X-Team": `shop; "a"`, "X-Client": "127.0.0.1", "Host": "internal.example.com"}},
	} {
		status, body, h := n.sendBody(t, http.MethodGet, tc.host, "/", "")
		if status != 200 {
			t.Errorf("%s: status %d", tc.host, status)
			continue
		}
		for k, want := range tc.headers {
			if got := h.Values(k); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s: response %s %q, want %q", tc.host, k, got, want)
			}
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s: %q: %v", tc.host, body, err)
		}
		for k, want := range tc.sent {
			if got[k] != want {
				t.Errorf("%s: backend got %s %q, want %q", tc.host, k, got[k], want)
			}
		}
	}
	if status, _, _ := n.sendBody(t, http.MethodGet, "missing.example.com", "/", ""); status != http.StatusServiceUnavailable {
		t.Errorf("custom-headers of a missing ConfigMap: %d, want 503", status)
	}
}

// TestFastCGI: backend-protocol FCGI talks FastCGI to the endpoint (a Go
// net/http/fcgi server) through the Lua balancer, with nginx's standard
// params (SERVER_NAME the host, also from the Lua router's server "_"),
// fastcgi-index and the params of fastcgi-params-configmap.
func TestFastCGI(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		_ = fcgi.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			env := fcgi.ProcessEnv(r)
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{
				"method": r.Method, "uri": r.URL.RequestURI(), "body": string(b),
				"SCRIPT_FILENAME": env["SCRIPT_FILENAME"], "APP_ENV": env["APP_ENV"], "host": r.Host,
				"SERVER_NAME": env["SERVER_NAME"],
			})
		}))
	}()
	port := l.Addr().(*net.TCPAddr).Port
	manifests := `apiVersion: v1
kind: ConfigMap
metadata: {name: php-params, namespace: e2e}
data:
  SCRIPT_FILENAME: "/srv/www$fastcgi_script_name"
  APP_ENV: "prod; {x}"
---
` + serviceYAML("php", port) +
		nsIngressOf("e2e", "php", "2026-01-01T00:00:00Z", "php.example.com", "Prefix", "/", "php",
			"backend-protocol", "FCGI", "fastcgi-index", "index.php", "fastcgi-params-configmap", "php-params")
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	n.requireLuaRouted(t, "php.example.com")
	for _, tc := range []struct {
		method, path, body string
		want               map[string]string
	}{
		{"GET", "/app/?a=1", "", map[string]string{"method": "GET", "uri": "/app/?a=1", "SCRIPT_FILENAME": "/srv/www/app/index.php", "APP_ENV": "prod; {x}", "host": "php.example.com", "SERVER_NAME": "php.example.com"}},
		{"POST", "/form.php", "name=x", map[string]string{"method": "POST", "uri": "/form.php", "body": "name=x", "SCRIPT_FILENAME": "/srv/www/form.php"}},
	} {
		status, body, _ := n.sendBody(t, tc.method, "php.example.com", tc.path, tc.body)
		if status != 200 {
			t.Errorf("%s %s: %d %q", tc.method, tc.path, status, body)
			continue
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		for k, want := range tc.want {
			if got[k] != want {
				t.Errorf("%s %s: FastCGI server got %s %q, want %q", tc.method, tc.path, k, got[k], want)
			}
		}
	}
}

// tlsCipherIngress is an Ingress of host with TLS (the Secret c-tls) and
// ssl-ciphers and ssl-prefer-server-ciphers when not "", created second
// seconds into 2026.
func tlsCipherIngress(name, host string, second int, ciphers, prefer string) string {
	annotations := ""
	if ciphers != "" {
		annotations += "\n    nginx.ingress.kubernetes.io/ssl-ciphers: " + strconv.Quote(ciphers)
	}
	if prefer != "" {
		annotations += "\n    nginx.ingress.kubernetes.io/ssl-prefer-server-ciphers: " + strconv.Quote(prefer)
	}
	if annotations != "" {
		annotations = "\n  annotations:" + annotations
	}
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
  namespace: e2e
  creationTimestamp: "2026-01-01T00:00:%02dZ"%s
spec:
  ingressClassName: nginx
  tls: [{hosts: [%s], secretName: c-tls}]
  rules:
  - host: %s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: tls, port: {number: 80}}}}
---
`, name, second, annotations, host, host)
}

// TestSSLCiphers: ssl-ciphers limits the ciphers of the Ingress's host
// (TLS 1.2): a client offering only another cipher is refused, one
// offering the listed cipher gets it; another host keeps the defaults.
// ssl-prefer-server-ciphers "true" picks the list's first cipher the
// client offers, "false" the client's first (Go's client puts AES-128
// before AES-256). With Lua routing the hosts are Lua-routed (the
// router's handshake sets both on the connection).
func TestSSLCiphers(t *testing.T) {
	backendPort := namedBackend(t, "tls")
	secret, _ := tlsSecretYAML(t, "c-tls", "ciphers.example.com", "other.example.com", "server-order.example.com", "client-order.example.com")
	cipherTests := func(serverOrderCiphers string) string {
		return serviceYAML("tls", backendPort) + secret +
			tlsCipherIngress("ciphers", "ciphers.example.com", 0, "ECDHE-ECDSA-AES128-GCM-SHA256", "true") +
			tlsCipherIngress("other", "other.example.com", 1, "", "") +
			tlsCipherIngress("server-order", "server-order.example.com", 2, serverOrderCiphers, "true") +
			tlsCipherIngress("client-order", "client-order.example.com", 3, "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256", "false")
	}
	manifests := cipherTests("ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256")
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	if e2eRouting(t) == nginxconf.RoutingLua {
		for i := range n.config.Servers {
			if s := &n.config.Servers[i]; s.SSLCiphers != "" {
				if reasons := nginxconf.LuaRoutable(n.config, s); len(reasons) != 0 {
					t.Errorf("%s is classic: %v", s.Hostname, reasons)
				}
			}
		}
	}
	handshake := func(sni string, suites ...uint16) (uint16, error) {
		d := &net.Dialer{Timeout: 5 * time.Second}
		conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
			ServerName: sni, InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12, CipherSuites: suites,
		})
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		return conn.ConnectionState().CipherSuite, nil
	}
	if got, err := handshake("ciphers.example.com", tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256); err != nil || got != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("listed cipher: %v %v", tls.CipherSuiteName(got), err)
	}
	if got, err := handshake("ciphers.example.com", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384); err == nil {
		t.Errorf("a cipher not in ssl-ciphers was accepted: %s", tls.CipherSuiteName(got))
	}
	if _, err := handshake("other.example.com", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384); err != nil {
		t.Errorf("another host lost the default ciphers: %v", err)
	}
	both := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}
	for sni, want := range map[string]uint16{
		"server-order.example.com": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		"client-order.example.com": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	} {
		if got, err := handshake(sni, both...); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", sni, tls.CipherSuiteName(got), err, tls.CipherSuiteName(want))
		}
	}
	if _, err := handshake("server-order.example.com", tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256); err == nil {
		t.Errorf("server-order.example.com accepted a cipher not in its ssl-ciphers")
	}
	// TLS 1.3: neither annotation applies; the default server's
	// preference (the ConfigMap's ssl-prefer-server-ciphers, on) orders
	// the suites, OpenSSL's order (AES-256 first) winning over Go's client
	// (AES-128 first) for both hosts. A classic server block with nginx
	// 1.22 and OpenSSL 3.0 does the same: OpenSSL chooses a TLS 1.3 suite
	// before nginx switches to the server of the SNI name.
	for sni, want := range map[string]uint16{
		"server-order.example.com": tls.TLS_AES_256_GCM_SHA384,
		"client-order.example.com": tls.TLS_AES_256_GCM_SHA384,
	} {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
			ServerName: sni, InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		})
		if err != nil {
			t.Errorf("%s, TLS 1.3: %v", sni, err)
			continue
		}
		if got := conn.ConnectionState().CipherSuite; got != want {
			t.Errorf("%s, TLS 1.3: %s, want %s", sni, tls.CipherSuiteName(got), tls.CipherSuiteName(want))
		}
		conn.Close()
	}
	if e2eRouting(t) != nginxconf.RoutingLua {
		return
	}
	// Lua routing: a change of the list is dynamic, and a session made
	// under the old list does not resume (the session id context holds
	// the host's ciphers)
	sessions := tls.NewLRUClientSessionCache(4)
	for i, want := range []bool{false, true} {
		a, err := n.tlsGet(sessions, "server-order.example.com", tls.VersionTLS13)
		if err != nil || a.resumed != want {
			t.Fatalf("connection %d: %+v %v, want resumed %t", i, a, err, want)
		}
	}
	n.push(t, cipherTests("ECDHE-ECDSA-AES128-GCM-SHA256"))
	if a, err := n.tlsGet(sessions, "server-order.example.com", tls.VersionTLS13); err != nil || a.resumed {
		t.Errorf("after the change: %+v %v, want a full handshake", a, err)
	}
	if got, err := handshake("server-order.example.com", both...); err != nil || got != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("after the change: %s %v, want the one cipher left", tls.CipherSuiteName(got), err)
	}
}
