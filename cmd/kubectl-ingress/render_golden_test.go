package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"

	"github.com/spf13/pflag"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing")

const renderGoldenDir = "../../testdata/render"

// TestRenderGolden renders every case under testdata/render/<case>/: the
// manifests in input.yaml (with the render flags in flags.txt, if any) must
// give exactly the nginx.conf, backends.json, servers.json and problems.txt
// beside them, and the nginx.conf must pass a real nginx -t.
func TestRenderGolden(t *testing.T) {
	cases, err := os.ReadDir(renderGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(renderGoldenDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			out := renderCase(t, dir)
			files := map[string][]byte{
				"nginx.conf":    out.NGINXConf,
				"backends.json": out.Backends,
				"servers.json":  out.Servers,
				"problems.txt":  out.problemsText(),
			}
			if out.Stream != nil {
				files["stream.json"] = out.Stream
			}
			// The files nginx.conf names (files/…), as render -o writes them.
			for _, f := range out.confFiles() {
				files[f.name] = f.data
				if *update {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.name)), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			for name, got := range files {
				compareGolden(t, filepath.Join(dir, name), got)
			}
			nginxtest.Require(t)
			if err := validateConfFiles(context.Background(), "nginx", out.NGINXConf, out.Config.Files); err != nil {
				t.Errorf("nginx -t failed on %s/nginx.conf: %v", dir, err)
			}
		})
	}
	if n < 25 {
		t.Errorf("only %d golden cases under %s, want at least 25", n, renderGoldenDir)
	}
}

func renderCase(t *testing.T, dir string) *rendered {
	t.Helper()
	flags := reportingRenderFlags() // as the command: skipped input reported
	// The goldens are the classic writer's (the Lua router is held to
	// them by the trace differential); a case's flags.txt may say
	// --routing=lua.
	flags.Routing = nginxconf.RoutingNginx
	if raw, err := os.ReadFile(filepath.Join(dir, "flags.txt")); err == nil {
		fs := pflag.NewFlagSet("golden", pflag.ContinueOnError)
		flags.AddFlags(fs)
		if err := fs.Parse(strings.Fields(string(raw))); err != nil {
			t.Fatalf("%s/flags.txt: %v", dir, err)
		}
	}
	if err := flags.Validate(); err != nil {
		t.Fatalf("%s/flags.txt: %v", dir, err)
	}
	res, err := manifest.Read([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := renderBundle(res.Snapshot, flags)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./cmd/kubectl-ingress -run TestRenderGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendered output (run with -update to accept):\n%s", path, firstDifference(want, got))
	}
}

// firstDifference shows the first differing line with a little context.
func firstDifference(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(same lines, different bytes)"
}
