package nginxconf

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestOriginsRegexesOneLabel: "*." in an allowed origin stands for exactly
// one DNS label, as ingress-nginx's regex; the regex is anchored at both
// ends and matched case-insensitively (nginx's ~*). Go's regexp reads
// these regexes as PCRE does (no construct where they differ).
func TestOriginsRegexesOneLabel(t *testing.T) {
	res := originsRegexes([]string{"http://*.origin.cors.com", "http://*.origin.com:8080", "tauri://localhost:3000"})
	if len(res) != 1 {
		t.Fatalf("%d regexes, want 1", len(res))
	}
	re := regexp.MustCompile("(?i)" + res[0])
	for origin, want := range map[string]bool{
		"http://foo.origin.cors.com":      true,
		"http://bar-foo.origin.cors.com":  true,
		"HTTP://FOO.origin.cors.com":      true,
		"http://a.origin.com:8080":        true,
		"tauri://localhost:3000":          true,
		"http://bar.foo.origin.cors.com":  false,
		"http://origin.cors.com":          false,
		"http://.origin.cors.com":         false,
		"http://foo.notorigin.cors.com":   false,
		"http://a.origin.com":             false,
		"http://a.origin.com:80800":       false,
		"https://foo.origin.cors.com":     false,
		"xhttp://foo.origin.cors.com":     false,
		"http://foo.origin.cors.com.evil": false,
		"http://foo_x.origin.cors.com":    false,
		"tauri://localhost":               false,
	} {
		if got := re.MatchString(origin); got != want {
			t.Errorf("%q: match %v, want %v (regex %s)", origin, got, want, res[0])
		}
	}
}

// TestWriteCORS pins the shape ingress-nginx's CORS template has: the
// headers only inside the "if" blocks of an allowed origin, Max-Age in
// both, the lists as written, $http_origin echoed for a list and "*" for
// any origin, and no add_header (which would hide the location's HSTS).
func TestWriteCORS(t *testing.T) {
	list := &model.CORS{AllowOrigins: []string{"https://a.example"}, AllowMethods: "POST, GET",
		AllowHeaders: "DNT, User-Agent", ExposeHeaders: "X-A,X-B", MaxAge: 200}
	w := &confWriter{}
	writeCORS(w, list)
	got := w.b.String()
	for _, want := range []string{
		`set $cors_match "";`,
		`if ($http_origin ~* "^(https://a\\.example)$" ) {`,
		`if ($cors_match = true) {`,
		`if ($cors_match = trueoptions) {`,
		`more_set_headers "Access-Control-Allow-Origin: $http_origin";`,
		`more_set_headers "Access-Control-Allow-Methods: POST, GET";`,
		`more_set_headers "Access-Control-Allow-Headers: DNT, User-Agent";`,
		`more_set_headers "Access-Control-Expose-Headers: X-A,X-B";`,
		`return 204;`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"Access-Control-Max-Age: 200"`); n != 2 {
		t.Errorf("Access-Control-Max-Age in %d blocks, want 2 (every CORS answer):\n%s", n, got)
	}
	if strings.Contains(got, "add_header") || strings.Contains(got, "Access-Control-Allow-Credentials") {
		t.Errorf("unexpected add_header or credentials header:\n%s", got)
	}
	w = &confWriter{}
	writeCORS(w, &model.CORS{AllowOrigins: []string{"*"}, AllowCredentials: true, MaxAge: 1})
	got = w.b.String()
	for _, want := range []string{`set $cors_match true;`, `"Access-Control-Allow-Origin: *"`, `"Access-Control-Allow-Credentials: true"`} {
		if !strings.Contains(got, want) {
			t.Errorf("any origin: missing %q in:\n%s", want, got)
		}
	}
}

// TestWriteLocationPath: the path of a location reaches nginx.conf quoted,
// without a "$" nginx would read as a variable.
func TestWriteLocationPath(t *testing.T) {
	for path, want := range map[string]string{
		"/app":               `set $location_path "/app";`,
		`/items/[0-9]+$`:     `set $location_path "/items/[0-9]+";`,
		`/a"b;{c}$request_x`: `set $location_path "/a\"b;{c}request_x";`,
	} {
		w := &confWriter{}
		writeLocationPath(w, &model.Location{Path: path, Settings: &model.LocationSettings{}})
		if got := strings.TrimSpace(w.b.String()); got != want || w.err != nil {
			t.Errorf("%q: wrote %q (%v), want %q", path, got, w.err, want)
		}
	}
}
