package sync

import (
	"fmt"
	"math/rand/v2"
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
		pairBackends(tc.old, tc.cur, tc.name == "sorted", func(name string, o, c *model.Backend) { got = append(got, describe(name, o, c)) })
		if !slices.Equal(got, want) {
			t.Errorf("%s: pairs %q, want %q", tc.name, got, want)
		}
	}
}

// TestHostCertificatesInStep: walking sorted servers in step finds the
// same certificate changes as the maps of every host, for random edits
// (hosts added, removed, their certificates changed); with an alias it
// leaves the work to the maps.
func TestHostCertificatesInStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	servers := func() []model.Server {
		out := []model.Server{{Hostname: model.CatchAllHost, CertificateID: []string{"", "ns/default"}[rng.IntN(2)]}}
		for i := range 30 {
			if rng.IntN(3) > 0 {
				out = append(out, model.Server{Hostname: fmt.Sprintf("h%02d.example.com", i), CertificateID: []string{"", "ns/a", "ns/b"}[rng.IntN(3)]})
			}
		}
		return out
	}
	for round := range 500 {
		old, cur := &model.Config{Servers: servers()}, &model.Config{Servers: servers()}
		if round%50 == 0 {
			cur.Servers[len(cur.Servers)-1].Aliases = []string{"alias.example.com"}
		}
		stepped, ok := stepHostCertificates(old.Servers, cur.Servers)
		if ok != (round%50 != 0) {
			t.Fatalf("round %d: walked in step: %v", round, ok)
		}
		got := hostCertificateChanges(old, cur, true)
		want := hostCertificateChanges(old, cur, false)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: in step %v, by maps %v", round, got, want)
		}
		if ok && !slices.Equal(stepped, want) {
			t.Fatalf("round %d: stepped %v, by maps %v", round, stepped, want)
		}
		if round == 0 && len(want) == 0 {
			t.Fatal("no change in the first round: the test compares nothing")
		}
	}
}
