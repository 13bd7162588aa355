package render

import "iter"

// memberSet is the Ingresses that name one key of a keyIndex. Most keys
// (a host, a Service) are named by one Ingress or a few: those are a short
// list, at 100,000 Ingresses about a third of the memory of a map each.
// A key that many Ingresses name (one Service behind thousands of hosts)
// becomes a map, so that taking one out stays cheap.
type memberSet struct {
	few  []nsName
	many map[nsName]struct{}
}

// fewMembers is the most Ingresses a memberSet holds in its list.
const fewMembers = 16

// add puts n in the set; n is not in it (keyIndex.set takes an Ingress
// out of all its keys before it adds it again).
func (s *memberSet) add(n nsName) {
	switch {
	case s.many != nil:
		s.many[n] = struct{}{}
	case len(s.few) < fewMembers:
		s.few = append(s.few, n)
	default:
		s.many = make(map[nsName]struct{}, 2*fewMembers)
		for _, m := range s.few {
			s.many[m] = struct{}{}
		}
		s.many[n] = struct{}{}
		s.few = nil
	}
}

// remove takes n out of the set, if it is in it.
func (s *memberSet) remove(n nsName) {
	if s.many != nil {
		delete(s.many, n)
		return
	}
	for i, m := range s.few {
		if m == n {
			last := len(s.few) - 1
			s.few[i] = s.few[last]
			s.few[last] = nsName{}
			s.few = s.few[:last]
			return
		}
	}
}

// len is the number of Ingresses in the set.
func (s memberSet) len() int {
	if s.many != nil {
		return len(s.many)
	}
	return len(s.few)
}

// all yields the Ingresses of the set, in no particular order.
func (s memberSet) all() iter.Seq[nsName] {
	return func(yield func(nsName) bool) {
		if s.many != nil {
			for n := range s.many {
				if !yield(n) {
					return
				}
			}
			return
		}
		for _, n := range s.few {
			if !yield(n) {
				return
			}
		}
	}
}
