package e2e

// A host shared by two namespaces, with real traffic: team-a's older
// Ingresses serve /admin and, behind an allowlist that loopback is not in,
// /secret; then team-b's younger Ingress arrives (a reload) with use-regex
// and a path that matches both. By default team-a keeps /secret (403) and
// /admin (its own backend), its paths stay case-sensitive prefixes, and
// team-b gets only its path that no team-a path serves (/b, a
// case-insensitive regex as team-b asked). With
// --allow-cross-namespace-host-sharing nginx routes as ingress-nginx does:
// team-b takes /admin and /secret past the allowlist, and /ADMIN too.

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// reloadTo renders manifests with o as the controller would after a change
// that needs a reload, reloads nginx, pushes the backends and servers, and
// waits until the workers from before are gone (so that no request can
// reach the old configuration).
func (n *liveNginx) reloadTo(t *testing.T, manifests string, o render.Options) {
	t.Helper()
	old, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	cfg, problems := buildConfigWith(t, manifests, o)
	state, err := ksync.DesiredState(cfg, n.confOpts)
	if err != nil {
		t.Fatal(err)
	}
	conf := state.NGINXConf
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.inst.Reload(ctx, conf); err != nil {
		t.Fatal(err)
	}
	backends, servers := luaapi.FromModel(cfg)
	if err := n.lua.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	if err := n.lua.PostServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	running := n.routes
	n.routes = state.Routes
	n.postRoutes(t, ctx, running)
	n.conf, n.config, n.problems = conf, cfg, problems
	waitWorkersGone(t, n.inst, old)
}

// waitWorkersGone waits until none of the worker pids old remains: the
// workers of the previous configuration have closed their listeners at
// once and exit when their connections end (idle ones are closed here).
// Only then does every new connection reach the new configuration.
func waitWorkersGone(t *testing.T, inst *nginx.Instance, old []int) {
	t.Helper()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	waitFor(t, 20*time.Second, "the workers of the previous configuration to exit", func() bool {
		now, err := inst.WorkerPids()
		return err == nil && !slices.ContainsFunc(now, func(p int) bool { return slices.Contains(old, p) })
	})
}

// sharedHost is the host of the cross-namespace tests.
const sharedHost = "shared.example.com"

// teamManifests are team-a's older Ingresses (/admin; /secret behind an
// allowlist that loopback is not in) and team-b's younger ones (a
// use-regex path that matches both, and /b), with their loopback
// backends.
func teamManifests(t *testing.T) (older, younger string) {
	adminBE := startBackend(t, "team-a-admin", 0)
	secretBE := startBackend(t, "team-a-secret", 0)
	takeoverBE := startBackend(t, "team-b", 0)
	older = nsServiceOf("team-a", "admin", adminBE) + nsServiceOf("team-a", "secret", secretBE) +
		nsIngressOf("team-a", "admin", "2026-01-01T00:00:00Z", sharedHost, "Prefix", "/admin", "admin") +
		nsIngressOf("team-a", "secret", "2026-01-01T00:00:00Z", sharedHost, "Prefix", "/secret", "secret",
			"allowlist-source-range", "10.0.0.0/8")
	younger = nsServiceOf("team-b", "takeover", takeoverBE) +
		nsIngressOf("team-b", "takeover", "2026-02-01T00:00:00Z", sharedHost, "ImplementationSpecific", "/(admin|secret).*", "takeover",
			"use-regex", "true") +
		nsIngressOf("team-b", "pages", "2026-02-01T00:00:00Z", sharedHost, "Prefix", "/b", "takeover")
	return older, younger
}

// sharingWant is the status and, for a 200, the backend of one request.
type sharingWant struct {
	path    string
	status  int
	backend string
}

// Before team-b's Ingresses; after them by default and with the flag.
var (
	sharingBefore = []sharingWant{
		{"/secret", http.StatusForbidden, ""},
		{"/secret/x", http.StatusForbidden, ""},
		{"/admin", http.StatusOK, "team-a-admin"},
		{"/admin/x", http.StatusOK, "team-a-admin"},
		{"/ADMIN", http.StatusNotFound, ""},
		{"/b/x", http.StatusNotFound, ""},
		{"/B/x", http.StatusNotFound, ""},
	}
	sharingAfter = []sharingWant{
		{"/secret", http.StatusForbidden, ""},
		{"/secret/x", http.StatusForbidden, ""},
		{"/admin", http.StatusOK, "team-a-admin"},
		{"/admin/x", http.StatusOK, "team-a-admin"},
		{"/ADMIN", http.StatusNotFound, ""}, // team-a's paths stay case-sensitive prefixes
		{"/b/x", http.StatusOK, "team-b"},   // team-b's Ingresses arrived: its other path serves
		{"/B/x", http.StatusOK, "team-b"},   // as a regex (use-regex in its namespace)
	}
	sharingAfterAllowed = []sharingWant{
		{"/secret", http.StatusOK, "team-b"}, // past team-a's allowlist
		{"/secret/x", http.StatusOK, "team-b"},
		{"/admin", http.StatusOK, "team-b"},
		{"/admin/x", http.StatusOK, "team-b"},
		{"/ADMIN", http.StatusOK, "team-b"},
		{"/b/x", http.StatusOK, "team-b"},
		{"/B/x", http.StatusOK, "team-b"},
	}
)

// sharingCase is a run of the cross-namespace tests: by default, or with
// --allow-cross-namespace-host-sharing (allow).
type sharingCase struct {
	name  string
	allow bool
	after []sharingWant
}

var sharingCases = []sharingCase{
	{"default", false, sharingAfter},
	{"allow-cross-namespace-host-sharing", true, sharingAfterAllowed},
}

// options are the build options of the case.
func (c sharingCase) options() render.Options {
	o := render.DefaultOptions()
	o.AllowCrossNamespaceHostSharing = c.allow
	return o
}

// checkSharing sends each request on a new connection to the HTTP port
// and compares the answers.
func checkSharing(t *testing.T, httpPort int, what string, wants []sharingWant) {
	t.Helper()
	n := &liveNginx{httpPort: httpPort}
	c := newClient(1)
	for _, w := range wants {
		r := send(c, n.request(sharedHost, w.path))
		if r.err != nil || r.status != w.status || r.backend != w.backend {
			t.Errorf("%s: GET %s: %d %q (%v), want %d %q", what, w.path, r.status, r.backend, r.err, w.status, w.backend)
		}
	}
	c.CloseIdleConnections() // no connection keeps a worker of this configuration
}

func TestCrossNamespaceHostSharing(t *testing.T) {
	nginxtest.Require(t)
	older, younger := teamManifests(t)
	for _, tc := range sharingCases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.options()
			n := startNginxWith(t, older, nginxOptions{build: &o})
			checkSharing(t, n.httpPort, "before team-b's Ingresses", sharingBefore)

			n.reloadTo(t, older+younger, o)
			checkSharing(t, n.httpPort, "after team-b's Ingresses", tc.after)

			var taken []string
			for _, p := range n.problems {
				if strings.Contains(p.Reason, "would take requests") {
					taken = append(taken, p.String())
				}
			}
			switch {
			case tc.allow && len(taken) > 0:
				t.Errorf("Problems with the flag: %v", taken)
			case !tc.allow && (len(taken) != 1 || !strings.Contains(taken[0], "ingress team-b/takeover: spec.rules[0].http.paths[0].path:")):
				t.Errorf("want one Problem on team-b/takeover's path, got %v", taken)
			}
		})
	}
}

// TestCrossNamespaceHostSharingFilesController runs the same through the
// controller loop on the files source: team-b's manifests are written while
// it serves team-a's, and the flag reaches the loop through
// controller.Config.Build.
func TestCrossNamespaceHostSharingFilesController(t *testing.T) {
	nginxtest.Require(t)
	older, younger := teamManifests(t)
	for _, tc := range sharingCases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.options()
			fc := startFilesControllerWith(t, map[string]string{"team-a.yaml": older}, controllerOptions{debounce: 20 * time.Millisecond, build: &o, routing: nginxconf.RoutingNginx})
			fc.eventuallyServes(t, 20*time.Second, sharedHost, "/admin", http.StatusOK, "team-a-admin")
			checkSharing(t, fc.httpPort, "before team-b's Ingresses", sharingBefore)

			old, err := fc.inst.WorkerPids()
			if err != nil {
				t.Fatal(err)
			}
			fc.write(t, "team-b.yaml", younger)
			// Arrived: team-b's own path serves (after a reload), and the
			// workers of team-a's configuration alone are gone.
			fc.eventuallyServes(t, 20*time.Second, sharedHost, "/b/x", http.StatusOK, "team-b")
			waitWorkersGone(t, fc.inst, old)
			checkSharing(t, fc.httpPort, "after team-b's Ingresses", tc.after)
		})
	}
}
