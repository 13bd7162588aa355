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
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// nsServiceOf is a Service of namespace ns whose one endpoint is the
// loopback backend be.
func nsServiceOf(ns, name string, be *backend) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-1
  namespace: %[2]s
  labels: {kubernetes.io/service-name: %[1]s}
addressType: IPv4
ports: [{name: http, port: %[3]d}]
endpoints: [{addresses: ["127.0.0.1"], conditions: {ready: true}}]
---
`, name, ns, be.port)
}

// nsIngressOf is an Ingress of namespace ns on host with one path to
// service:80 and the annotations given (without their prefix).
func nsIngressOf(ns, name, created, host, pathType, path, service string, annotations ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: %s\n  creationTimestamp: %q\n", name, ns, created)
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n")
		for i := 0; i+1 < len(annotations); i += 2 {
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", annotations[i], annotations[i+1])
		}
	}
	fmt.Fprintf(&b, `spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: %q, pathType: %s, backend: {service: {name: %s, port: {number: 80}}}}
---
`, host, path, pathType, service)
	return b.String()
}

// reloadTo renders manifests with o as the controller would after a change
// that needs a reload, reloads nginx (which returns once the new
// configuration serves on every worker) and pushes the backends and
// servers.
func (n *liveNginx) reloadTo(t *testing.T, manifests string, o render.Options) {
	t.Helper()
	cfg, problems := buildConfigWith(t, manifests, o)
	conf, err := render.NGINXConf(cfg, n.confOpts)
	if err != nil {
		t.Fatal(err)
	}
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
	n.conf, n.config, n.problems = conf, cfg, problems
}

func TestCrossNamespaceHostSharing(t *testing.T) {
	requireNginx(t)
	const host = "shared.example.com"
	adminBE := startBackend(t, "team-a-admin", 0)
	secretBE := startBackend(t, "team-a-secret", 0)
	takeoverBE := startBackend(t, "team-b", 0)
	older := nsServiceOf("team-a", "admin", adminBE) + nsServiceOf("team-a", "secret", secretBE) +
		nsIngressOf("team-a", "admin", "2026-01-01T00:00:00Z", host, "Prefix", "/admin", "admin") +
		nsIngressOf("team-a", "secret", "2026-01-01T00:00:00Z", host, "Prefix", "/secret", "secret",
			"allowlist-source-range", "10.0.0.0/8")
	younger := nsServiceOf("team-b", "takeover", takeoverBE) +
		nsIngressOf("team-b", "takeover", "2026-02-01T00:00:00Z", host, "ImplementationSpecific", "/(admin|secret).*", "takeover",
			"use-regex", "true") +
		nsIngressOf("team-b", "pages", "2026-02-01T00:00:00Z", host, "Prefix", "/b", "takeover")

	// want is the status and, for a 200, the backend of one request.
	type want struct {
		path    string
		status  int
		backend string
	}
	check := func(t *testing.T, n *liveNginx, what string, wants []want) {
		t.Helper()
		c := newClient(1)
		for _, w := range wants {
			r := send(c, n.request(host, w.path))
			if r.err != nil || r.status != w.status || r.backend != w.backend {
				t.Errorf("%s: GET %s: %d %q (%v), want %d %q", what, w.path, r.status, r.backend, r.err, w.status, w.backend)
			}
		}
	}
	before := []want{
		{"/secret", http.StatusForbidden, ""},
		{"/secret/x", http.StatusForbidden, ""},
		{"/admin", http.StatusOK, "team-a-admin"},
		{"/admin/x", http.StatusOK, "team-a-admin"},
		{"/ADMIN", http.StatusNotFound, ""},
		{"/b/x", http.StatusNotFound, ""},
		{"/B/x", http.StatusNotFound, ""},
	}
	for _, tc := range []struct {
		name  string
		allow bool
		after []want
	}{
		{"default", false, []want{
			{"/secret", http.StatusForbidden, ""},
			{"/secret/x", http.StatusForbidden, ""},
			{"/admin", http.StatusOK, "team-a-admin"},
			{"/admin/x", http.StatusOK, "team-a-admin"},
			{"/ADMIN", http.StatusNotFound, ""}, // team-a's paths stay case-sensitive prefixes
			{"/b/x", http.StatusOK, "team-b"},   // team-b's Ingress arrived: its other path serves
			{"/B/x", http.StatusOK, "team-b"},   // as a regex (use-regex in its namespace)
		}},
		{"allow-cross-namespace-host-sharing", true, []want{
			{"/secret", http.StatusOK, "team-b"}, // past team-a's allowlist
			{"/secret/x", http.StatusOK, "team-b"},
			{"/admin", http.StatusOK, "team-b"},
			{"/admin/x", http.StatusOK, "team-b"},
			{"/ADMIN", http.StatusOK, "team-b"},
			{"/b/x", http.StatusOK, "team-b"},
			{"/B/x", http.StatusOK, "team-b"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := render.DefaultOptions()
			o.AllowCrossNamespaceHostSharing = tc.allow
			n := startNginxWith(t, older, nginxOptions{build: &o})
			check(t, n, "before team-b's Ingress", before)

			n.reloadTo(t, older+younger, o)
			check(t, n, "after team-b's Ingress", tc.after)

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
