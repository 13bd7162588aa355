package render

import (
	"maps"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Cookie affinity per location, as ingress-nginx keeps it: the settings
// belong to the backend (the first Ingress asking for affinity sets them),
// but only the locations of the Ingresses that asked for it set the cookie:
// the backend's SessionAffinity.Locations lists their hosts and paths, and
// Lua (balancer_sticky.lua) compares it with $location_path. A canary
// backend takes its primary's affinity, Locations included, unless its
// canary Ingress says affinity-canary-behavior "legacy" (ingress-nginx's
// mergeAlternativeBackend copies the primary's SessionAffinity).

// noteSticky records an Ingress that asks for cookie affinity.
func (b *builder) noteSticky(p *parsedIngress) {
	if p.ann.Backend.SessionAffinity.Type != "cookie" {
		return
	}
	if b.stickyIngresses == nil {
		b.stickyIngresses = map[model.ObjectRef]bool{}
	}
	b.stickyIngresses[p.ref] = true
}

// noteLegacyCanary records a canary backend that keeps its own affinity.
func (b *builder) noteLegacyCanary(name string) {
	if b.legacyCanaries == nil {
		b.legacyCanaries = map[string]bool{}
	}
	b.legacyCanaries[name] = true
}

// affinityLocations fills SessionAffinity.Locations of the sticky backends
// from the locations of hosts (sorted), then gives each canary backend its
// primary's affinity unless it is a legacy one.
func (b *builder) affinityLocations(hosts []string) {
	for _, h := range hosts {
		s := b.servers[h].server
		for i := range s.Locations {
			l := &s.Locations[i]
			be := b.backends[l.Backend]
			if l.Backend == "" || be == nil || be.SessionAffinity.Type != "cookie" || !b.stickyIngresses[l.Ingress] {
				continue
			}
			sa := &be.SessionAffinity
			if sa.Locations == nil {
				sa.Locations = map[string][]string{}
			}
			p := model.LocationPathValue(l.Path)
			if !slices.Contains(sa.Locations[h], p) {
				sa.Locations[h] = append(sa.Locations[h], p)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.backends)) {
		pb := b.backends[name]
		for _, alt := range pb.AlternativeBackends {
			cb := b.backends[alt]
			if cb == nil || b.legacyCanaries[alt] {
				continue
			}
			cb.SessionAffinity = pb.SessionAffinity
			cb.SessionAffinity.Locations = copyLocations(pb.SessionAffinity.Locations)
		}
	}
}

func copyLocations(in map[string][]string) map[string][]string {
	if in == nil {
		return nil
	}
	out := make(map[string][]string, len(in))
	for h, paths := range in {
		out[h] = slices.Clone(paths)
	}
	return out
}
