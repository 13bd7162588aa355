package nginx

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

func backendsJSON(a, b string) string {
	return fmt.Sprintf(`[
 {"name": "app", "port": 80, "endpoints": [{"address": "127.0.0.1", "port": %q}, {"address": "127.0.0.1", "port": %s}]},
 {"name": "empty", "endpoints": []},
 {"name": "absent"},
 {"name": "external", "service": {"metadata": {"name": "ext", "namespace": "default"}, "spec": {"type": "ExternalName", "externalName": "example.com"}},
  "endpoints": [{"address": "example.com", "port": "80"}]}
]`, a, b)
}

func TestNginxBackends(t *testing.T) {
	e := newEnv(t)
	a, b := upstream(t, "A"), upstream(t, "B")
	before := e.workers(t)

	if code, out := e.api(t, http.MethodPost, "/configuration/backends", backendsJSON(a, b)); code != http.StatusCreated {
		t.Fatalf("POST backends: %d %s", code, out)
	}

	t.Run("round robin", func(t *testing.T) {
		// One kept-alive connection stays with one worker, which walks the
		// endpoints in order.
		var seen []string
		for range 6 {
			code, out := e.proxy(t, "app")
			if code != http.StatusOK {
				t.Fatalf("GET app: %d %s", code, out)
			}
			seen = append(seen, out)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] == seen[i-1] {
				t.Fatalf("not round robin: %v", seen)
			}
		}
		if !slices.Contains(seen, "A") || !slices.Contains(seen, "B") {
			t.Fatalf("want both endpoints, got %v", seen)
		}
	})

	t.Run("round robin state survives an unrelated push", func(t *testing.T) {
		// Two trials an odd number of requests apart: in one of them the
		// next endpoint is not the first, where a reset would show.
		for trial := range 2 {
			if trial == 1 {
				e.proxy(t, "app")
			}
			_, first := e.proxy(t, "app")
			// Same endpoints for app, another backend added.
			more := fmt.Sprintf(`{"name": "more-%d", "endpoints": [{"address": "127.0.0.1", "port": 1}]}, {"name": "empty"`, trial)
			body := strings.Replace(backendsJSON(a, b), `{"name": "empty"`, more, 1)
			if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
				t.Fatalf("POST backends: %d %s", code, out)
			}
			_, second := e.proxy(t, "app")
			if first == second {
				t.Fatalf("trial %d: round robin restarted after a push that kept the endpoints: %s then %s", trial, first, second)
			}
		}
	})

	t.Run("503 without endpoints", func(t *testing.T) {
		for _, name := range []string{"empty", "absent", "external", "unknown", ""} {
			if code, out := e.proxy(t, name); code != http.StatusServiceUnavailable {
				t.Errorf("backend %q: want 503, got %d %s", name, code, out)
			}
		}
	})

	t.Run("GET backends", func(t *testing.T) {
		body := backendsJSON(a, b)
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
			t.Fatalf("POST backends: %d %s", code, out)
		}
		code, out := e.api(t, http.MethodGet, "/configuration/backends", "")
		if code != http.StatusOK || out != body {
			t.Fatalf("GET backends: %d %q, want %q", code, out, body)
		}
	})

	t.Run("bad bodies are refused and change nothing", func(t *testing.T) {
		for _, body := range []string{
			``,
			`not json`,
			`{"name": "app"}`,
			`[1]`,
			`[{"endpoints": []}]`,
			`[{"name": ""}]`,
		} {
			code, out := e.api(t, http.MethodPost, "/configuration/backends", body)
			if code != http.StatusBadRequest || strings.TrimSpace(out) == "" {
				t.Errorf("POST %s: want 400 with a message, got %d %q", body, code, out)
			}
		}
		if code, out := e.api(t, http.MethodGet, "/configuration/backends", ""); out != backendsJSON(a, b) {
			t.Errorf("backends changed by a refused POST: %d %s", code, out)
		}
		e.servesBoth(t, a, b, "bad POSTs")
	})

	t.Run("a bad entry is dropped, its last version kept, the rest applied", func(t *testing.T) {
		bad := func(s string) string {
			return strings.Replace(backendsJSON(a, b), `{"name": "app", "port": 80, "endpoints": [`, `{"name": "app", "port": 80, "endpoints": [`+s+`, `, 1)
		}
		for _, c := range []struct{ body, reason string }{
			{bad(`{"address": "", "port": "80"}`), "backends[0].endpoints[0].address: must be a non-empty string"},
			{bad(`{"address": "127.0.0.1"}`), "backends[0].endpoints[0].port: must be a number"},
			{bad(`{"address": "127.0.0.1", "port": "abc"}`), "backends[0].endpoints[0].port"},
			{bad(`{"address": "127.0.0.1", "port": 0}`), "backends[0].endpoints[0].port"},
			{bad(`{"address": "127.0.0.1", "port": 65536}`), "backends[0].endpoints[0].port"},
			{bad(`{"address": "127.0.0.1", "port": 80.5}`), "backends[0].endpoints[0].port"},
			{bad(`{"address": "127.1", "port": 80}`), "127.1 is neither an IP address nor a DNS name"},
			{bad(`"127.0.0.1:80"`), "backends[0].endpoints[0]: must be an object"},
		} {
			// Another backend comes with it: the rest of the payload applies.
			body := strings.Replace(c.body, `{"name": "empty"`, fmt.Sprintf(`{"name": "new", "endpoints": [{"address": "127.0.0.1", "port": %s}]}, {"name": "empty"`, b), 1)
			code, out := e.api(t, http.MethodPost, "/configuration/backends", body)
			if code != http.StatusCreated {
				t.Fatalf("POST with a bad app: %d %q, want 201", code, out)
			}
			var answer struct {
				Dropped []struct {
					Kind, Name, Reason string
					Index              int
					Kept               bool
				}
			}
			if err := json.Unmarshal([]byte(out), &answer); err != nil || len(answer.Dropped) != 1 {
				t.Fatalf("answer %q: want one dropped entry (%v)", out, err)
			}
			d := answer.Dropped[0]
			if d.Kind != "backend" || d.Name != "app" || d.Index != 0 || !d.Kept || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("dropped %+v, want backend app at 0, kept, reason with %q", d, c.reason)
			}
			e.servesBoth(t, a, b, "a bad version of app")
			if code, out := e.proxy(t, "new"); code != http.StatusOK || out != "B" {
				t.Errorf("the backend beside the bad one: %d %s, want B", code, out)
			}
		}
		// A duplicate is dropped; the first one serves.
		body := strings.Replace(backendsJSON(a, b), `{"name": "empty"`, `{"name": "app", "endpoints": []}, {"name": "empty"`, 1)
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated || !strings.Contains(out, "duplicate backend app") {
			t.Errorf("POST with a duplicate: %d %q", code, out)
		}
		e.servesBoth(t, a, b, "a duplicate")
		// What serves is the good entries byte for byte, and the kept one.
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", bad(`{"address": "127.1", "port": 80}`)); code != http.StatusCreated {
			t.Fatalf("POST: %d %s", code, out)
		}
		want := "[" + strings.Join(elements(t, backendsJSON(a, b)), ",") + "]"
		if _, got := e.api(t, http.MethodGet, "/configuration/backends", ""); got != want {
			t.Errorf("GET backends after a drop:\n%s\nwant\n%s", got, want)
		}
		// A new backend that is bad is left out.
		body = strings.Replace(backendsJSON(a, b), `{"name": "empty"`, `{"name": "ext", "endpoints": [{"address": "127.1", "port": "80"}]}, {"name": "empty"`, 1)
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated || !strings.Contains(out, `"kept":false`) {
			t.Errorf("POST with a bad new backend: %d %q", code, out)
		}
		if code, _ := e.proxy(t, "ext"); code != http.StatusServiceUnavailable {
			t.Errorf("the dropped new backend: %d, want 503", code)
		}
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", backendsJSON(a, b)); code != http.StatusCreated || out != "" {
			t.Fatalf("POST good backends: %d %q, want 201 without a body", code, out)
		}
	})

	t.Run("a push is live at once on every worker", func(t *testing.T) {
		body := fmt.Sprintf(`[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %s}]}]`, b)
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
			t.Fatalf("POST backends: %d %s", code, out)
		}
		for range 8 {
			e.client.CloseIdleConnections() // a new connection may land on either worker
			if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "B" {
				t.Fatalf("after the push: %d %s, want B", code, out)
			}
		}
	})

	t.Run("a refused connection is retried on the next endpoint", func(t *testing.T) {
		dead := freePorts(t, 1)[0]
		body := fmt.Sprintf(`[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %d}, {"address": "127.0.0.1", "port": %s}]},
 {"name": "dead", "endpoints": [{"address": "127.0.0.1", "port": %d}]}]`, dead, a, dead)
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
			t.Fatalf("POST backends: %d %s", code, out)
		}
		for range 4 {
			if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
				t.Fatalf("with one endpoint down: %d %s, want A", code, out)
			}
		}
		if code, out := e.proxy(t, "dead"); code != http.StatusBadGateway {
			t.Fatalf("all endpoints down: %d %s, want 502", code, out)
		}
	})

	t.Run("a large body buffered to a file", func(t *testing.T) {
		var parts []string
		for i := range 200 {
			parts = append(parts, fmt.Sprintf(`{"name": "filler-%03d", "endpoints": [{"address": "10.0.0.%d", "port": 8080}]}`, i, i%250+1))
		}
		parts = append(parts, fmt.Sprintf(`{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %s}]}`, a))
		body := "[" + strings.Join(parts, ",") + "]"
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
			t.Fatalf("POST %d bytes: %d %s", len(body), code, out)
		}
		if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
			t.Fatalf("after the large push: %d %s, want A", code, out)
		}
	})

	t.Run("pushes do not reload", func(t *testing.T) {
		if after := e.workers(t); !slices.Equal(before, after) {
			t.Fatalf("worker pids changed from %v to %v", before, after)
		}
	})
}

func TestNginxStatusAPI(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/healthz", "", 200, ""},
		{"GET", "/nope", "", 404, ""},
		{"GET", "/configuration/nope", "", 404, ""},
		{"GET", "/configuration", "", 404, ""},
		{"DELETE", "/configuration/backends", "", 405, ""},
		{"GET", "/configuration/servers", "", 405, ""},
		{"POST", "/configuration/checksum", "x", 405, ""},
		{"GET", "/configuration/backends", "", 200, "[]"},
		{"GET", "/configuration/general", "", 200, "{}"},
		{"POST", "/configuration/general", `[1]`, 400, ""},
		{"POST", "/configuration/general", `{"controllerPodsCount": 2}`, 201, ""},
		{"GET", "/configuration/general", "", 200, `{"controllerPodsCount": 2}`},
		{"GET", "/configuration/checksum", "", 200, Checksum(e.conf(""))},
		{"GET", "/configuration/nginx.conf", "", 200, string(e.conf(""))},
		{"POST", "/configuration/nginx.conf", "x", 405, ""},
	} {
		code, out := e.api(t, c.method, c.path, c.body)
		if code != c.code || (c.want != "" && out != c.want) {
			t.Errorf("%s %s: got %d %q, want %d %q", c.method, c.path, code, out, c.code, c.want)
		}
	}
	_, _, h := e.do(t, "PUT", e.statusURL()+"/configuration/backends", "", nil)
	if got := h.Get("Allow"); got != "GET, PATCH, POST" {
		t.Errorf("Allow: %q", got)
	}
	if _, _, h := e.do(t, "GET", e.statusURL()+"/configuration/nginx.conf", "", nil); h.Get("X-Config-Checksum") != Checksum(e.conf("")) {
		t.Errorf("X-Config-Checksum %q, want %q", h.Get("X-Config-Checksum"), Checksum(e.conf("")))
	}
	// The file on disk is not what the workers loaded: 409, never the file.
	loaded, err := os.ReadFile(e.in.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.in.ConfPath(), append(loaded, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := e.api(t, "GET", "/configuration/nginx.conf", "")
	if code != 409 || !strings.Contains(out, "not the one these workers loaded") {
		t.Errorf("an edited nginx.conf: %d %q, want 409", code, out)
	}
	if err := os.WriteFile(e.in.ConfPath(), loaded, 0o644); err != nil {
		t.Fatal(err)
	}
}

// servesBoth fails the test unless backend app answers from both of its
// endpoints (A and B).
func (e *env) servesBoth(t *testing.T, a, b, after string) {
	t.Helper()
	got := map[string]bool{}
	for range 4 {
		code, out := e.proxy(t, "app")
		if code != http.StatusOK {
			t.Fatalf("GET app after %s: %d %s", after, code, out)
		}
		got[out] = true
	}
	if !got["A"] || !got["B"] {
		t.Errorf("want A and B after %s, got %v", after, got)
	}
}

// elements splits a JSON array into the compact text of its elements.
func elements(t *testing.T, array string) []string {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(array), &raw); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}
