package sync

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestPairBackends: sorted lists are walked in step, unsorted ones through
// maps, and both give every name once, in name order, with each side's
// backend.
func TestPairBackends(t *testing.T) {
	old := []model.Backend{{Name: "a"}, {Name: "b", Port: "1"}, {Name: "d"}}
	cur := []model.Backend{{Name: "b", Port: "2"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	want := []string{"a old", "b 1 2", "c new", "d both", "e new"}
	describe := func(name string, o, c *model.Backend) string {
		switch {
		case o == nil:
			return name + " new"
		case c == nil:
			return name + " old"
		case o.Port != c.Port:
			return fmt.Sprintf("%s %s %s", name, o.Port, c.Port)
		}
		return name + " both"
	}
	for _, tc := range []struct {
		name     string
		old, cur []model.Backend
	}{
		{"sorted", old, cur},
		{"unsorted", []model.Backend{old[2], old[0], old[1]}, []model.Backend{cur[3], cur[1], cur[0], cur[2]}},
	} {
		var got []string
		pairBackends(tc.old, tc.cur, func(name string, o, c *model.Backend) { got = append(got, describe(name, o, c)) })
		if !slices.Equal(got, want) {
			t.Errorf("%s: pairs %q, want %q", tc.name, got, want)
		}
	}
}
