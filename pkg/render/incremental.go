package render

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Incremental builds as Build does for a caller that builds again after
// every change (the controller): it keeps the last Snapshot and its Config,
// and when only Ingresses, Services and EndpointSlices changed, it builds
// only the groups of Ingresses the change touches (incremental_groups.go)
// and splices them into the last Config. The result is the Config and the
// Problems that Build gives for the same Snapshot and Options (the tests
// hold it to that); where a splice could differ (a change of the
// ConfigMap, a Secret, an IngressClass, the Options, the catch-all server,
// a name two groups would both build) it falls back to a whole Build.
//
// Objects are compared by pointer, as informers and the files source give
// them: an object that did not change must be the same pointer, and one
// that changed a new one (a changed object under an old pointer is not
// seen). The Configs it returns share their unchanged parts with the last
// one, so callers must not change a Config they got.
//
// An Incremental is not safe for concurrent use.
type Incremental struct {
	last *incrementalState
	// spliceAlways splices however many Ingresses a change touches (the
	// tests' small inputs; export_test.go).
	spliceAlways bool
	// Last says how the last Build went.
	Last IncrementalStats
}

// IncrementalStats describe one Build of an Incremental.
type IncrementalStats struct {
	// Whole is true when it built everything, with why.
	Whole bool
	Why   string
	// Rebuilt is the number of Ingresses built again (old and new
	// versions counted once).
	Rebuilt int
}

type incrementalState struct {
	snap     Snapshot
	opts     Options
	cfg      *model.Config
	problems []model.Problem

	// ingresses indexes the Snapshot's Ingresses by name. When stepped,
	// it is last's index updated in place (incremental_index.go): changed
	// lists the names that differ from last's, and formerly what each of
	// them held in last (nil for nothing), which last.restrict reads.
	ingresses map[nsName]*networkingv1.Ingress
	stepped   bool
	changed   []nsName
	formerly  map[nsName]*networkingv1.Ingress
	services  serviceIndex
	// sameServices: the Services and EndpointSlices are last's, in the
	// same order (services is last's index).
	sameServices bool
	keys         *keyIndex
}

// WholeAhead says why the next Build of s with o will build everything,
// when that is known before it starts ("" otherwise): the first build, or
// a change beyond the Ingresses, Services and EndpointSlices (sameOutside:
// pointer comparisons). A whole build that only Build finds (a change that
// touches half of the Ingresses) is not told. The controller lowers its
// GC target for a whole build from its start.
func (inc *Incremental) WholeAhead(s Snapshot, o Options) string {
	if inc.last == nil {
		return "first build"
	}
	return sameOutside(inc.last, s, o)
}

// Build returns Build(s, o), building again only what changed since the
// last call. The Config is the one the next call splices into (not a
// copy: at 100,000 Ingresses copying its slices made 50 MB of garbage a
// sync): the caller must not modify it. An unchanged Config comes back as
// the same pointer.
func (inc *Incremental) Build(s Snapshot, o Options) (*model.Config, []model.Problem) {
	next, ok := indexSnapshot(s, o, inc.last)
	if !ok {
		return inc.whole(s, o, nil, "two Ingresses or Services have the same namespace and name")
	}
	last := inc.last
	if last == nil {
		return inc.whole(s, o, next, "first build")
	}
	if why := sameOutside(last, s, o); why != "" {
		return inc.whole(s, o, next, why)
	}
	// From here on last's key index is next's: whatever happens, last is
	// not used again.
	inc.last = nil
	dirty, services := changedIngresses(last, next)
	if why := servicesOutsideIngresses(o, services); why != "" {
		return inc.whole(s, o, next, why)
	}
	if len(dirty) == 0 {
		inc.Last = IncrementalStats{}
		next.cfg, next.problems = last.cfg, last.problems
		inc.last = next
		return last.cfg, slices.Clone(last.problems)
	}
	var oldPart, newPart *model.Config
	var oldProblems, newProblems []model.Problem
	shared := func(b *model.Backend) bool {
		for n := range next.keys.members[serviceKey(b)].all() {
			if !dirty[n] {
				return true
			}
		}
		return false
	}
	// A backend whose Service other Ingresses use too is built with them
	// when the changed Ingresses alone build it otherwise than last
	// (its settings come from the oldest of all): a second round adds
	// them, and their hosts' groups.
	for round := 0; ; round++ {
		if 2*len(dirty) > len(next.ingresses) && !inc.spliceAlways {
			return inc.whole(s, o, next, "the change touches half of the Ingresses or more")
		}
		oldPart, oldProblems = build(last.restrict(dirty, next.formerly), o, last.services)
		newPart, newProblems = build(next.restrict(dirty, nil), o, next.services)
		services := sharedBackendsChanged(last.cfg, oldPart, newPart, shared)
		if len(services) == 0 || round == 1 {
			break
		}
		var start []nsName
		for n := range dirty {
			start = append(start, n)
		}
		dirty = next.keys.closure(start, services, nil)
	}
	cfg, problems, why := splice(last.cfg, last.problems, oldPart, oldProblems, newPart, newProblems, shared)
	if why != "" {
		return inc.whole(s, o, next, why)
	}
	next.cfg, next.problems = cfg, problems
	inc.last = next
	inc.Last = IncrementalStats{Rebuilt: len(dirty)}
	return cfg, slices.Clone(problems)
}

// whole builds everything; next is s indexed (nil when s cannot be).
func (inc *Incremental) whole(s Snapshot, o Options, next *incrementalState, why string) (*model.Config, []model.Problem) {
	inc.Last = IncrementalStats{Whole: true, Why: why, Rebuilt: len(s.Ingresses)}
	inc.last = nil
	if next == nil {
		cfg, problems := Build(s, o)
		return cfg, problems
	}
	cfg, problems := build(s, o, next.services)
	if next.keys == nil {
		next.keys = newKeyIndex(next.ingresses)
	}
	next.cfg, next.problems = cfg, problems
	inc.last = next
	return cfg, slices.Clone(problems)
}

// indexSnapshot indexes the objects that an incremental Build compares by
// name; false when two Ingresses or two Services share a name. When s's
// Ingresses differ from last's by a few changes in step, it updates last's
// index in place (at 100,000 Ingresses, a new map and the comparison of
// two took about 110 ms a sync); last must then not be used but through
// restrict with the new state's formerly.
func indexSnapshot(s Snapshot, o Options, last *incrementalState) (*incrementalState, bool) {
	st := &incrementalState{snap: s, opts: o}
	if last != nil && slices.Equal(last.snap.Services, s.Services) && slices.Equal(last.snap.EndpointSlices, s.EndpointSlices) {
		st.services, st.sameServices = last.services, true
	} else {
		st.services = newServiceIndex(s)
	}
	if len(st.services.services) != len(s.Services) {
		return nil, false
	}
	if last != nil {
		if changes, ok := stepDiff(last.snap.Ingresses, s.Ingresses, maxSteppedChanges); ok {
			return st, st.stepIndex(last, changes)
		}
	}
	st.ingresses = make(map[nsName]*networkingv1.Ingress, len(s.Ingresses))
	for _, ing := range s.Ingresses {
		n := nsName{ing.Namespace, ing.Name}
		if _, dup := st.ingresses[n]; dup {
			return nil, false
		}
		st.ingresses[n] = ing
	}
	return st, true
}

// sameOutside says why a change reaches beyond Ingresses, Services and
// EndpointSlices ("" when it does not).
func sameOutside(last *incrementalState, s Snapshot, o Options) string {
	switch {
	case !reflect.DeepEqual(last.opts, o):
		return "the options changed"
	case !samePointers(last.snap.IngressClasses, s.IngressClasses):
		return "an IngressClass changed"
	case !samePointers(last.snap.Secrets, s.Secrets):
		return "a Secret changed"
	case !samePointers(last.snap.ConfigMaps, s.ConfigMaps):
		return "a ConfigMap changed"
	case !slices.Equal(last.snap.UnreadIngresses, s.UnreadIngresses):
		return "the Ingresses of an unread API version changed"
	}
	return ""
}

// samePointers reports whether a and b hold the same objects, in any order.
func samePointers[T any](a, b []*T) bool {
	if len(a) != len(b) {
		return false
	}
	if slices.Equal(a, b) {
		return true
	}
	set := make(map[*T]int, len(a))
	for _, x := range a {
		set[x]++
	}
	for _, x := range b {
		if set[x] == 0 {
			return false
		}
		set[x]--
	}
	return true
}

// servicesOutsideIngresses says why changed Services need a whole build:
// the options use Services that no Ingress names (TCP and UDP services,
// --default-backend-service), so the groups do not hold them.
func servicesOutsideIngresses(o Options, changed []nsName) string {
	if len(changed) == 0 {
		return ""
	}
	if o.TCPServicesConfigMap != "" || o.UDPServicesConfigMap != "" {
		return "a Service or EndpointSlice changed, and TCP or UDP services are configured"
	}
	for _, n := range changed {
		if n.namespace+"/"+n.name == o.DefaultBackendService {
			return "the Service of --default-backend-service changed"
		}
	}
	return ""
}

// changedIngresses returns the Ingresses to build again: those added,
// removed or changed, those that name a Service whose object or
// EndpointSlices changed, and every Ingress joined to one of them before
// or after the change (incremental_groups.go); and the Services that
// changed. It moves last's key index to next, updated.
func changedIngresses(last, next *incrementalState) (map[nsName]bool, []nsName) {
	changed := next.changed
	if !next.stepped {
		for n, ing := range next.ingresses {
			if last.ingresses[n] != ing {
				changed = append(changed, n)
			}
		}
		for n := range last.ingresses {
			if _, ok := next.ingresses[n]; !ok {
				changed = append(changed, n)
			}
		}
	}
	next.keys = last.keys
	formerly := make(map[nsName][]string, len(changed))
	for _, n := range changed {
		formerly[n] = next.keys.keys[n]
		next.keys.set(n, next.ingresses[n])
	}
	var services []nsName
	if !next.sameServices {
		services = changedServices(last.services, next.services)
	}
	keys := make([]string, 0, len(services))
	for _, svc := range services {
		keys = append(keys, "s:"+svc.namespace+"/"+svc.name)
	}
	if len(changed) == 0 && len(keys) == 0 {
		return nil, nil
	}
	return next.keys.closure(changed, keys, formerly), services
}

// changedServices returns the Services whose object or EndpointSlices
// changed.
func changedServices(last, next serviceIndex) []nsName {
	seen := map[nsName]bool{}
	var out []nsName
	add := func(n nsName) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for n, svc := range next.services {
		if last.services[n] != svc {
			add(n)
		}
	}
	for n := range last.services {
		if _, ok := next.services[n]; !ok {
			add(n)
		}
	}
	for n, es := range next.slices {
		if !samePointers(last.slices[n], es) {
			add(n)
		}
	}
	for n := range last.slices {
		if _, ok := next.slices[n]; !ok {
			add(n)
		}
	}
	return out
}

// restrict is st's Snapshot with only the Ingresses named in keep, found
// in st's index (not by a pass over 100,000 Ingresses), in namespace/name
// order: Build orders them itself (olderFirst), so the order of a
// Snapshot's Ingresses does not change its Config. formerly, when the
// next state updated st's index in place, holds what the names it changed
// held in st.
func (st *incrementalState) restrict(keep map[nsName]bool, formerly map[nsName]*networkingv1.Ingress) Snapshot {
	out := st.snap
	out.Ingresses = nil
	for n := range keep {
		ing := st.ingresses[n]
		if was, ok := formerly[n]; ok {
			ing = was
		}
		if ing != nil {
			out.Ingresses = append(out.Ingresses, ing)
		}
	}
	slices.SortFunc(out.Ingresses, func(a, b *networkingv1.Ingress) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out
}
