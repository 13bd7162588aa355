package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const backendsGoldenDir = "../../testdata/backends"

// backendsGoldenFormats maps each -o value to the golden file of its
// output.
var backendsGoldenFormats = map[string]string{
	outputTable: "out.table",
	outputWide:  "out.wide",
	outputJSON:  "out.json",
	outputYAML:  "out.yaml",
	outputName:  "out.name",
}

// TestBackendsGolden runs "kubectl ingress backends --url" against a status
// server that answers testdata/backends/<case>/answer.json (with the status
// code of status.txt, 200 when absent, and the flags of flags.txt), and
// compares stdout, for every -o, with out.<format>. A case whose name
// begins with err- must fail: its error message (the URL written as URL)
// is error.txt.
func TestBackendsGolden(t *testing.T) {
	cases, err := os.ReadDir(backendsGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(backendsGoldenDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			t.Parallel()
			url := serveAnswer(t, dir)
			var flags []string
			if raw, err := os.ReadFile(filepath.Join(dir, "flags.txt")); err == nil {
				flags = strings.Fields(string(raw))
			}
			if strings.HasPrefix(c.Name(), "err-") {
				code, out, errOut := runCmd(t, "", append([]string{"backends", "--url", url}, flags...)...)
				if code != exitFailure || out != "" {
					t.Fatalf("exit %d, stdout %q; want exit 3 and no output", code, out)
				}
				compareGolden(t, filepath.Join(dir, "error.txt"), []byte(strings.ReplaceAll(errOut, url, "URL")))
				return
			}
			for format, file := range backendsGoldenFormats {
				args := append([]string{"backends", "--url", url, "-o", format}, flags...)
				code, out, errOut := runCmd(t, "", args...)
				if code != 0 {
					t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
				}
				compareGolden(t, filepath.Join(dir, file), []byte(out))
			}
		})
	}
	if n < 15 {
		t.Errorf("only %d golden cases under %s, want at least 15", n, backendsGoldenDir)
	}
}

// serveAnswer starts a status server that answers GET
// /configuration/backends with dir/answer.json and returns its URL.
func serveAnswer(t *testing.T, dir string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(dir, "answer.json"))
	if err != nil {
		t.Fatal(err)
	}
	status := http.StatusOK
	if raw, err := os.ReadFile(filepath.Join(dir, "status.txt")); err == nil {
		if status, err = strconv.Atoi(strings.TrimSpace(string(raw))); err != nil {
			t.Fatalf("%s/status.txt: %v", dir, err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/configuration/backends" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
