package nginxconf_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestNGINXConfWithOwnersSameBytes: recording the owners never changes a
// byte, for every golden case.
func TestNGINXConfWithOwnersSameBytes(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/render/*/input.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range dirs {
		res, err := manifest.Read([]string{in}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := render.Build(res.Snapshot, render.DefaultOptions())
		for _, routing := range nginxconf.RoutingModes {
			o := nginxconf.DefaultConfOptions()
			o.Routing = routing
			want, err := nginxconf.NGINXConf(cfg, o)
			if err != nil {
				t.Fatal(err)
			}
			got, owners, err := nginxconf.NGINXConfWithOwners(cfg, o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, --routing=%s: NGINXConfWithOwners wrote other bytes than NGINXConf", in, routing)
			}
			// In Lua routing only the classic hosts have server blocks.
			servers := len(cfg.Servers)
			if routing == nginxconf.RoutingLua {
				_, classic := nginxconf.LuaHosts(cfg)
				servers = len(classic)
			}
			if owners.Blocks() < servers-1 {
				t.Errorf("%s, --routing=%s: %d blocks recorded for %d servers", in, routing, owners.Blocks(), servers)
			}
		}
	}
}

// ownersSnapshot reads three Ingresses of class nginx, each with one
// Prefix path to web:80: one/a (/a) and one/b (/b, limit-rps 5) share
// shared.example.com; two/c has own.example.com (/) alone.
func ownersSnapshot(t *testing.T) render.Snapshot {
	t.Helper()
	var docs []string
	for _, ing := range []struct{ ns, name, day, annotations, host, path string }{
		{"one", "a", "01", "", "shared.example.com", "/a"},
		{"one", "b", "02", `{nginx.ingress.kubernetes.io/limit-rps: "5"}`, "shared.example.com", "/b"},
		{"two", "c", "03", "", "own.example.com", "/"},
	} {
		annotations := ""
		if ing.annotations != "" {
			annotations = "\n  annotations: " + ing.annotations
		}
		docs = append(docs, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
  namespace: %s
  creationTimestamp: "2026-01-%sT00:00:00Z"%s
spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: %s, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`, ing.name, ing.ns, ing.day, annotations, ing.host, ing.path))
	}
	res, err := manifest.Combine(manifest.Parse([]manifest.Data{{Name: "in.yaml", Bytes: []byte(strings.Join(docs, "---\n"))}}, manifest.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

// TestConfOwnersAt: a location line belongs to its path's Ingress, a
// server's own line to every Ingress with a path on the host, a zone line
// to its Ingress, a global line to none.
func TestConfOwnersAt(t *testing.T) {
	cfg, _ := render.Build(ownersSnapshot(t), render.DefaultOptions())
	conf, owners, err := nginxconf.NGINXConfWithOwners(cfg, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(conf), "\n")
	ing := func(ns, name string) model.ObjectRef {
		return model.ObjectRef{Kind: "Ingress", Namespace: ns, Name: name}
	}
	a, b, c := ing("one", "a"), ing("one", "b"), ing("two", "c")
	// lineOf finds the n-th line (0-based) that holds substr, after the
	// first line that holds after.
	lineOf := func(after, substr string) int {
		t.Helper()
		started := after == ""
		for i, l := range lines {
			if !started {
				started = strings.Contains(l, after)
				continue
			}
			if strings.Contains(l, substr) {
				return i + 1
			}
		}
		t.Fatalf("no line %q after %q in:\n%s", substr, after, conf)
		return 0
	}
	for _, tc := range []struct {
		name          string
		line          int
		want          []model.ObjectRef
		host, locPref string
	}{
		{"location line", lineOf("", `location "/a/"`), []model.ObjectRef{a}, "shared.example.com", `"/a/"`},
		{"inside a location", lineOf(`location "/b/"`, "proxy_pass"), []model.ObjectRef{b}, "shared.example.com", `"/b/"`},
		{"closing brace of a location", lineOf(`location "/b/"`, "}"), []model.ObjectRef{b}, "shared.example.com", `"/b/"`},
		{"shared server_name", lineOf("", `server_name "shared.example.com"`), []model.ObjectRef{a, b}, "shared.example.com", ""},
		{"fallback location of a shared host", lineOf(`server_name "shared.example.com"`, `location "/" {`), []model.ObjectRef{a, b}, "shared.example.com", ""},
		{"own server_name", lineOf("", `server_name "own.example.com"`), []model.ObjectRef{c}, "own.example.com", ""},
		{"zone of an Ingress", lineOf("", "limit_req_zone"), []model.ObjectRef{b}, "", ""},
	} {
		got, ok := owners.At(tc.line)
		if !ok {
			t.Errorf("%s (line %d %q): no owner", tc.name, tc.line, lines[tc.line-1])
			continue
		}
		if !slices.Equal(got.Ingresses, tc.want) || got.Host != tc.host || !strings.HasPrefix(got.Location, tc.locPref) {
			t.Errorf("%s (line %d %q): got %+v, want %v on host %q location %q", tc.name, tc.line, lines[tc.line-1], got, tc.want, tc.host, tc.locPref)
		}
		if got.First > tc.line || got.Last < tc.line {
			t.Errorf("%s: line %d outside the block's lines %d–%d", tc.name, tc.line, got.First, got.Last)
		}
	}
	for _, global := range []string{"worker_processes", "server_names_hash_bucket_size", "proxy_http_version", "stub_status"} {
		if got, ok := owners.At(lineOf("", global)); ok {
			t.Errorf("global line %q has owners %+v", global, got)
		}
	}
	if _, ok := owners.At(len(lines) + 5); ok {
		t.Error("a line past the end has an owner")
	}
}

// TestBuildQuarantined: a quarantined Ingress is left out whole, with one
// Problem quoting nginx; a host it shares keeps the others' paths.
func TestBuildQuarantined(t *testing.T) {
	o := render.DefaultOptions()
	a := model.ObjectRef{Kind: "Ingress", Namespace: "one", Name: "a"}
	c := model.ObjectRef{Kind: "Ingress", Namespace: "two", Name: "c"}
	o.Quarantined = map[model.ObjectRef]string{a: `pcre2_compile() failed: regular expression is too large in "^/x"`, c: "m"}
	cfg, problems := render.Build(ownersSnapshot(t), o)
	if s := cfg.Server("shared.example.com"); s == nil || len(s.Locations) != 1 || s.Locations[0].Path != "/b" {
		t.Errorf("shared host: %+v, want only /b of one/b", s)
	}
	if s := cfg.Server("own.example.com"); s != nil {
		t.Errorf("the host only the quarantined Ingress had is still served: %+v", s)
	}
	var got []string
	for _, p := range problems {
		if strings.HasPrefix(p.Reason, render.QuarantineReason) {
			got = append(got, p.String())
		}
	}
	want := []string{
		`ingress one/a: metadata: quarantined: nginx -t: pcre2_compile() failed: regular expression is too large in "^/x"`,
		`ingress two/c: metadata: quarantined: nginx -t: m`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
