package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The diff examples of README.md are run: scaled/ and reload/ are made
// from examples/ as README says, and the console blocks must show what
// diff prints (the reload example up to its "…"). -update rewrites them.
func TestREADMEDiffExamples(t *testing.T) {
	const readme = "../../README.md"
	dir := t.TempDir()
	copyExamples := func(name string, edit func(shop string) string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob("../../examples/*.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if filepath.Base(f) == "10-shop.yaml" {
				if s2 := edit(s); s2 != s {
					s = s2
				} else {
					t.Fatalf("%s: the edit of 10-shop.yaml changed nothing: examples/ changed?", name)
				}
			}
			writeFile(t, filepath.Join(out, filepath.Base(f)), s)
		}
		return out
	}
	// One more endpoint: the EndpointSlice of shop/web has a second address.
	scaled := copyExamples("scaled", func(s string) string {
		return strings.Replace(s, "endpoints:\n- addresses: [\"127.0.0.1\"]\n  conditions: {ready: true}\n",
			"endpoints:\n- addresses: [\"127.0.0.1\"]\n  conditions: {ready: true}\n- addresses: [\"127.0.0.2\"]\n  conditions: {ready: true}\n", 1)
	})
	// A new path, a longer timeout and a snippet with a directive outside
	// the allowlist.
	reload := copyExamples("reload", func(s string) string {
		s = strings.Replace(s, `    nginx.ingress.kubernetes.io/proxy-read-timeout: "120"`, `    nginx.ingress.kubernetes.io/proxy-read-timeout: "300"
    nginx.ingress.kubernetes.io/configuration-snippet: |
      more_set_headers "X-Shop: 1";
      lua_need_request_body on;`, 1)
		return strings.Replace(s, "          service: {name: api, port: {number: 8000}}\n",
			"          service: {name: api, port: {number: 8000}}\n      - path: /cart\n        pathType: Prefix\n        backend:\n          service: {name: api, port: {number: 8000}}\n", 1)
	})
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, ex := range []struct {
		command  string
		args     []string
		wantCode int
	}{
		{"$ kubectl ingress diff --from examples/ --to scaled/", []string{"diff", "--from", "../../examples", "--to", scaled}, diffExitDynamic},
		{"$ kubectl ingress diff --from examples/ --to reload/ --color never", []string{"diff", "--from", "../../examples", "--to", reload, "--color", "never"}, diffExitDynamic},
		{"$ kubectl ingress diff --from examples/ --to reload/ --routing=nginx --color never", []string{"diff", "--from", "../../examples", "--to", reload, "--routing=nginx", "--color", "never"}, diffExitReload},
	} {
		code, out, errOut := runCmd(t, "", ex.args...)
		if code != ex.wantCode {
			t.Fatalf("%s: exit %d, want %d: %s", ex.command, code, ex.wantCode, errOut)
		}
		start := strings.Index(doc, ex.command+"\n")
		if start < 0 {
			t.Fatalf("README.md lacks %q", ex.command)
		}
		start += len(ex.command) + 1
		end := strings.Index(doc[start:], "$ echo $?\n")
		if end < 0 {
			t.Fatalf("README.md: no '$ echo $?' after %q", ex.command)
		}
		shown := doc[start : start+end]
		want := out
		if cut, ok := strings.CutSuffix(shown, "…\n"); ok {
			// Up to the ellipsis: as many lines as shown.
			n := strings.Count(cut, "\n")
			lines := strings.SplitAfter(out, "\n")
			want = strings.Join(lines[:min(n, len(lines))], "") + "…\n"
		}
		if shown == want {
			continue
		}
		if !*update {
			t.Errorf("README.md's output of %q is not what diff prints now (go test ./cmd/kubectl-ingress -run TestREADMEDiffExamples -update):\n%s", ex.command, want)
			continue
		}
		doc = doc[:start] + want + doc[start+end:]
	}
	if *update && doc != string(b) {
		if err := os.WriteFile(readme, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
