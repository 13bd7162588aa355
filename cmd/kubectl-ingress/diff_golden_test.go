package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const diffGoldenDir = "../../testdata/diff"

// diffVerdicts pins the verdict of every golden case, so that a golden
// rewritten with -update cannot drift to a wrong verdict unnoticed.
var diffVerdicts = map[string]string{
	"none":                    "no change",
	"gm-none":                 "no change",
	"endpoints-added":         "dynamic only",
	"endpoints-removed":       "dynamic only",
	"endpoint-terminating":    "dynamic only",
	"target-port":             "dynamic only",
	"gm-endpoints":            "dynamic only",
	"annotation-load-balance": "dynamic only",
	"affinity-added":          "dynamic only",
	"canary-weight":           "dynamic only",
	"cert-rotated":            "dynamic only",
	"gm-cert":                 "dynamic only",
	"path-added":              "reload required",
	"path-removed":            "reload required",
	"gm-path":                 "reload required",
	"host-added":              "reload required",
	"annotation-body-size":    "reload required",
	"gm-annotation":           "reload required",
	"canary-removed":          "dynamic only", // the former canary now conflicts with the primary and is dropped
	"configmap-key":           "reload required",
	"service-port-in-ingress": "reload required",
	"tls-removed":             "reload required",
	"problem-introduced":      "reload required",
	"ingress-class-changed":   "reload required",
	"htpasswd-edited":         "dynamic only",    // the htpasswd file is rewritten; nginx reads it per request
	"client-ca-rotated":       "reload required", // nginx reads the CA at load: a new file name in nginx.conf
}

var verdictExit = map[string]int{"no change": 0, "dynamic only": 1, "reload required": 2}

// TestDiffGolden runs "kubectl ingress diff --from old --to new" on every
// case under testdata/diff/<case>/ and compares the text and JSON reports
// with expected.txt and expected.json; the exit status must match the verdict.
func TestDiffGolden(t *testing.T) {
	cases, err := os.ReadDir(diffGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		seen++
		name := c.Name()
		dir := filepath.Join(diffGoldenDir, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, ok := diffVerdicts[name]
			if !ok {
				t.Fatalf("add the expected verdict of %s to diffVerdicts", name)
			}
			// the classic writer's verdicts (TestDiffRoutingLua holds lua's)
			args := []string{"diff", "--routing", "nginx", "--from", filepath.Join(dir, "old"), "--to", filepath.Join(dir, "new")}
			code, text, errOut := runCmd(t, "", append(args, "--color", "never")...)
			if code != verdictExit[want] {
				t.Errorf("exit %d, want %d (%s); stderr: %s", code, verdictExit[want], want, errOut)
			}
			compareGolden(t, filepath.Join(dir, "expected.txt"), []byte(text))
			code, js, _ := runCmd(t, "", append(args, "-o", "json")...)
			if code != verdictExit[want] {
				t.Errorf("-o json: exit %d, want %d", code, verdictExit[want])
			}
			var report struct {
				Verdict string `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(js), &report); err != nil {
				t.Fatalf("-o json is not JSON: %v", err)
			}
			if report.Verdict != want {
				t.Errorf("verdict %q, want %q", report.Verdict, want)
			}
			compareGolden(t, filepath.Join(dir, "expected.json"), []byte(js))
		})
	}
	if seen < 15 {
		t.Errorf("%d diff cases, want at least 15", seen)
	}
}
