package render

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// maxSteppedChanges bounds the Ingresses a Snapshot may differ by for
// indexSnapshot to update the last index in place instead of building a
// new one.
const maxSteppedChanges = 1024

// ingressChange is one difference between two Snapshots' Ingresses: old
// nil for an Ingress added, new nil for one removed, both for one put in
// the place of another.
type ingressChange struct {
	old, new *networkingv1.Ingress
}

// stepDiff walks old and new in step and returns what differs: with the
// same order for what is unchanged (the sources keep it), a change costs
// a pointer comparison per Ingress instead of a map of all of them. false
// when they differ by more than limit changes (the caller indexes new
// anew). Every Ingress of old and of new is either matched by pointer or
// in one change, so the changes turn old's set into new's whatever
// pairing the walk makes.
func stepDiff(old, new []*networkingv1.Ingress, limit int) ([]ingressChange, bool) {
	var out []ingressChange
	i, j := 0, 0
	for i < len(new) || j < len(old) {
		if len(out) > limit {
			return nil, false
		}
		switch {
		case i < len(new) && j < len(old) && new[i] == old[j]:
			i++
			j++
		case j >= len(old):
			out = append(out, ingressChange{new: new[i]})
			i++
		case i >= len(new):
			out = append(out, ingressChange{old: old[j]})
			j++
		case i+1 < len(new) && new[i+1] == old[j]:
			out = append(out, ingressChange{new: new[i]})
			i++
		case j+1 < len(old) && new[i] == old[j+1]:
			out = append(out, ingressChange{old: old[j]})
			j++
		default:
			out = append(out, ingressChange{old: old[j], new: new[i]})
			i++
			j++
		}
	}
	if len(out) > limit {
		return nil, false
	}
	return out, true
}

// stepIndex makes st's index of Ingresses from last's, updated in place
// by changes: st.formerly records what each changed name held before
// (nil: nothing), which last.restrict reads instead of the shared index,
// and st.changed lists those names. false when new holds two Ingresses of
// one name; the index is then no one's (Build falls back to a whole build
// without it).
func (st *incrementalState) stepIndex(last *incrementalState, changes []ingressChange) bool {
	index := last.ingresses
	st.ingresses = index
	st.formerly = make(map[nsName]*networkingv1.Ingress, len(changes))
	record := func(n nsName) {
		if _, ok := st.formerly[n]; !ok {
			st.formerly[n] = index[n]
			st.changed = append(st.changed, n)
		}
	}
	for _, c := range changes {
		if c.old != nil {
			n := nsName{c.old.Namespace, c.old.Name}
			record(n)
			delete(index, n)
		}
	}
	for _, c := range changes {
		if c.new != nil {
			n := nsName{c.new.Namespace, c.new.Name}
			if _, dup := index[n]; dup {
				return false
			}
			record(n)
			index[n] = c.new
		}
	}
	// an Ingress only moved in the order is no change
	kept := st.changed[:0]
	for _, n := range st.changed {
		if st.formerly[n] != index[n] {
			kept = append(kept, n)
		} else {
			delete(st.formerly, n)
		}
	}
	st.changed = kept
	st.stepped = true
	return true
}
