package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// backendAnswer is what the test reads of a backend in answer.json.
type backendAnswer struct {
	Name      string `json:"name"`
	Endpoints []struct {
		Address string `json:"address"`
	} `json:"endpoints"`
}

// TestBackendsTemplatePrinters: -o jsonpath, go-template (also --template
// alone), custom-columns (with --no-headers) and jsonpath-as-json print
// the backends of a status server through kubectl's printers, each from
// a v1 List whose items are the backends as -o json prints them; a bad
// template or a missing key with --allow-missing-template-keys=false is a
// usage error (exit 3) naming -o, and nothing is printed.
func TestBackendsTemplatePrinters(t *testing.T) {
	dir := filepath.Join(backendsGoldenDir, "canary")
	url := serveAnswer(t, dir)
	raw, err := os.ReadFile(filepath.Join(dir, "answer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answer []backendAnswer
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer) < 3 {
		t.Fatalf("the canary case has %d backends; the test wants several", len(answer))
	}
	// The backends in the order backends prints them: by name.
	slices.SortFunc(answer, func(a, b backendAnswer) int { return strings.Compare(a.Name, b.Name) })
	var names, lines, columns []string
	for _, b := range answer {
		names = append(names, b.Name)
		lines = append(lines, b.Name+"\n")
		addresses := "<none>"
		if len(b.Endpoints) > 0 {
			var a []string
			for _, e := range b.Endpoints {
				a = append(a, e.Address)
			}
			addresses = strings.Join(a, ",")
		}
		columns = append(columns, b.Name+" "+addresses)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "jsonpath={.items[*].name}"}, strings.Join(names, " ")},
		{[]string{"-o", "go-template={{range .items}}{{.name}}\n{{end}}"}, strings.Join(lines, "")},
		{[]string{"--template", "{{range .items}}{{.name}}\n{{end}}"}, strings.Join(lines, "")},
		{[]string{"-o", "custom-columns=NAME:.name,ENDPOINTS:.endpoints[*].address", "--no-headers"}, strings.Join(columns, "\n") + "\n"},
	} {
		code, out, errOut := runCmd(t, "", append([]string{"backends", "--url", url}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			continue
		}
		if strings.Contains(tc.args[1], "custom-columns") {
			out = strings.Join(strings.Fields(strings.ReplaceAll(out, "\n", " \x00 ")), " ")
			out = strings.ReplaceAll(out, " \x00", "\n")
			out = strings.ReplaceAll(out, "\n ", "\n")
		}
		if out != tc.want {
			t.Errorf("%v:\n got %q\nwant %q", tc.args, out, tc.want)
		}
	}
	// jsonpath-as-json gives the names as a JSON array.
	code, out, errOut := runCmd(t, "", "backends", "--url", url, "-o", "jsonpath-as-json={.items[*].name}")
	var got []string
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("-o jsonpath-as-json: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, names)
	}
	for _, args := range [][]string{
		{"-o", "jsonpath={.items[*].nope}", "--allow-missing-template-keys=false"},
		{"-o", "jsonpath={.items["},
		{"-o", "go-template={{.items"},
	} {
		code, out, errOut := runCmd(t, "", append([]string{"backends", "--url", url}, args...)...)
		if code != exitFailure || out != "" || !strings.HasPrefix(errOut, "error: --output: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %.120q; want exit 3, no output and an error naming --output", args, code, out, errOut)
		}
	}
}
