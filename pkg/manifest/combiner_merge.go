package manifest

import (
	"cmp"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// namedObject is an object of a Snapshot: a pointer with a namespace and
// a name.
type namedObject interface {
	comparable
	GetNamespace() string
	GetName() string
}

// compareObjects orders by namespace, then name, as sortSnapshot does.
func compareObjects[T namedObject](a, b T) int {
	return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
}

// mergeSnapshot returns, in fresh slices, each kind of last (sorted by
// namespace, then name) without the objects of removed and with those of
// added, sorted the same way; UnreadIngresses are left out. false when an
// object of removed is not in last.
func mergeSnapshot(last, removed, added render.Snapshot) (render.Snapshot, bool) {
	var s render.Snapshot
	var ok [6]bool
	s.Ingresses, ok[0] = mergeSorted(last.Ingresses, removed.Ingresses, added.Ingresses)
	s.IngressClasses, ok[1] = mergeSorted(last.IngressClasses, removed.IngressClasses, added.IngressClasses)
	s.Services, ok[2] = mergeSorted(last.Services, removed.Services, added.Services)
	s.EndpointSlices, ok[3] = mergeSorted(last.EndpointSlices, removed.EndpointSlices, added.EndpointSlices)
	s.Secrets, ok[4] = mergeSorted(last.Secrets, removed.Secrets, added.Secrets)
	s.ConfigMaps, ok[5] = mergeSorted(last.ConfigMaps, removed.ConfigMaps, added.ConfigMaps)
	return s, ok == [6]bool{true, true, true, true, true, true}
}

// mergeSorted returns a new slice: sorted (unique keys, sorted by
// namespace, then name) without the objects of removed (which it holds)
// and with those of added (whose keys are neither in sorted, unless their
// object is removed, nor twice in added). It finds where each change goes
// by binary search and copies the runs between them: O(len(sorted)) copy,
// O(changes × log) comparisons. nil when nothing is left, as Combine
// leaves a kind without objects; false when an object of removed is not
// in sorted.
func mergeSorted[T namedObject](sorted, removed, added []T) ([]T, bool) {
	if len(removed) == 0 && len(added) == 0 {
		return slices.Clone(sorted), true
	}
	drop := make([]int, len(removed))
	for i, r := range removed {
		j, found := slices.BinarySearchFunc(sorted, r, compareObjects[T])
		if !found || sorted[j] != r {
			return nil, false
		}
		drop[i] = j
	}
	slices.Sort(drop)
	added = slices.Clone(added)
	slices.SortFunc(added, compareObjects[T])
	// insertAt[i] is the index of sorted before which added[i] goes: not
	// decreasing, as added is sorted. An added object whose key a removed
	// one has goes before it, in its place.
	insertAt := make([]int, len(added))
	for i, a := range added {
		insertAt[i], _ = slices.BinarySearchFunc(sorted, a, compareObjects[T])
	}
	n := len(sorted) - len(drop) + len(added)
	if n == 0 {
		return nil, true
	}
	out := make([]T, 0, n)
	pos, a, d := 0, 0, 0
	for {
		next := len(sorted)
		if a < len(added) {
			next = min(next, insertAt[a])
		}
		if d < len(drop) {
			next = min(next, drop[d])
		}
		out = append(out, sorted[pos:next]...)
		pos = next
		for a < len(added) && insertAt[a] == pos {
			out = append(out, added[a])
			a++
		}
		if d < len(drop) && drop[d] == pos {
			pos++
			d++
			continue
		}
		if pos == len(sorted) {
			return out, true
		}
	}
}
