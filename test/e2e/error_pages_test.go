package e2e

// Custom error pages through real nginx, compared with ingress-nginx's
// docs (user-guide/custom-errors.md) and e2e tests
// (annotations/customhttperrors.go, disableproxyintercepterrors.go,
// default_backend.go): custom-http-errors sends the listed answers of a
// backend to the default backend, which is told X-Code, X-Format,
// X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name,
// X-Service-Port and X-Request-ID and whose answer (status included) the
// client gets; disable-proxy-intercept-errors keeps the backend's own
// answers; a Service without endpoints is answered by the default-backend
// annotation's Service, told X-Code 503; with a controller default backend
// (render.Options.DefaultBackendService) requests no rule matches reach it
// with X-Code 404.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// errorPageHeaders are the headers the default backend is told.
var errorPageHeaders = []string{"X-Code", "X-Format", "X-Original-Uri", "X-Namespace", "X-Ingress-Name", "X-Service-Name", "X-Service-Port", "X-Request-Id"}

// errorPageBackend is a default backend as ingress-nginx's
// custom-error-pages image is one: it answers with the status X-Code
// asks for (200 without one) and a JSON body of the headers it got and
// the path it was asked for. It counts its requests.
type errorPageBackend struct {
	port  int
	calls atomic.Int64
}

func startErrorPageBackend(t *testing.T) *errorPageBackend {
	t.Helper()
	eb := &errorPageBackend{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eb.calls.Add(1)
		got := map[string]string{"path": r.URL.Path, "method": r.Method}
		for _, h := range errorPageHeaders {
			if v, ok := r.Header[http.CanonicalHeaderKey(h)]; ok {
				got[h] = strings.Join(v, " | ")
			}
		}
		code := http.StatusOK
		if c, err := strconv.Atoi(r.Header.Get("X-Code")); err == nil && c >= 200 && c <= 599 {
			code = c
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Error-Page", "yes")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(got)
	}))
	t.Cleanup(srv.Close)
	eb.port = srv.Listener.Addr().(*net.TCPAddr).Port
	return eb
}

// statusBackend answers GET /status/<code> with that code and the body
// "app <code>", and anything else with 200 "app ok".
func statusBackend(t *testing.T) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := strings.CutPrefix(r.URL.Path, "/status/"); ok {
			if n, err := strconv.Atoi(c); err == nil {
				w.WriteHeader(n)
				fmt.Fprintf(w, "app %d", n)
				return
			}
		}
		fmt.Fprint(w, "app ok")
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// pageAnswer is what a request through nginx gave.
type pageAnswer struct {
	status    int
	body      string
	errorPage bool              // the default backend answered
	got       map[string]string // what the default backend was told
}

// getPage sends GET path with Host host and the given header pairs.
func (n *liveNginx) getPage(t *testing.T, host, path string, headers ...string) pageAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 5 * time.Second, Transport: tr}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := pageAnswer{status: resp.StatusCode, body: string(body), errorPage: resp.Header.Get("X-Error-Page") == "yes"}
	if a.errorPage {
		if err := json.Unmarshal(body, &a.got); err != nil {
			t.Fatalf("GET %s%s: default backend answer %q: %v", host, path, body, err)
		}
	}
	return a
}

func errorPagesManifests(appPort, errPort int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  custom-http-errors: "500"
---
`)
	b.WriteString(serviceOf("app", &backend{port: appPort}))
	b.WriteString(serviceOf("errors", &backend{port: errPort}))
	// A Service without endpoints: no EndpointSlice.
	b.WriteString(serviceOf("scaled-down"))
	ing := func(name, host, service string, annotations ...string) {
		b.WriteString(nsIngressOf("e2e", name, "2026-01-01T00:00:00Z", host, "Prefix", "/", service, annotations...))
	}
	ing("pages", "pages.example.com", "app", "custom-http-errors", "404,503", "default-backend", "errors")
	ing("raw", "raw.example.com", "app", "custom-http-errors", "404,503", "default-backend", "errors", "disable-proxy-intercept-errors", "true")
	ing("down", "down.example.com", "scaled-down", "default-backend", "errors")
	ing("down-pages", "down-pages.example.com", "scaled-down", "custom-http-errors", "503")
	ing("global", "global.example.com", "app")
	return b.String()
}

// TestErrorPages: the default backend renders the listed codes with the
// headers ingress-nginx sends; other codes pass; the interception can be
// turned off; a Service without endpoints is answered by the
// default-backend annotation's Service; the ConfigMap's list and the
// controller's default backend serve the Ingresses without annotations,
// and requests no rule matches.
func TestErrorPages(t *testing.T) {
	errs := startErrorPageBackend(t)
	appPort := statusBackend(t)
	opts := render.DefaultOptions()
	opts.DefaultBackendService = "e2e/errors"
	n := startNginxWith(t, errorPagesManifests(appPort, errs.port), nginxOptions{build: &opts})
	n.requireLuaRouted(t, "pages.example.com", "raw.example.com", "down.example.com", "down-pages.example.com", "global.example.com")
	for _, p := range n.problems {
		t.Errorf("problem: %s", p)
	}
	if e2eRouting(t) == nginxconf.RoutingLua {
		// the hosts with custom-http-errors are the Lua router's (the
		// ones answered for a Service without endpoints stay classic)
		routed := map[string]bool{}
		for _, h := range n.routes {
			routed[h.Host] = true
		}
		for _, h := range []string{"pages.example.com", "raw.example.com", "global.example.com"} {
			if !routed[h] {
				t.Errorf("%s is not Lua-routed", h)
			}
		}
	}

	t.Run("listed codes are rendered by the default backend", func(t *testing.T) {
		for _, code := range []int{404, 503} {
			path := fmt.Sprintf("/status/%d?q=1", code)
			a := n.getPage(t, "pages.example.com", path, "Accept", "application/json", "X-Request-ID", "req-"+strconv.Itoa(code))
			if a.status != code || !a.errorPage {
				t.Fatalf("GET %s: %d %q, want %d from the default backend", path, a.status, a.body, code)
			}
			want := map[string]string{
				"X-Code": strconv.Itoa(code), "X-Format": "application/json", "X-Original-Uri": path,
				"X-Namespace": "e2e", "X-Ingress-Name": "pages", "X-Service-Name": "app", "X-Service-Port": "80",
				"X-Request-Id": "req-" + strconv.Itoa(code), "path": "/", "method": "GET",
			}
			for k, w := range want {
				if a.got[k] != w {
					t.Errorf("GET %s: default backend got %s %q, want %q", path, k, a.got[k], w)
				}
			}
		}
		// Without a client X-Request-ID the default backend gets the one
		// nginx made for the request.
		a := n.getPage(t, "pages.example.com", "/status/404")
		if id := a.got["X-Request-Id"]; len(id) != 32 {
			t.Errorf("generated X-Request-ID %q, want 32 hex digits", id)
		}
	})

	t.Run("other codes and answers pass", func(t *testing.T) {
		for path, want := range map[string]struct {
			status int
			body   string
		}{"/status/500": {500, "app 500"}, "/status/418": {418, "app 418"}, "/": {200, "app ok"}} {
			a := n.getPage(t, "pages.example.com", path)
			if a.status != want.status || a.body != want.body || a.errorPage {
				t.Errorf("GET %s: %d %q, want the backend's own %d %q", path, a.status, a.body, want.status, want.body)
			}
		}
	})

	t.Run("disable-proxy-intercept-errors keeps the backend's answers", func(t *testing.T) {
		before := errs.calls.Load()
		a := n.getPage(t, "raw.example.com", "/status/404")
		if a.status != 404 || a.body != "app 404" || a.errorPage {
			t.Errorf("GET /status/404: %d %q, want the backend's own 404", a.status, a.body)
		}
		if c := errs.calls.Load() - before; c != 0 {
			t.Errorf("the default backend was asked %d times", c)
		}
	})

	t.Run("a Service without endpoints: the default-backend annotation's Service answers", func(t *testing.T) {
		a := n.getPage(t, "down.example.com", "/orders/7", "Accept", "text/html", "X-Request-ID", "req-down")
		if a.status != 503 || !a.errorPage {
			t.Fatalf("GET /orders/7: %d %q, want 503 from the default backend", a.status, a.body)
		}
		want := map[string]string{
			"X-Code": "503", "X-Format": "text/html", "X-Original-Uri": "", // as ingress-nginx's: not without proxy-add-original-uri-header
			"X-Namespace": "e2e", "X-Ingress-Name": "down", "X-Service-Name": "scaled-down", "X-Service-Port": "80",
			"X-Request-Id": "req-down",
		}
		for k, w := range want {
			if a.got[k] != w {
				t.Errorf("default backend got %s %q, want %q", k, a.got[k], w)
			}
		}
	})

	t.Run("no endpoints and 503 listed: the controller's default backend renders it", func(t *testing.T) {
		a := n.getPage(t, "down-pages.example.com", "/x", "X-Request-ID", "req-dp")
		if a.status != 503 || !a.errorPage || a.got["X-Code"] != "503" || a.got["X-Service-Name"] != "scaled-down" || a.got["X-Ingress-Name"] != "down-pages" {
			t.Errorf("GET /x: %d %q, want 503 rendered by the default backend for scaled-down", a.status, a.body)
		}
	})

	t.Run("the ConfigMap's list applies without the annotation", func(t *testing.T) {
		a := n.getPage(t, "global.example.com", "/status/500", "X-Request-ID", "req-g")
		if a.status != 500 || !a.errorPage || a.got["X-Code"] != "500" || a.got["X-Ingress-Name"] != "global" || a.got["X-Request-Id"] != "req-g" {
			t.Errorf("GET /status/500: %d %q, want 500 from the controller's default backend", a.status, a.body)
		}
		// The annotation's list replaces the ConfigMap's.
		if a := n.getPage(t, "pages.example.com", "/status/500"); a.errorPage {
			t.Errorf("pages.example.com /status/500 was rendered: the annotation's 404,503 replace the ConfigMap's 500")
		}
	})

	t.Run("no rule matches: the controller's default backend answers with X-Code 404", func(t *testing.T) {
		a := n.getPage(t, "nowhere.example.com", "/some/page", "Accept", "text/plain", "X-Request-ID", "req-none")
		if a.status != 404 || !a.errorPage {
			t.Fatalf("GET nowhere.example.com/some/page: %d %q, want 404 from the default backend", a.status, a.body)
		}
		for k, w := range map[string]string{"X-Code": "404", "X-Format": "text/plain", "X-Original-Uri": "/some/page", "X-Request-Id": "req-none"} {
			if a.got[k] != w {
				t.Errorf("default backend got %s %q, want %q", k, a.got[k], w)
			}
		}
	})
}

// TestErrorPagesBuiltinDefaultBackend: without a default backend Service
// the listed codes become the built-in default backend's 404, as
// ingress-nginx's own default backend answers every request.
func TestErrorPagesBuiltinDefaultBackend(t *testing.T) {
	appPort := statusBackend(t)
	manifests := serviceOf("app", &backend{port: appPort}) + `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: teapot
  namespace: e2e
  annotations: {nginx.ingress.kubernetes.io/custom-http-errors: "418"}
spec:
  ingressClassName: nginx
  rules:
  - host: teapot.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}
`
	n := startNginx(t, manifests)
	if a := n.getPage(t, "teapot.example.com", "/status/418"); a.status != 404 || strings.Contains(a.body, "app 418") {
		t.Errorf("GET /status/418: %d %q, want the built-in default backend's 404", a.status, a.body)
	}
	if a := n.getPage(t, "teapot.example.com", "/status/503"); a.status != 503 || a.body != "app 503" {
		t.Errorf("GET /status/503: %d %q, want the backend's own 503", a.status, a.body)
	}
}
