package render

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStepDiffTurnsOldIntoNew: for random edits of a list of Ingresses
// (insertions, removals, replacements under the same or another name,
// moves), the changes stepDiff finds turn the old index into the new one,
// stepIndex's formerly holds what each changed name had, and an Ingress
// that only moved is no change.
func TestStepDiffTurnsOldIntoNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ing := func(name string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}
	indexOf := func(list []*networkingv1.Ingress) map[nsName]*networkingv1.Ingress {
		m := map[nsName]*networkingv1.Ingress{}
		for _, i := range list {
			m[nsName{i.Namespace, i.Name}] = i
		}
		return m
	}
	serial := 0
	for round := range 2000 {
		var old []*networkingv1.Ingress
		for i := range rng.IntN(30) {
			old = append(old, ing(fmt.Sprintf("i%d", i)))
		}
		next := slices.Clone(old)
		for range rng.IntN(5) {
			serial++
			switch k := rng.IntN(4); {
			case k == 0 || len(next) == 0: // a new one anywhere
				at := rng.IntN(len(next) + 1)
				next = slices.Insert(next, at, ing(fmt.Sprintf("n%d", serial)))
			case k == 1: // one removed
				at := rng.IntN(len(next))
				next = slices.Delete(next, at, at+1)
			case k == 2: // one changed: the same name, another object
				at := rng.IntN(len(next))
				next[at] = ing(next[at].Name)
			default: // one moved
				at, to := rng.IntN(len(next)), rng.IntN(len(next))
				moved := next[at]
				next = slices.Insert(slices.Delete(next, at, at+1), to, moved)
			}
		}
		changes, ok := stepDiff(old, next, maxSteppedChanges)
		if !ok {
			t.Fatalf("round %d: more than %d changes", round, maxSteppedChanges)
		}
		last := &incrementalState{ingresses: indexOf(old)}
		before := indexOf(old)
		st := &incrementalState{}
		if !st.stepIndex(last, changes) {
			t.Fatalf("round %d: a duplicate where there is none", round)
		}
		want := indexOf(next)
		if len(st.ingresses) != len(want) {
			t.Fatalf("round %d: %d Ingresses indexed, want %d", round, len(st.ingresses), len(want))
		}
		for n, i := range want {
			if st.ingresses[n] != i {
				t.Fatalf("round %d: %v indexed as %p, want %p", round, n, st.ingresses[n], i)
			}
		}
		changed := map[nsName]bool{}
		for _, n := range st.changed {
			changed[n] = true
			if st.formerly[n] != before[n] {
				t.Fatalf("round %d: formerly[%v] %p, want %p", round, n, st.formerly[n], before[n])
			}
		}
		for n := range before {
			if (before[n] != want[n]) != changed[n] {
				t.Fatalf("round %d: %v changed %v, listed %v", round, n, before[n] != want[n], changed[n])
			}
		}
		for n := range want {
			if (before[n] != want[n]) != changed[n] {
				t.Fatalf("round %d: %v changed %v, listed %v", round, n, before[n] != want[n], changed[n])
			}
		}
	}
	// a second Ingress of a name that stays is a duplicate
	a := ing("a")
	changes, _ := stepDiff([]*networkingv1.Ingress{a}, []*networkingv1.Ingress{a, ing("a")}, maxSteppedChanges)
	if (&incrementalState{}).stepIndex(&incrementalState{ingresses: indexOf([]*networkingv1.Ingress{a})}, changes) {
		t.Error("a duplicate name was indexed")
	}
	// past the limit, the caller indexes anew
	if _, ok := stepDiff(nil, []*networkingv1.Ingress{ing("x"), ing("y"), ing("z")}, 2); ok {
		t.Error("3 changes within a limit of 2")
	}
}
