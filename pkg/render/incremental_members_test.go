package render

import (
	"fmt"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

// TestMemberSet holds the set to a map through adds and removes on both
// sides of the list's limit.
func TestMemberSet(t *testing.T) {
	var s memberSet
	want := map[nsName]bool{}
	check := func(step string) {
		t.Helper()
		if s.len() != len(want) {
			t.Fatalf("%s: len %d, want %d", step, s.len(), len(want))
		}
		got := map[nsName]bool{}
		for n := range s.all() {
			if got[n] {
				t.Fatalf("%s: %v yielded twice", step, n)
			}
			got[n] = true
		}
		for n := range want {
			if !got[n] {
				t.Fatalf("%s: %v missing (got %v)", step, n, got)
			}
		}
	}
	name := func(i int) nsName { return nsName{"ns", fmt.Sprint("ing-", i)} }
	for i := range fewMembers {
		s.add(name(i))
		want[name(i)] = true
	}
	if s.many != nil {
		t.Fatalf("%d members: a map already", fewMembers)
	}
	check("full list")
	s.remove(name(3))
	delete(want, name(3))
	s.remove(name(99)) // not in it
	check("list, one removed")
	s.add(name(3))
	s.add(name(100))
	want[name(3)], want[name(100)] = true, true
	if s.many == nil {
		t.Fatalf("%d members: still a list", s.len())
	}
	check("map")
	for i := range 101 {
		s.remove(name(i))
	}
	clear(want)
	check("map, all removed")
	var stop int
	s = memberSet{few: []nsName{name(1), name(2)}}
	for range s.all() {
		stop++
		break
	}
	if stop != 1 {
		t.Fatalf("all went on after break: %d", stop)
	}
}

// TestKeyIndexOneKeyPerName: an Ingress that names its host in a rule and
// in tls, and its Service in two paths, is a member of each key once, and
// leaves each when it is removed.
func TestKeyIndexOneKeyPerName(t *testing.T) {
	ing := newTestIngress("a", 0, testRule("a.example.com", "/x", "/y"))
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"A.example.com"}}}
	keys := groupKeys(ing)
	if want := []string{"h:a.example.com", "s:default/web"}; !slices.Equal(keys, want) {
		t.Fatalf("groupKeys = %q, want %q", keys, want)
	}
	x := newKeyIndex(nil)
	n := nsName{"default", "a"}
	x.set(n, ing)
	x.set(n, ing) // again: still once
	for _, k := range keys {
		if got := x.members[k].len(); got != 1 {
			t.Fatalf("key %s: %d members, want 1", k, got)
		}
	}
	x.set(n, nil)
	if len(x.members) != 0 || len(x.keys) != 0 {
		t.Fatalf("after removal: members %v, keys %v", x.members, x.keys)
	}
}
