package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sarifServiceAndIngress = `# a Service, then an Ingress with a problem of each class
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: "lots"
    nginx.ingress.kubernetes.io/no-such-annotation: "x"
    nginx.ingress.kubernetes.io/configuration-snippet: "lua_code_cache off;"
    nginx.ingress.kubernetes.io/session-cookie-hash: "sha1"
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`

const sarifOldIngress = `apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: old}
spec:
  rules:
  - host: old.example.com
`

// lint -o sarif: a SARIF 2.1.0 log whose results name existing rules, with
// the file and line of each object, errors and warnings as -o github, the
// exit status of the other formats, and the same bytes on every run.
func TestLintSARIF(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	for path, data := range map[string]string{a: sarifServiceAndIngress, b: sarifOldIngress} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCmd(t, "", "lint", "-f", a, "-f", b, "-o", "sarif")
	if code != exitVerdict || !strings.Contains(errOut, "5 problem(s)") {
		t.Fatalf("exit %d, stderr %q; want %d and the summary on stderr", code, errOut, exitVerdict)
	}
	var log struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("version %q, $schema %q, %d runs", log.Version, log.Schema, len(log.Runs))
	}
	driver := log.Runs[0].Tool.Driver
	if driver.Name != "kubectl-ingress" || !strings.HasPrefix(driver.InformationURI, "https://") {
		t.Errorf("driver %q, informationUri %q", driver.Name, driver.InformationURI)
	}
	rules := map[string]int{}
	for i, r := range driver.Rules {
		if _, dup := rules[r.ID]; dup || r.ID == "" || r.ShortDescription.Text == "" {
			t.Errorf("rule %d: id %q (repeated or empty) or no description", i, r.ID)
		}
		rules[r.ID] = i
	}
	type want struct {
		level, uri string
		line       int
	}
	wants := map[string]want{
		"skipped":       {"warning", "b.yaml", 1},
		"snippet":       {"error", "a.yaml", 8},
		"unknown":       {"error", "a.yaml", 8},
		"invalid":       {"error", "a.yaml", 8},
		"not-supported": {"error", "a.yaml", 8},
	}
	results := log.Runs[0].Results
	if len(results) != len(wants) {
		t.Errorf("%d results, want %d", len(results), len(wants))
	}
	for _, r := range results {
		i, ok := rules[r.RuleID]
		if !ok || i != r.RuleIndex {
			t.Errorf("result %q: ruleId %q (index %d) is not rule %d of the driver", r.Message.Text, r.RuleID, r.RuleIndex, i)
			continue
		}
		w, ok := wants[r.RuleID]
		if !ok {
			t.Errorf("unexpected rule %q for %q", r.RuleID, r.Message.Text)
			continue
		}
		delete(wants, r.RuleID)
		if r.Level != w.level || !strings.HasPrefix(r.Message.Text, "ingress default/") || len(r.Locations) != 1 {
			t.Errorf("%s: level %q, message %q, %d locations; want %s", r.RuleID, r.Level, r.Message.Text, len(r.Locations), w.level)
			continue
		}
		pl := r.Locations[0].PhysicalLocation
		uri := pl.ArtifactLocation.URI
		if !strings.HasPrefix(uri, "file:///") || !strings.HasSuffix(uri, "/"+w.uri) || pl.Region == nil || pl.Region.StartLine != w.line {
			t.Errorf("%s: location %q %+v; want the file URI of %s, line %d", r.RuleID, uri, pl.Region, w.uri, w.line)
		}
	}
	for id := range wants {
		t.Errorf("no result of rule %q", id)
	}
	if _, again, _ := runCmd(t, "", "lint", "-f", a, "-f", b, "-o", "sarif"); again != out {
		t.Error("two runs of lint -o sarif differ")
	}

	// No problem: exit 0 and an empty results array (code scanning closes
	// the alerts); stdin: results with no location.
	code, out, errOut = runCmd(t, "", "lint", "-f", "../../examples", "-o", "sarif")
	if code != 0 || !strings.Contains(out, `"results": []`) {
		t.Errorf("lint -o sarif of the examples: exit %d, %s, stderr %q", code, out, errOut)
	}
	code, out, _ = runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", "sarif")
	if code != exitVerdict || strings.Contains(out, `"locations"`) || !strings.Contains(out, `"ruleId": "invalid"`) {
		t.Errorf("lint -f - -o sarif: exit %d, %s", code, out)
	}
}

// A relative file name stays relative in the URI.
func TestSARIFURI(t *testing.T) {
	for in, want := range map[string]string{
		"manifests/a.yaml":   "manifests/a.yaml",
		"./a b.yaml":         "a%20b.yaml",
		"/abs/dir/x.yaml":    "file:///abs/dir/x.yaml",
		"../up/ingress.yaml": "../up/ingress.yaml",
	} {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// --help and README name the sarif format of lint.
func TestLintSARIFDocumented(t *testing.T) {
	_, out, _ := runCmd(t, "", "lint", "--help")
	if !strings.Contains(out, "-o sarif") || !strings.Contains(out, "SARIF 2.1.0") {
		t.Errorf("lint --help does not describe -o sarif:\n%s", out)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`-o sarif`") {
		t.Error("README does not name lint's `-o sarif`")
	}
}
