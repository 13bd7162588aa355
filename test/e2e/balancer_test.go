package e2e

// Real traffic through each balancing mode of lua/balancer_*.lua, chosen by
// the Ingress annotations as ingress-nginx chooses them.

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRoundRobinSpreadsEvenly(t *testing.T) {
	bs := startBackends(t, "rr", 3)
	n := startNginx(t, serviceOf("rr", bs...)+ingressOf("rr", "rr.example.com", "rr", "2026-01-01T00:00:00Z", nil))
	ta := load(newClient(8), 3000, 8, func(int) *http.Request { return n.request("rr.example.com", "/") })
	if ta.failures > 0 {
		t.Fatalf("failed requests: %s", ta)
	}
	for _, b := range bs {
		if got := ta.byName[b.name]; !within(got, 1000, 0.05) {
			t.Errorf("%s got %d of 3000 requests, want 1000 ± 5%% (%s)", b.name, got, ta)
		}
	}
}

func TestEWMAAvoidsTheSlowEndpoint(t *testing.T) {
	fast := startBackends(t, "fast", 2)
	slow := startBackend(t, "slow", 50*time.Millisecond)
	n := startNginx(t, serviceOf("ewma", fast[0], fast[1], slow)+
		ingressOf("ewma", "ewma.example.com", "ewma", "2026-01-01T00:00:00Z", map[string]string{"load-balance": "ewma"}))
	ta := load(newClient(6), 600, 6, func(int) *http.Request { return n.request("ewma.example.com", "/") })
	if ta.failures > 0 {
		t.Fatalf("failed requests: %s", ta)
	}
	// Round robin would give each 200; the slow one must get clearly less
	// than half of what either fast one gets.
	s := ta.byName["slow"]
	for _, f := range fast {
		if 2*s >= ta.byName[f.name] {
			t.Errorf("slow endpoint got %d requests, %s got %d: want less than half (%s)", s, f.name, ta.byName[f.name], ta)
		}
	}
	t.Logf("ewma: %s", ta)
}

func TestConsistentHash(t *testing.T) {
	bs := startBackends(t, "ch", 4)
	sub := startBackends(t, "sub", 4)
	manifests := func(hashed []*backend) string {
		return serviceOf("ch", hashed...) +
			ingressOf("ch", "chash.example.com", "ch", "2026-01-01T00:00:00Z", map[string]string{"upstream-hash-by": "$arg_key"}) +
			serviceOf("sub", sub...) +
			ingressOf("sub", "subset.example.com", "sub", "2026-01-01T00:00:01Z", map[string]string{
				"upstream-hash-by": "$arg_key", "upstream-hash-by-subset": "true", "upstream-hash-by-subset-size": "2"})
	}
	n := startNginx(t, manifests(bs))
	const keys = 1000
	// route sends every key once with a new client (new connections, so
	// both workers answer) and returns key -> backend.
	route := func() []string {
		out := make([]string, keys)
		c := newClient(8)
		ta := newTally()
		done := make(chan struct{})
		next := make(chan int)
		for range 8 {
			go func() {
				for i := range next {
					r := send(c, n.request("chash.example.com", fmt.Sprintf("/?key=user-%d", i)))
					ta.add(r)
					out[i] = r.backend
				}
				done <- struct{}{}
			}()
		}
		for i := range keys {
			next <- i
		}
		close(next)
		for range 8 {
			<-done
		}
		if ta.failures > 0 {
			t.Fatalf("failed requests: %s", ta)
		}
		for _, b := range bs {
			if ta.byName[b.name] > 0 && ta.byName[b.name] < keys/10 {
				t.Errorf("%s owns only %d of %d keys (%s)", b.name, ta.byName[b.name], keys, ta)
			}
		}
		return out
	}
	first := route()
	again := route()
	for i := range keys {
		if first[i] != again[i] {
			t.Fatalf("key user-%d went to %s, then to %s", i, first[i], again[i])
		}
	}

	// Remove one of the four endpoints: only its keys move.
	removed := bs[3].name
	n.push(t, manifests(bs[:3]))
	after := route()
	moved := 0
	for i := range keys {
		if after[i] == removed {
			t.Fatalf("key user-%d still goes to the removed %s", i, removed)
		}
		if after[i] != first[i] {
			moved++
			if first[i] != removed {
				t.Errorf("key user-%d moved from %s to %s though its endpoint stayed", i, first[i], after[i])
			}
		}
	}
	if moved > keys*35/100 {
		t.Errorf("%d of %d keys moved, want at most 35%%", moved, keys)
	}
	t.Logf("removing 1 of 4 endpoints moved %d of %d keys", moved, keys)

	t.Run("subset", func(t *testing.T) {
		c := newClient(4)
		all := map[string]bool{}
		for k := range 40 {
			seen := map[string]bool{}
			for range 10 {
				r := send(c, n.request("subset.example.com", fmt.Sprintf("/?key=k%d", k)))
				if r.err != nil || r.status != http.StatusOK {
					t.Fatalf("key k%d: %d %v", k, r.status, r.err)
				}
				seen[r.backend] = true
				all[r.backend] = true
			}
			if len(seen) > 2 {
				t.Errorf("key k%d went to %d endpoints, want at most the subset size 2: %v", k, len(seen), seen)
			}
		}
		if len(all) < 3 {
			t.Errorf("40 keys used only %v of 4 endpoints", all)
		}
	})
}

// TestEWMATimeStamps: the ewma balancer keeps the time of a measurement
// in the flags of its shared-dict entry, milliseconds modulo 2^32. The
// flags are a C int: a time stored as 2^31 ms or more (half of every 49.7
// days) must come back as itself, and an age across either wrap must be
// the real one, not 24 or 49 days (which would decay every score to 0).
func TestEWMATimeStamps(t *testing.T) {
	port := freePort(t)
	startNginxWith(t, "", nginxOptions{editConf: func(conf string) string {
		end := strings.LastIndex(conf, "}")
		return conf[:end] + fmt.Sprintf(`	server {
		listen 127.0.0.1:%d;
		location = /stamps {
			content_by_lua_block {
				local ewma = require("balancer_ewma")
				local dict = ngx.shared.balancer_ewma
				-- each case: the time of the measurement and of the read, in
				-- seconds (multiples of 1/8 s: exact in milliseconds);
				-- 2^31 ms is 2147483.648 s, 2^32 ms 4294967.296 s
				for _, c in ipairs({
					{ 1000, 1001.5 },             -- far from both wraps
					{ 2147483.5, 2147485 },       -- across 2^31 ms
					{ 2147490, 2147492.5 },       -- above 2^31 ms
					{ 4294967, 4294968 },         -- across 2^32 ms
					{ 1001.5, 1000 },             -- the other worker's later clock
				}) do
					local ok, err = dict:set("stamp", 1, 0, ewma.stamp(c[1]))
					if not ok then
						ngx.say("set: ", err)
					end
					local _, flags = dict:get("stamp")
					ngx.say(string.format("%%.3f", ewma.age(c[2], flags)))
				end
			}
		}
	}
`, port) + conf[end:]
	}})
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/stamps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := "1.500\n1.500\n2.500\n1.000\n0.000\n"; string(body) != want {
		t.Errorf("ages read back from the flags:\n%s\nwant\n%s", body, want)
	}
}
