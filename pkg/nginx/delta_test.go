package nginx

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// methodLog records the method of every request a Client sends.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (m *methodLog) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.methods = append(m.methods, r.Method)
	m.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (m *methodLog) last() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.methods[len(m.methods)-1]
}

func endpointsOf(port string) []luaapi.Endpoint {
	return []luaapi.Endpoint{{Address: "127.0.0.1", Port: port}}
}

// servedBy sends n requests to backend on new connections (both workers
// take some) and returns the distinct answers, sorted.
func (e *env) servedBy(t *testing.T, backend string, n int) []string {
	t.Helper()
	var seen []string
	for range n {
		code, out, _ := e.do(t, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(e.http)+"/", "", http.Header{"X-Backend": {backend}, "Connection": {"close"}})
		if code != http.StatusOK {
			out = http.StatusText(code)
		}
		if !slices.Contains(seen, out) {
			seen = append(seen, out)
		}
	}
	slices.Sort(seen)
	return seen
}

// TestNginxBackendsDelta: after a whole array, the Client sends only what
// changed (PATCH), which every worker serves at once; GET answers the
// array the two make; a PATCH on another array is refused (409) and the
// Client posts the whole array then; a bad entry in a PATCH keeps what
// served; the whole array posted again brings it back.
func TestNginxBackendsDelta(t *testing.T) {
	e := newEnv(t)
	a, b := upstream(t, "A"), upstream(t, "B")
	methods := &methodLog{}
	c := luaapi.NewClient(e.statusURL(), &http.Client{Transport: methods})
	ctx := t.Context()

	first := []luaapi.Backend{
		{Name: "app", Endpoints: append(endpointsOf(a), endpointsOf(b)...)},
		{Name: "other", Endpoints: endpointsOf(a)},
		{Name: "gone", Endpoints: endpointsOf(b)},
	}
	if err := c.PostBackends(ctx, first); err != nil {
		t.Fatal(err)
	}
	if m := methods.last(); m != http.MethodPost {
		t.Fatalf("first push: %s, want POST", m)
	}
	if got := e.servedBy(t, "app", 8); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("app before the delta: %v", got)
	}

	second := []luaapi.Backend{
		{Name: "app", Endpoints: endpointsOf(a)},
		{Name: "other", Endpoints: endpointsOf(a)},
		{Name: "new", Endpoints: endpointsOf(b)},
	}
	if err := c.PostBackends(ctx, second); err != nil {
		t.Fatal(err)
	}
	if m := methods.last(); m != http.MethodPatch {
		t.Fatalf("second push: %s, want PATCH", m)
	}
	e.requireServed(t, "after the delta", map[string][]string{"app": {"A"}, "other": {"A"}, "new": {"B"}, "gone": {"Service Unavailable"}})
	got, err := c.GetBackends(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !backendsEqual(got, second) {
		t.Errorf("GET after the delta: %+v, want %+v", got, second)
	}

	firstEncoded, err := luaapi.EncodeBackends(first)
	if err != nil {
		t.Fatal(err)
	}
	firstBody, err := firstEncoded.Body()
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(firstBody)
	base := hex.EncodeToString(sum[:])

	t.Run("a PATCH on another array is refused", func(t *testing.T) {
		code, out := e.api(t, http.MethodPatch, "/configuration/backends", `{"base":"`+strings.Repeat("0", 32)+`","deleted":[]}`+"\n[]")
		if code != http.StatusConflict || !strings.Contains(out, "POST the whole array") {
			t.Errorf("PATCH on another base: %d %q, want 409", code, out)
		}
	})

	t.Run("malformed PATCH bodies", func(t *testing.T) {
		for _, body := range []string{
			`[]`,
			`{"base":"x"}` + "\n[]",
			`{"base":"` + base + `","deleted":[1]}` + "\n[]",
			`{"base":"` + base + `","deleted":["app"]}` + "\n" + `[{"name":"app"}]`,
			`{"base":"` + base + `"}` + "\n{}",
		} {
			if code, out := e.api(t, http.MethodPatch, "/configuration/backends", body); code != http.StatusBadRequest {
				t.Errorf("PATCH %q: %d %q, want 400", body, code, out)
			}
		}
		if got := e.servedBy(t, "app", 4); !slices.Equal(got, []string{"A"}) {
			t.Errorf("app after refused PATCHes: %v", got)
		}
	})

	t.Run("a bad entry keeps what served", func(t *testing.T) {
		// app's previous delta version (A), gone's deletion, and other's
		// base version stay; the good entry is applied.
		body := `{"base":"` + base + `","deleted":["new"]}` + "\n" + `[` +
			`{"name":"app","endpoints":[{"address":"127.0.0.1","port":"x"}]},` +
			`{"name":"gone","endpoints":"x"},` +
			`{"name":"other","endpoints":7},` +
			`{"name":"fresh","endpoints":[{"address":"127.0.0.1","port":"` + b + `"}]}]`
		code, out := e.api(t, http.MethodPatch, "/configuration/backends", body)
		if code != http.StatusCreated {
			t.Fatalf("PATCH: %d %q", code, out)
		}
		var answer struct {
			Dropped []luaapi.Dropped `json:"dropped"`
		}
		if err := json.Unmarshal([]byte(out), &answer); err != nil {
			t.Fatalf("answer %q: %v", out, err)
		}
		kept := map[string]bool{}
		for _, d := range answer.Dropped {
			kept[d.Name] = d.Kept
		}
		if want := map[string]bool{"app": true, "gone": false, "other": true}; !maps.Equal(kept, want) {
			t.Errorf("dropped (name: kept) %v, want %v", kept, want)
		}
		e.requireServed(t, "after the bad PATCH", map[string][]string{"app": {"A"}, "other": {"A"}, "fresh": {"B"}, "new": {"Service Unavailable"}, "gone": {"Service Unavailable"}})
	})

	t.Run("the whole array again", func(t *testing.T) {
		if code, out := e.api(t, http.MethodPost, "/configuration/backends", string(firstBody)); code != http.StatusCreated {
			t.Fatalf("POST: %d %q", code, out)
		}
		e.requireServed(t, "after the whole array again", map[string][]string{"app": {"A", "B"}, "gone": {"B"}, "new": {"Service Unavailable"}, "fresh": {"Service Unavailable"}})
		got, err := c.GetBackends(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !backendsEqual(got, first) {
			t.Errorf("GET: %+v, want %+v", got, first)
		}
	})

	t.Run("the Client posts whole when nginx holds another array", func(t *testing.T) {
		third := []luaapi.Backend{{Name: "app", Endpoints: endpointsOf(b)}}
		other := luaapi.NewClient(e.statusURL(), nil)
		if err := other.PostBackends(ctx, third); err != nil {
			t.Fatal(err)
		}
		// c's base is still the first array, but nginx's is third's: the
		// PATCH is refused and c posts second whole.
		if err := c.PostBackends(ctx, second); err != nil {
			t.Fatal(err)
		}
		if m := methods.last(); m != http.MethodPost {
			t.Errorf("push after another client's: %s, want POST after the refused PATCH", m)
		}
		if got := e.servedBy(t, "app", 6); !slices.Equal(got, []string{"A"}) {
			t.Errorf("app: %v", got)
		}
	})
}

// requireServed checks which upstreams answer each backend (see servedBy).
func (e *env) requireServed(t *testing.T, when string, want map[string][]string) {
	t.Helper()
	for backend, w := range want {
		if got := e.servedBy(t, backend, 6); !slices.Equal(got, w) {
			t.Errorf("%s, %s served by %v, want %v", when, backend, got, w)
		}
	}
}

func backendsEqual(got, want []luaapi.Backend) bool {
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	return string(g) == string(w)
}
