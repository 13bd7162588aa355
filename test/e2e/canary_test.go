package e2e

// Canary routing (lua/canary.lua) with real traffic: by header (always,
// never, value, pattern), by cookie (always, never) and by weight, in
// ingress-nginx's order; adding the canary Ingresses needs no reload.

import (
	"net/http"
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
