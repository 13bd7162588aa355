package e2e

// The catch-all server's health check location (model.HealthzPath), as
// ingress-nginx's default server has it: load balancers probe
// http://<address>/healthz on the HTTP port.

import (
	"net/http"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/trace"
)

// TestCatchAllHealthz: a request for /healthz (and longer paths under that
// prefix) to a host no Ingress serves gets 200 with no body, in both
// modes, and trace says so; a host's own paths are untouched, and a path
// of the catch-all's own Ingress that nginx would match first (the exact
// /healthz of a Prefix path, a longer prefix) wins, as nginx matches them.
func TestCatchAllHealthz(t *testing.T) {
	web := startBackend(t, "web", 0)
	n := startNginx(t, serviceOf("web", web)+
		ingressOf("site", "site.example.com", "web", "2026-01-01T00:00:00Z", nil)+
		nsIngressOf("e2e", "no-host-status", "2026-01-01T00:00:01Z", "", "Prefix", "/healthz/status", "web"))
	n.requireLuaRouted(t, "site.example.com", model.CatchAllHost)
	for _, c := range []struct {
		host, path string
		status     int
		body       string // "" for none; else the backend's answer
	}{
		{"unknown.example.com", "/healthz", 200, ""},
		{"unknown.example.com", "/healthz?probe=1", 200, ""},
		{"unknown.example.com", "/healthzz", 200, ""}, // a prefix location, as ingress-nginx's
		{"unknown.example.com", "/healthz/status", 200, "web /healthz/status"},
		{"unknown.example.com", "/healthy", 404, ""},
		{"unknown.example.com", "/", 404, ""},
		{"site.example.com", "/healthz", 200, "web /healthz"}, // the host's own "/"
	} {
		resp, body := n.call(t, http.MethodGet, c.host, c.path, "")
		if resp.StatusCode != c.status {
			t.Errorf("GET %s%s: %d, want %d", c.host, c.path, resp.StatusCode, c.status)
			continue
		}
		if c.status == 200 && string(body) != c.body {
			t.Errorf("GET %s%s: body %q, want %q", c.host, c.path, body, c.body)
		}
		d := trace.Route(n.config, trace.Request{Host: c.host, Target: c.path, Port: n.httpPort})
		want := c.body == "" && c.status == 200
		if got := d.Location != nil && d.Location.Match == trace.MatchHealthz; got != want {
			t.Errorf("trace %s%s: health check location %v, want %v (%+v)", c.host, c.path, got, want, d.Outcome)
		}
	}
}
