package render

import (
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The groups of an incremental Build (incremental.go). Build lets one
// Ingress change what another one gets through a host it names (paths,
// ownership, server settings, canaries, client certificates, aliases,
// from-to-www-redirect): Ingresses joined by hosts, directly or through
// others, form a group, and the Ingresses of other groups cannot change
// what a group builds, except through a backend they share (one per
// Service port: its settings come from the oldest Ingress that uses it,
// its affinity from the first that asks). A Service does not join groups,
// or one Service behind 10,000 hosts would make one group of them: a
// change rebuilds the Ingresses that name a changed Service, and the
// splice builds everything when a backend that it keeps for other groups
// would come out different (incremental_splice.go). A Secret or ConfigMap
// that several Ingresses name does not join them either: each Ingress
// reads it on its own and hears of its faults on its own, and a change of
// one rebuilds everything.

// groupKeys returns the names an Ingress shares with others: "h:" hosts
// (a host and its www. twin are one name, from-to-www-redirect joins
// them; "_" for rules without a host and for a spec.defaultBackend of an
// Ingress without rules) and "s:" Services; sorted, each once.
func groupKeys(ing *networkingv1.Ingress) []string {
	var keys []string
	host := func(h string) {
		if h == "" {
			h = model.CatchAllHost
		}
		keys = append(keys, "h:"+strings.TrimPrefix(strings.ToLower(h), "www."))
	}
	service := func(name string) {
		keys = append(keys, "s:"+ing.Namespace+"/"+name)
	}
	for _, r := range ing.Spec.Rules {
		host(r.Host)
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				service(p.Backend.Service.Name)
			}
		}
	}
	for _, t := range ing.Spec.TLS {
		for _, h := range t.Hosts {
			host(h)
		}
	}
	if db := ing.Spec.DefaultBackend; db != nil {
		if db.Service != nil {
			service(db.Service.Name)
		}
		if len(ing.Spec.Rules) == 0 {
			host("")
		}
	}
	for _, a := range strings.FieldsFunc(ing.Annotations[annotations.Key("server-alias")], func(r rune) bool { return r == ',' || r == ' ' }) {
		host(a)
	}
	if v := strings.TrimSpace(ing.Annotations[annotations.Key("default-backend")]); v != "" {
		if ns, name, ok := strings.Cut(v, "/"); ok {
			keys = append(keys, "s:"+ns+"/"+name)
		} else {
			service(v)
		}
	}
	slices.Sort(keys)
	if c := slices.Compact(keys); len(c) < len(keys) {
		return slices.Clone(c) // kept for the Ingress's life: no spare room
	}
	return keys
}

// keyIndex says which Ingresses name each key, and the keys of each
// Ingress; an incremental Build keeps it from one Snapshot to the next and
// updates only the Ingresses that changed.
type keyIndex struct {
	keys    map[nsName][]string
	members map[string]memberSet
}

func newKeyIndex(ings map[nsName]*networkingv1.Ingress) *keyIndex {
	x := &keyIndex{keys: make(map[nsName][]string, len(ings)), members: make(map[string]memberSet, len(ings))}
	for n, ing := range ings {
		x.set(n, ing)
	}
	return x
}

// set gives n the keys of ing (none when ing is nil: removed).
func (x *keyIndex) set(n nsName, ing *networkingv1.Ingress) {
	for _, k := range x.keys[n] {
		m := x.members[k]
		if m.remove(n); m.len() == 0 {
			delete(x.members, k)
		} else {
			x.members[k] = m
		}
	}
	delete(x.keys, n)
	if ing == nil {
		return
	}
	keys := groupKeys(ing)
	x.keys[n] = keys
	for _, k := range keys {
		m := x.members[k]
		m.add(n)
		x.members[k] = m
	}
}

// closure returns start, the Ingresses that name one of keys, and every
// Ingress joined to one of them through the hosts they name now or named
// before (formerly: the keys of the changed Ingresses before the change).
func (x *keyIndex) closure(start []nsName, keys []string, formerly map[nsName][]string) map[nsName]bool {
	out := map[nsName]bool{}
	var queue []nsName
	mark := func(n nsName) {
		if !out[n] {
			out[n] = true
			queue = append(queue, n)
		}
	}
	seenKey := map[string]bool{}
	visit := func(k string) {
		if seenKey[k] {
			return
		}
		seenKey[k] = true
		for m := range x.members[k].all() {
			mark(m)
		}
	}
	for _, n := range start {
		mark(n)
	}
	for _, k := range keys {
		visit(k)
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, list := range [][]string{x.keys[n], formerly[n]} {
			for _, k := range list {
				if strings.HasPrefix(k, "h:") { // hosts join, Services do not
					visit(k)
				}
			}
		}
	}
	return out
}
