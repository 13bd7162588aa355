package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const traceGoldenDir = "../../testdata/trace"

// TestTraceGolden traces requests through the render goldens' manifests
// and compares the whole output with testdata/trace/<name> (-update
// rewrites them).
func TestTraceGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"examples-canary-header.txt", []string{"-f", "../../examples", "https://shop.example.com/api/v1/items", "--header", "X-Canary:always"}},
		{"examples-https-redirect.txt", []string{"-f", "../../examples", "shop.example.com/api/?q=1"}},
		{"rewrite-target.json", []string{"-f", "../../testdata/render/rewrite-target/input.yaml", "http://rewrite.example.com/something/new/path?x=1", "-o", "json"}},
		{"wildcard-deeper.txt", []string{"-f", "../../testdata/render/wildcard-host/input.yaml", "http://a.b.foo.example.com/"}},
		{"source-ranges.yaml", []string{"-f", "../../testdata/render/source-ranges/input.yaml", "http://acl.example.com/allow/x", "--client-ip", "192.0.2.1", "-o", "yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append([]string{"trace"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			compareGolden(t, filepath.Join(traceGoldenDir, tc.name), []byte(out))
		})
	}
}

// TestTraceDecisions checks single facts of decisions on the render
// goldens' manifests, through -o json.
func TestTraceDecisions(t *testing.T) {
	input := func(c string) string { return "../../testdata/render/" + c + "/input.yaml" }
	for _, tc := range []struct {
		name  string
		args  []string
		check func(d map[string]any) string
	}{
		{"exact path", []string{"-f", input("exact-paths"), "http://exact.example.com/foo"}, matchIs("exact")},
		{"unknown host", []string{"-f", input("exact-paths"), "http://nope.example.com/"}, func(d map[string]any) string {
			return want(dig(d, "host", "kind"), "default") + want(dig(d, "outcome", "status"), float64(404))
		}},
		{"canary cookie", []string{"-f", "../../examples", "https://shop.example.com/api/", "--cookie", "canary=always"}, nil},
		{"bad target", []string{"-f", "../../examples", "http://shop.example.com/../x"}, func(d map[string]any) string {
			return want(dig(d, "outcome", "status"), float64(400))
		}},
		{"Host header wins", []string{"-f", "../../examples", "http://127.0.0.1/", "-H", "Host: nope.example.com"}, func(d map[string]any) string {
			return want(dig(d, "host", "host"), "nope.example.com")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append(append([]string{"trace"}, tc.args...), "-o", "json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep map[string]any
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			d, _ := rep["decision"].(map[string]any)
			if tc.check != nil {
				if msg := tc.check(d); msg != "" {
					t.Errorf("%s\n%s", msg, out)
				}
			}
		})
	}
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func want(got, w any) string {
	if got != w {
		return "got " + strings.TrimSpace(jsonText(got)) + ", want " + jsonText(w) + "; "
	}
	return ""
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func matchIs(kind string) func(map[string]any) string {
	return func(d map[string]any) string { return want(dig(d, "location", "match"), kind) }
}

// Usage errors name the bad flag or value and exit 3.
func TestTraceUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "-f", "../../examples"}, "needs the URL to trace"},
		{[]string{"trace", "-f", "../../examples", "a", "b"}, `unexpected argument "b"`},
		{[]string{"trace", "-f", "../../examples", "ftp://a/"}, "the scheme must be http or https"},
		{[]string{"trace", "-f", "../../examples", "http:///x"}, "want [http[s]://]HOST"},
		{[]string{"trace", "-f", "../../examples", "http://a:99999/"}, `bad port "99999"`},
		{[]string{"trace", "-f", "../../examples", "a", "--header", "NoColon"}, `--header "NoColon": want NAME:VALUE`},
		{[]string{"trace", "-f", "../../examples", "a", "--cookie", "x"}, `--cookie "x": want NAME=VALUE`},
		{[]string{"trace", "-f", "../../examples", "a", "--client-ip", "me"}, `--client-ip "me" is not an IP address`},
		{[]string{"trace", "-f", "../../examples", "a", "--method", "GE T"}, `--method "GE T"`},
		{[]string{"trace", "-f", "../../examples", "a", "-o", "wide"}, `--output must be json or yaml, got "wide"`},
		{[]string{"trace", "-f", "-", "a"}, "no objects in the input"},
	} {
		code, out, errOut := runCmd(t, "", tc.args...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 3 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
