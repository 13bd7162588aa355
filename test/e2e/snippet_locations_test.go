package e2e

// A server-snippet's answering locations (a return, deny all) served in
// both routing modes: in Lua routing as routes of their host, after its
// Ingress paths, with nginx's location rules (= exact, ^~ stopping the
// regexes, ~ case-sensitive, ~* not), and the same answers as the classic
// server block's, bodies included.

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

func TestServerSnippetLocations(t *testing.T) {
	snippet := `server_tokens off;
location ~ ^/(ping|ready) { deny all; return 404; }
location ^~ /internal/ { deny all; }
location ~* \.php$ { return 403 "no php here"; }
location /status { return 200 "ok"; }
location = /gone { return 410; }
`
	m := serviceYAML("web", uriBackend(t, "web")) +
		luaIngress("api", "api.example.com", false, map[string]string{"server-snippet": snippet}, "Prefix / web", "Prefix /app web")
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startRoutedNginx(t, m, mode, "api.example.com")
			for _, tc := range []struct {
				path   string
				status int
				body   string // a part of the body
			}{
				{"/ping", http.StatusNotFound, "404 Not Found"},
				{"/PING", http.StatusOK, "web /PING"}, // "~" is case-sensitive
				{"/internal/a", http.StatusForbidden, "403 Forbidden"},
				{"/internal/a.php", http.StatusForbidden, "403 Forbidden"}, // ^~: no regex after it
				{"/app/index.PHP", http.StatusForbidden, "no php here"},    // a regex before the longest prefix
				{"/status/x", http.StatusOK, "ok"},
				{"/gone", http.StatusGone, "410 Gone"},
				{"/gone/x", http.StatusOK, "web /gone/x"},
				{"/app/x", http.StatusOK, "web /app/x"},
			} {
				status, body := n.get(t, "api.example.com", tc.path)
				if status != tc.status || !strings.Contains(body, tc.body) {
					t.Errorf("GET %s: %d %q, want %d with %q", tc.path, status, body, tc.status, tc.body)
				}
			}
		})
	}
}

// TestServerSnippetBodySize: a server-snippet's client_max_body_size
// limits the snippet's own locations, not the Ingress paths nor the
// fallback "/", which keep their proxy-body-size or the ConfigMap's (as
// in ingress-nginx, whose every location writes its own), in both routing
// modes (in Lua routing the host stays Lua-routed).
func TestServerSnippetBodySize(t *testing.T) {
	m := serviceYAML("web", uriBackend(t, "web")) +
		luaIngress("small", "up.example.com", false, map[string]string{"server-snippet": "client_max_body_size 100;\nlocation = /upload { return 200 \"ok\"; }"}, "Prefix /small web") +
		luaIngress("big", "up.example.com", false, map[string]string{"proxy-body-size": "1m"}, "Prefix /big web") +
		luaIngress("moved", "up.example.com", false, map[string]string{"permanent-redirect": "https://elsewhere.example.com/"}, "Prefix /moved web")
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startRoutedNginx(t, m, mode, "up.example.com")
			for _, tc := range []struct {
				path   string
				size   int
				status int
			}{
				{"/upload", 100, http.StatusOK},
				{"/upload", 200, http.StatusRequestEntityTooLarge},
				{"/small/a", 200, http.StatusOK}, // the ConfigMap's 1m
				{"/big/a", 200, http.StatusOK},
				{"/other", 200, http.StatusNotFound},         // the fallback: 1m too
				{"/moved", 200, http.StatusMovedPermanently}, // a redirecting location: 1m too
			} {
				req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+tc.path, strings.NewReader(strings.Repeat("x", tc.size)))
				if err != nil {
					t.Fatal(err)
				}
				req.Host = "up.example.com"
				resp, err := (&http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
				if err != nil {
					t.Fatalf("POST %s: %v", tc.path, err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("POST %s with %d bytes: %d, want %d", tc.path, tc.size, resp.StatusCode, tc.status)
				}
			}
		})
	}
}
