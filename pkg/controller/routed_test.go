package controller

import (
	"maps"
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// TestRoutedApplied: after an apply, routedHosts is desired's hosts:
// kept (the plan's deletions taken out) when it held no other host, made
// again when a failed attempt had left one that the plan did not delete.
func TestRoutedApplied(t *testing.T) {
	routes := func(hosts ...string) []luaapi.HostRoutes {
		out := make([]luaapi.HostRoutes, len(hosts))
		for i, h := range hosts {
			out[i] = luaapi.HostRoutes{Host: h}
		}
		return out
	}
	set := func(hosts ...string) map[string]bool {
		m := map[string]bool{}
		for _, h := range hosts {
			m[h] = true
		}
		return m
	}
	for _, tc := range []struct {
		name          string
		routed        map[string]bool // before the apply, apply's posts added
		deleted       []string
		desired       []string
		want          []string
		sameMapWanted bool
	}{
		{"a host deleted, one added", set("a", "b", "c"), []string{"b"}, []string{"a", "c"}, []string{"a", "c"}, true},
		{"nothing deleted", set("a", "b"), nil, []string{"a", "b"}, []string{"a", "b"}, true},
		{"a stray host of a failed attempt", set("a", "b", "x"), []string{"b"}, []string{"a"}, []string{"a"}, false},
		{"all deleted", set("a"), []string{"a"}, nil, []string{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &loopState{routedHosts: tc.routed}
			before := tc.routed
			var plan ksync.Plan
			plan.Routes.Delete = tc.deleted
			s.routedApplied(plan, ksync.State{Routes: routes(tc.desired...)})
			got := slices.Sorted(maps.Keys(s.routedHosts))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("routedHosts %v, want %v", got, tc.want)
			}
			// kept, not built again, when it held no other host
			before["probe"] = true
			if kept := s.routedHosts["probe"]; kept != tc.sameMapWanted {
				t.Errorf("the same map kept: %v, want %v", kept, tc.sameMapWanted)
			}
		})
	}
}
