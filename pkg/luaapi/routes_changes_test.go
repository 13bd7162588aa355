package luaapi

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSortedRoutesChanges: on sorted lists, walking them in step gives
// the update the maps give, for random lists of hosts with random
// versions (hosts only in one, in both with the same or another version).
func TestSortedRoutesChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	list := func() []HostRoutes {
		var out []HostRoutes
		for i := range 30 {
			if rng.IntN(2) == 0 {
				out = append(out, HostRoutes{Host: fmt.Sprintf("h%02d.example.com", i), Version: fmt.Sprint(rng.IntN(2))})
			}
		}
		return out
	}
	for range 500 {
		running, desired := list(), list()
		got, want := RoutesChanges(running, desired), mappedRoutesChanges(running, desired)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("running %v, desired %v:\n got %+v\nwant %+v", running, desired, got, want)
		}
	}
	// Unsorted lists go through the maps.
	running := []HostRoutes{{Host: "b", Version: "1"}, {Host: "a", Version: "1"}}
	desired := []HostRoutes{{Host: "c", Version: "1"}, {Host: "a", Version: "2"}}
	got := RoutesChanges(running, desired)
	hosts := []string{}
	for _, h := range got.Hosts {
		hosts = append(hosts, h.Host)
	}
	if !slices.Equal(hosts, []string{"c", "a"}) || strings.Join(got.Delete, ",") != "b" {
		t.Errorf("unsorted: %+v", got)
	}
}
