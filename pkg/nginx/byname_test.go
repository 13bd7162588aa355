package nginx

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNginxBackendsByName: each backend's own entry (lua/backends_by_name.lua)
// is what the workers serve: GET ?name= answers it; a POST that changes one
// backend's endpoints, removes one or adds it back is served by every
// worker; a POST refused because its array does not fit leaves every
// entry as it was; a reload that resizes backends_by_name alone gets it
// filled again from the array.
func TestNginxBackendsByName(t *testing.T) {
	e := newEnv(t)
	a, b := upstream(t, "A"), upstream(t, "B")
	set := func(app, other string) string {
		var parts []string
		if app != "" {
			parts = append(parts, fmt.Sprintf(`{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}`, app))
		}
		parts = append(parts, fmt.Sprintf(`{"name": "other", "endpoints": [{"address": "127.0.0.1", "port": %q}]}`, other))
		return "[" + strings.Join(parts, ",") + "]"
	}
	post := func(body string) {
		t.Helper()
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
			t.Fatalf("POST %.80s: %d %q", body, code, out)
		}
	}
	post(set(a, a))
	e.proxyFresh(t, "app", "A", 4)
	e.proxyFresh(t, "other", "A", 4)
	code, out := e.api(t, http.MethodGet, "/configuration/backends?name=app", "")
	if code != http.StatusOK || !strings.Contains(out, `"name":"app"`) || !strings.Contains(out, `"port":"`+a+`"`) {
		t.Errorf("GET ?name=app: %d %s", code, out)
	}
	if code, out := e.api(t, http.MethodGet, "/configuration/backends?name=nope", ""); code != http.StatusNotFound {
		t.Errorf("GET ?name=nope: %d %s, want 404", code, out)
	}

	post(set(b, a)) // app changes, other does not
	e.proxyFresh(t, "app", "B", 4)
	e.proxyFresh(t, "other", "A", 4)
	post(set("", a)) // app leaves
	for range 4 {
		e.client.CloseIdleConnections()
		if code, _ := e.proxy(t, "app"); code != http.StatusServiceUnavailable {
			t.Fatalf("app after it left: %d, want 503", code)
		}
	}
	if code, _ := e.api(t, http.MethodGet, "/configuration/backends?name=app", ""); code != http.StatusNotFound {
		t.Errorf("GET ?name=app after it left: %d, want 404", code)
	}
	post(set(a, b)) // back, and other changes
	e.proxyFresh(t, "app", "A", 4)
	e.proxyFresh(t, "other", "B", 4)

	// An array that configuration_data (4m) cannot hold beside 2.5 MB of
	// general settings: its entries fit in backends_by_name (16m) and are
	// written first, then put back.
	general := `{"filler": "` + strings.Repeat("x", 2500<<10) + `"}`
	if code, out := e.api(t, http.MethodPost, "/configuration/general", general); code != http.StatusCreated {
		t.Fatalf("POST general: %d %q", code, out)
	}
	var big strings.Builder
	big.WriteString(set(b, a)[:len(set(b, a))-1])
	for i := 0; big.Len() < 2<<20; i++ {
		fmt.Fprintf(&big, `,{"name": "filler-%03d", "endpoints": [`, i)
		for j := range 400 {
			fmt.Fprintf(&big, `{"address": "10.1.%d.%d", "port": "8080"},`, j/250, j%250+1)
		}
		big.WriteString(`{"address": "10.0.0.1", "port": "1"}]}`)
	}
	big.WriteString("]")
	if code, out := e.api(t, http.MethodPost, "/configuration/backends", big.String()); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("POST of %d bytes into a 4m configuration_data: %d %q, want 413", big.Len(), code, out)
	} else if !strings.Contains(out, "do not fit in the shared dict (capacity 4194304") {
		t.Fatalf("POST of %d bytes: %q, want the array refused by configuration_data", big.Len(), out)
	}
	e.proxyFresh(t, "app", "A", 4)
	e.proxyFresh(t, "other", "B", 4)
	if code, _ := e.api(t, http.MethodGet, "/configuration/backends?name=filler-000", ""); code != http.StatusNotFound {
		t.Errorf("an entry of the refused POST stayed: %d", code)
	}

	// A reload that resizes backends_by_name alone: the master fills the
	// new zone from the array that configuration_data kept.
	resized := strings.Replace(string(e.conf("")), "lua_shared_dict backends_by_name 16m;", "lua_shared_dict backends_by_name 8m;", 1)
	if err := e.in.Reload(ctxFor(t, 20*time.Second), []byte(resized)); err != nil {
		t.Fatal(err)
	}
	e.workers(t)
	e.proxyFresh(t, "app", "A", 6)
	e.proxyFresh(t, "other", "B", 6)
	if log := readFrom(e.in.errorLogPath(), 0, 1<<20); !strings.Contains(log, "backends_by_name filled from the backends of version") {
		t.Errorf("the master did not fill the resized backends_by_name")
	}
	post(set(b, b))
	e.proxyFresh(t, "app", "B", 4)
	e.proxyFresh(t, "other", "B", 4)
}
