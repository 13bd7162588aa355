package nginx

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// droppedAnswer is the body of a 201 that dropped entries.
type droppedAnswer struct {
	Dropped []struct {
		Kind, Name, Reason string
		Index              int
		Kept               bool
	}
}

// TestNginxOneBadBackendAmongAThousand: Lua applies the 999 good backends
// of a payload and names the bad one, instead of refusing the payload.
func TestNginxOneBadBackendAmongAThousand(t *testing.T) {
	e := newEnv(t)
	a := upstream(t, "A")
	var parts []string
	for i := range 1000 {
		address := "127.0.0.1"
		if i == 500 {
			address = "127.1" // an ExternalName spelling Lua cannot use
		}
		parts = append(parts, fmt.Sprintf(`{"name": "b-%04d", "endpoints": [{"address": %q, "port": %q}]}`, i, address, a))
	}
	code, out := e.api(t, http.MethodPost, "/configuration/backends", "["+strings.Join(parts, ",")+"]")
	if code != http.StatusCreated {
		t.Fatalf("POST 1,000 backends with a bad one: %d %q, want 201", code, out)
	}
	var answer droppedAnswer
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	if len(answer.Dropped) != 1 {
		t.Fatalf("dropped %+v, want exactly b-0500", answer.Dropped)
	}
	d := answer.Dropped[0]
	if d.Kind != "backend" || d.Name != "b-0500" || d.Index != 500 || d.Kept ||
		!strings.Contains(d.Reason, "backends[500].endpoints[0].address: 127.1 is neither an IP address nor a DNS name") {
		t.Errorf("dropped %+v, want backend b-0500 at 500, not kept, naming the address", d)
	}

	_, got := e.api(t, http.MethodGet, "/configuration/backends", "")
	var applied []struct{ Name string }
	if err := json.Unmarshal([]byte(got), &applied); err != nil {
		t.Fatal(err)
	}
	if len(applied) != 999 {
		t.Errorf("GET backends has %d, want 999", len(applied))
	}
	for _, name := range []string{"b-0000", "b-0499", "b-0501", "b-0999"} {
		for range 2 { // either worker
			e.client.CloseIdleConnections()
			if code, out := e.proxy(t, name); code != http.StatusOK || out != "A" {
				t.Errorf("GET through %s: %d %q, want 200 from A", name, code, out)
			}
		}
	}
	if code, _ := e.proxy(t, "b-0500"); code != http.StatusServiceUnavailable {
		t.Errorf("GET through the dropped b-0500: %d, want 503", code)
	}
	log := readFrom(e.in.errorLogPath(), 0, 1<<20)
	if !strings.Contains(log, "dropped backend b-0500: backends[500].endpoints[0].address") {
		t.Errorf("the error log does not name the dropped backend")
	}
}

// TestNginxPayloadLargerThanHalfTheDict: a payload that does not fit
// beside the current one replaces it in place; only one larger than the
// dict is refused (413), and then the last one still serves.
func TestNginxPayloadLargerThanHalfTheDict(t *testing.T) {
	e := newEnv(t) // configuration_data 4m
	a, b := upstream(t, "A"), upstream(t, "B")
	payload := func(size int, port string) string {
		var sb strings.Builder
		sb.WriteString("[")
		for i := 0; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, `{"name": "filler-%06d", "endpoints": [{"address": "10.0.%d.%d", "port": "8080"}]},`, i, i/250%250, i%250+1)
		}
		fmt.Fprintf(&sb, `{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}]`, port)
		return sb.String()
	}
	for i, c := range []struct {
		size int
		port string
		want string
	}{
		{2500 << 10, a, "A"}, // fits in the empty dict
		{2600 << 10, b, "B"}, // not beside the 2.5 MB: in place
		{1 << 20, a, "A"},    // beside it again
	} {
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", payload(c.size, c.port)); code != http.StatusCreated {
			t.Fatalf("POST %d: %d bytes: %d %q, want 201", i, c.size, code, out)
		}
		for range 4 {
			e.client.CloseIdleConnections()
			if code, out := e.proxy(t, "app"); code != http.StatusOK || out != c.want {
				t.Fatalf("after POST %d (%d bytes): %d %q, want %s", i, c.size, code, out, c.want)
			}
		}
	}
	code, out := e.api(t, http.MethodPost, "/configuration/backends", payload(5<<20, b))
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("POST 5 MB into a 4 MB dict: %d %q, want 413", code, out)
	}
	if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
		t.Fatalf("after the refused POST: %d %q, want A", code, out)
	}
}
