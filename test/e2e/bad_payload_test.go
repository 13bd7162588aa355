package e2e

// Bad payloads on the configuration API: not JSON, the wrong shape, or too
// large for the shared dict get 400 or 413, and nginx keeps serving what it
// served before; a bad entry (backend, host, certificate) is dropped and
// named, and the rest of its payload applied.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// post sends body to the status server and returns the status and answer.
func (n *liveNginx) post(t *testing.T, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(n.statusURL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}

// getRaw returns the body of GET path on the status server.
func (n *liveNginx) getRaw(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get(n.statusURL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// fillerBackends is a valid backends payload of about size bytes: count
// backends with private endpoints, then the backends of keep.
func fillerBackends(t *testing.T, size int, keep []luaapi.Backend) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `{"name":"filler-%06d","endpoints":[{"address":"10.%d.%d.%d","port":"8080"}]},`, i, i/65536%256, i/256%256, i%256)
	}
	for i, k := range keep {
		data, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.Write(data)
	}
	b.WriteString("]")
	return b.String()
}

func TestBadPayloadsChangeNothing(t *testing.T) {
	web := startBackend(t, "web", 0)
	// A 1 MiB dict for the backends, so that "too large" is cheap to send.
	n := startNginxWith(t, serviceOf("web", web)+ingressOf("web", "web.example.com", "web", "2026-01-01T00:00:00Z", nil),
		nginxOptions{editConf: func(conf string) string {
			return strings.Replace(conf, "lua_shared_dict configuration_data 64m;", "lua_shared_dict configuration_data 1m;", 1)
		}})
	good, _ := luaapi.FromModel(n.config)
	c := newClient(2)
	serves := func(t *testing.T, after string) {
		t.Helper()
		for range 4 {
			if r := send(c, n.request("web.example.com", "/")); r.err != nil || r.status != http.StatusOK || r.backend != "web" {
				t.Fatalf("after %s: %d %q %v, want 200 from web", after, r.status, r.backend, r.err)
			}
		}
	}
	ep := func(address, port string) string {
		return fmt.Sprintf(`[{"name": "e2e-web-80", "endpoints": [{"address": %q, "port": %s}]}]`, address, port)
	}
	field := func(f string) string { return `[{"name": "e2e-web-80", "endpoints": [], ` + f + `}]` }

	t.Run("400", func(t *testing.T) {
		current := n.getRaw(t, "/configuration/backends")
		for _, c := range []struct{ path, body string }{
			{"/configuration/backends", `{not json`},
			{"/configuration/backends", `{"name": "x"}`},
			{"/configuration/backends", `[1]`},
			{"/configuration/backends", `[{"endpoints": []}]`},
			{"/configuration/servers", `[]`},
			{"/configuration/servers", `{"servers": ["a.example.com"]}`},
			{"/configuration/general", `[1]`},
			{"/configuration/general", `not json`},
		} {
			status, msg := n.post(t, c.path, c.body)
			if status != http.StatusBadRequest || strings.TrimSpace(msg) == "" {
				t.Errorf("POST %s %s = %d %q, want 400 with a message", c.path, c.body, status, msg)
			}
		}
		if got := n.getRaw(t, "/configuration/backends"); got != current {
			t.Errorf("refused POSTs changed the backends")
		}
		serves(t, "the refused POSTs")
	})

	t.Run("a bad entry is dropped and named", func(t *testing.T) {
		current := n.getRaw(t, "/configuration/backends")
		for _, c := range []struct{ path, body, name string }{
			{"/configuration/backends", ep("127.0.0.1", `"0"`), "e2e-web-80"},
			{"/configuration/backends", ep("127.0.0.1", `"http"`), "e2e-web-80"},
			{"/configuration/backends", ep("not an ip!", `80`), "e2e-web-80"},
			{"/configuration/backends", ep("-bad-.example.com", `80`), "e2e-web-80"},
			{"/configuration/backends", ep("10.0.0.1:80", `80`), "e2e-web-80"},
			{"/configuration/backends", ep("fe80::1::2", `80`), "e2e-web-80"},
			{"/configuration/backends", ep("", `80`), "e2e-web-80"},
			{"/configuration/backends", ep("127.1", `80`), "e2e-web-80"},
			{"/configuration/backends", field(`"alternativeBackends": "x"`), "e2e-web-80"},
			{"/configuration/backends", field(`"trafficShapingPolicy": {"weight": -1}`), "e2e-web-80"},
			{"/configuration/backends", field(`"sessionAffinityConfig": "cookie"`), "e2e-web-80"},
			{"/configuration/backends", field(`"sessionAffinityConfig": {"name": "cookie", "cookieSessionAffinity": {"maxage": "soon"}}`), "e2e-web-80"},
			{"/configuration/backends", field(`"upstreamHashByConfig": {"upstream-hash-by": 5}`), "e2e-web-80"},
			{"/configuration/backends", field(`"load-balance": ["ewma"]`), "e2e-web-80"},
			{"/configuration/backends", `[{"name": "a"}, {"name": "a"}]`, "a"},
		} {
			status, msg := n.post(t, c.path, c.body)
			if status != http.StatusCreated || !strings.Contains(msg, `"name":"`+c.name+`"`) {
				t.Errorf("POST %s %s = %d %q, want 201 naming %s", c.path, c.body, status, msg, c.name)
			}
			if c.name == "e2e-web-80" {
				// The last good version of the backend still serves.
				if got := n.getRaw(t, "/configuration/backends"); got != current {
					t.Errorf("POST %s: backends now %s, want the last good ones", c.body, got)
				}
				serves(t, "a bad version of the backend")
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := n.lua.PostBackends(ctx, good); err != nil {
			t.Fatal(err)
		}
		serves(t, "the dropped entries")
	})

	t.Run("addresses", func(t *testing.T) {
		for _, c := range []struct {
			address string
			ok      bool
		}{
			{"10.0.0.1", true}, {"::1", true}, {"fe80::1", true}, {"2001:db8::ff00:42:8329", true},
			{"2001:0db8:0000:0000:0000:ff00:0042:8329", true}, {"::ffff:192.0.2.1", true}, {"::", true},
			{"[2001:db8::1]", true}, {"example.com", true}, {"svc.ns.svc.cluster.local.", true}, {"a-b.c1", true},
			{"256.1.1.1", false}, {"1.2.3", false}, {"01.2.3.4", false}, {"fe80::1::2", false},
			{"2001:db8:::1", false}, {"1:2:3:4:5:6:7:8:9", false}, {"12345::1", false}, {"[10.0.0.1]", false},
			{"exa_mple.com", false}, {"-a.example.com", false}, {"a-.example.com", false}, {"a..example.com", false},
			{" 10.0.0.1", false}, {strings.Repeat("a", 64) + ".example.com", false}, {"127.1", false}, {"2130706433", false},
		} {
			status, msg := n.post(t, "/configuration/backends", ep(c.address, "80"))
			if ok := status == http.StatusCreated && msg == ""; ok != c.ok {
				t.Errorf("endpoint address %q: %d %q, want accepted=%v", c.address, status, msg, c.ok)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := n.lua.PostBackends(ctx, good); err != nil {
			t.Fatal(err)
		}
		serves(t, "the address checks")
	})

	t.Run("the client carries nginx's answer", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		bad := append([]luaapi.Backend{{Name: "x", Endpoints: []luaapi.Endpoint{{Address: "no way", Port: "80"}}}}, good...)
		dropped, err := n.lua.PostBackendsReport(ctx, bad)
		if err != nil || len(dropped) != 1 || dropped[0].Name != "x" || dropped[0].Kind != luaapi.DroppedBackend ||
			!strings.Contains(dropped[0].Reason, "neither an IP address nor a DNS name") {
			t.Errorf("PostBackendsReport with a bad address = %+v, %v; want x dropped with nginx's reason", dropped, err)
		}
		serves(t, "a payload with a dropped backend")
		_, err = n.lua.PostBackendsReport(ctx, []luaapi.Backend{{Name: ""}})
		var se *luaapi.StatusError
		if !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Body, "no entry has a name") {
			t.Errorf("PostBackendsReport without a name = %v, want a 400 StatusError with nginx's message", err)
		}
		if dropped, err := n.lua.PostBackendsReport(ctx, good); err != nil || len(dropped) != 0 {
			t.Errorf("PostBackendsReport of good backends = %v, %v; want nothing dropped", dropped, err)
		}
	})

	t.Run("413", func(t *testing.T) {
		// Larger than the dict: refused before it is read.
		status, msg := n.post(t, "/configuration/backends", fillerBackends(t, 1200<<10, good))
		if status != http.StatusRequestEntityTooLarge {
			t.Errorf("POST 1.2 MB into a 1 MB dict = %d %q, want 413", status, msg)
		}
		serves(t, "the refused large POST")
		// 600 kB fits; another 610 kB does not fit beside it and replaces
		// it in place.
		big := fillerBackends(t, 600<<10, good)
		if status, msg := n.post(t, "/configuration/backends", big); status != http.StatusCreated {
			t.Fatalf("POST 600 kB = %d %q, want 201", status, msg)
		}
		serves(t, "600 kB of backends")
		other := fillerBackends(t, 610<<10, good)
		if status, msg := n.post(t, "/configuration/backends", other); status != http.StatusCreated {
			t.Errorf("POST another 610 kB beside 600 kB in a 1 MB dict = %d %q, want 201 (in place)", status, msg)
		}
		if got := n.getRaw(t, "/configuration/backends"); got != other {
			t.Errorf("GET after the in-place POST: %d bytes, want the %d posted", len(got), len(other))
		}
		serves(t, "the in-place POST")
		// A payload that fits beside it replaces it.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := n.lua.PostBackends(ctx, good); err != nil {
			t.Fatal(err)
		}
		serves(t, "a small POST")
	})

	t.Run("general", func(t *testing.T) {
		if status, msg := n.post(t, "/configuration/general", `{"controllerPodsCount": 3}`); status != http.StatusCreated {
			t.Fatalf("POST general = %d %q", status, msg)
		}
		for range 4 { // either worker
			if got := n.getRaw(t, "/configuration/general"); got != `{"controllerPodsCount": 3}` {
				t.Fatalf("GET general = %q", got)
			}
		}
	})
}
