package e2e

// Canary routing (lua/canary.lua) with real traffic: by header (always,
// never, value, pattern), by cookie (always, never) and by weight, in
// ingress-nginx's order; adding the canary Ingresses needs no reload.

import (
	"net/http"
	"strings"
	"testing"
)

func TestCanary(t *testing.T) {
	stable := startBackend(t, "stable", 0)
	canary := startBackend(t, "canary", 0)
	hosts := []struct {
		host        string
		annotations map[string]string
	}{
		{"hdr.example.com", map[string]string{"canary-by-header": "X-Canary", "canary-by-cookie": "e2e_canary"}},
		{"value.example.com", map[string]string{"canary-by-header": "X-Canary", "canary-by-header-value": "yes-please"}},
		{"pattern.example.com", map[string]string{"canary-by-header": "X-Canary", "canary-by-header-pattern": "^(beta|gamma)-[0-9]+$"}},
		{"weight.example.com", map[string]string{"canary-weight": "20"}},
	}
	// withCanaries is every host with a canary Ingress; the canary Service
	// of the first host has no endpoints when emptyFirst.
	var primaries string
	withCanaries := func(emptyFirst bool) string {
		all := primaries
		for i, h := range hosts {
			name := "p" + string(rune('a'+i))
			a := map[string]string{"canary": "true"}
			for k, v := range h.annotations {
				a[k] = v
			}
			svc := serviceOf(name+"-canary", canary)
			if emptyFirst && i == 0 {
				svc = serviceOf(name + "-canary")
			}
			all += svc + ingressOf(name+"-canary", h.host, name+"-canary", "2026-01-02T00:00:00Z", a)
		}
		return all
	}
	for i, h := range hosts {
		name := "p" + string(rune('a'+i))
		primaries += serviceOf(name, stable) + ingressOf(name, h.host, name, "2026-01-01T00:00:00Z", nil)
	}
	n := startNginx(t, primaries)
	before, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(4)
	if r := send(c, n.request("hdr.example.com", "/", "X-Canary", "always")); r.backend != "stable" {
		t.Fatalf("before the canary Ingresses: %d %q %v, want stable", r.status, r.backend, r.err)
	}
	// Adding canary Ingresses on existing hosts and paths changes only the
	// backends: push fails the test if nginx.conf would change.
	n.push(t, withCanaries(false))

	cases := []struct {
		name, host string
		headers    []string
		want       string
	}{
		{"no header, no cookie, weight 0", "hdr.example.com", nil, "stable"},
		{"header always", "hdr.example.com", []string{"X-Canary", "always"}, "canary"},
		{"header never", "hdr.example.com", []string{"X-Canary", "never"}, "stable"},
		{"header never wins over cookie always", "hdr.example.com", []string{"X-Canary", "never", "Cookie", "e2e_canary=always"}, "stable"},
		{"other header value falls through to the cookie", "hdr.example.com", []string{"X-Canary", "maybe", "Cookie", "e2e_canary=always"}, "canary"},
		{"cookie always", "hdr.example.com", []string{"Cookie", "a=b; e2e_canary=always"}, "canary"},
		{"cookie never", "hdr.example.com", []string{"Cookie", "e2e_canary=never"}, "stable"},
		{"header always wins over cookie never", "hdr.example.com", []string{"X-Canary", "always", "Cookie", "e2e_canary=never"}, "canary"},
		{"header value", "value.example.com", []string{"X-Canary", "yes-please"}, "canary"},
		{"other header value", "value.example.com", []string{"X-Canary", "no"}, "stable"},
		{"always is only a value when a value is set", "value.example.com", []string{"X-Canary", "always"}, "stable"},
		{"header pattern", "pattern.example.com", []string{"X-Canary", "beta-42"}, "canary"},
		{"header pattern, other", "pattern.example.com", []string{"X-Canary", "gamma-x"}, "stable"},
		{"header pattern, none", "pattern.example.com", nil, "stable"},
	}
	for _, tc := range cases {
		// Several requests: a decision that depended on chance or on the
		// worker would show.
		for range 6 {
			r := send(c, n.request(tc.host, "/", tc.headers...))
			if r.err != nil || r.status != http.StatusOK || r.backend != tc.want {
				t.Errorf("%s: %s %v: %d %q %v, want %s", tc.name, tc.host, tc.headers, r.status, r.backend, r.err, tc.want)
				break
			}
		}
	}

	t.Run("weight 20", func(t *testing.T) {
		ta := load(newClient(8), 5000, 8, func(int) *http.Request { return n.request("weight.example.com", "/") })
		if ta.failures > 0 {
			t.Fatalf("failed requests: %s", ta)
		}
		if got := ta.byName["canary"]; got < 850 || got > 1150 {
			t.Errorf("canary got %d of 5000 requests, want 20%% ± 3%% (850..1150): %s", got, ta)
		}
		t.Logf("weight 20: %s", ta)
	})

	t.Run("a canary without endpoints is skipped", func(t *testing.T) {
		n.push(t, withCanaries(true))
		if r := send(c, n.request("hdr.example.com", "/", "X-Canary", "always")); r.status != http.StatusOK || r.backend != "stable" {
			t.Errorf("canary without endpoints, header always: %d %q %v, want stable", r.status, r.backend, r.err)
		}
	})

	if after, err := n.inst.WorkerPids(); err != nil || len(after) != len(before) || after[0] != before[0] || after[1] != before[1] {
		t.Errorf("worker pids changed from %v to %v (%v): a reload happened", before, after, err)
	}
}

// TestCanaryAffinity: with affinity-canary-behavior "sticky" (the default)
// a canary answer carries the primary's affinity cookie and the client
// stays on the canary, as ingress-nginx copies the primary's affinity into
// the canary backend; with "legacy" the canary's answers carry no cookie.
func TestCanaryAffinity(t *testing.T) {
	stable := startBackend(t, "stable", 0)
	canary := startBackend(t, "canary", 0)
	sticky := map[string]string{"affinity": "cookie", "session-cookie-name": "e2eroute"}
	manifests := ""
	for _, h := range []struct{ name, behavior string }{{"st", ""}, {"lg", "legacy"}} {
		a := map[string]string{"canary": "true", "canary-weight": "50"}
		if h.behavior != "" {
			a["affinity-canary-behavior"] = h.behavior
		}
		host := h.name + ".canary.example.com"
		manifests += serviceOf(h.name, stable) + ingressOf(h.name, host, h.name, "2026-01-01T00:00:00Z", sticky) +
			serviceOf(h.name+"-canary", canary) + ingressOf(h.name+"-canary", host, h.name+"-canary", "2026-01-02T00:00:00Z", a)
	}
	n := startNginx(t, manifests)
	c := newClient(2)
	// firstCanary returns the first answer of a new client that the canary
	// gave (weight 50: 40 tries all missing it has p = 1e-12).
	firstCanary := func(host string) reply {
		t.Helper()
		for range 40 {
			r := send(c, n.request(host, "/"))
			if r.err != nil || r.status != http.StatusOK {
				t.Fatalf("GET %s: %d %v", host, r.status, r.err)
			}
			if r.backend == "canary" {
				return r
			}
		}
		t.Fatalf("GET %s: 40 new clients, none went to the canary", host)
		return reply{}
	}

	r := firstCanary("st.canary.example.com")
	cookie, _ := setCookie(r.header, "e2eroute")
	if cookie == "" {
		t.Fatalf("sticky: the canary's answer carries no affinity cookie (Set-Cookie %q)", r.header.Values("Set-Cookie"))
	}
	ta := newTally()
	for range 40 {
		ta.add(send(c, n.request("st.canary.example.com", "/", "Cookie", "e2eroute="+cookie)))
	}
	if ta.byName["canary"] != 40 {
		t.Errorf("sticky: 40 requests with the canary's cookie: %s, want all on the canary", ta)
	}

	r = firstCanary("lg.canary.example.com")
	if v, _ := setCookie(r.header, "e2eroute"); v != "" {
		t.Errorf("legacy: the canary's answer carries the affinity cookie %q, want none", v)
	}
}

// TestCanaryInvalidHeaderPattern: an invalid canary-by-header-pattern is a
// Problem, and a request carrying the header goes to the primary even with
// canary-by-cookie "always", as in ingress-nginx (whose Lua fails to match
// the pattern and answers "primary" before looking at the cookie); without
// the header the cookie still sends it to the canary.
func TestCanaryInvalidHeaderPattern(t *testing.T) {
	stable := startBackend(t, "stable", 0)
	canary := startBackend(t, "canary", 0)
	const host = "badpattern.example.com"
	manifests := serviceOf("bp", stable) + ingressOf("bp", host, "bp", "2026-01-01T00:00:00Z", nil) +
		serviceOf("bp-canary", canary) + ingressOf("bp-canary", host, "bp-canary", "2026-01-02T00:00:00Z", map[string]string{
		"canary": "true", "canary-by-header": "X-Canary", "canary-by-header-pattern": "^(v1", "canary-by-cookie": "e2e_canary"})
	n := startNginx(t, manifests)
	if len(n.problems) != 1 || !strings.Contains(n.problems[0].String(), "canary-by-header-pattern") {
		t.Errorf("problems %v, want one on canary-by-header-pattern", n.problems)
	}
	c := newClient(2)
	for _, tc := range []struct {
		name    string
		headers []string
		want    string
	}{
		{"header and cookie always", []string{"X-Canary", "v1", "Cookie", "e2e_canary=always"}, "stable"},
		{"header always and cookie always", []string{"X-Canary", "always", "Cookie", "e2e_canary=always"}, "stable"},
		{"cookie always, no header", []string{"Cookie", "e2e_canary=always"}, "canary"},
		{"nothing", nil, "stable"},
	} {
		for range 5 {
			if r := send(c, n.request(host, "/", tc.headers...)); r.err != nil || r.backend != tc.want {
				t.Errorf("%s: %d %q %v, want %s", tc.name, r.status, r.backend, r.err, tc.want)
				break
			}
		}
	}
}
