package luaapi

import (
	"reflect"
	"sort"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// RoutesCache keeps the route payloads of the last Config, by host, so that
// a server the model did not change is not encoded again (at 100,000 hosts
// encoding them all costs about a second per sync). An entry is reused
// when the server has the same hostname, app-root and TLS and the same
// Locations (the same array: render.Incremental hands an unchanged server
// on with its array; a Build makes new ones), and the Config the same
// Global and DefaultBackend: all that HostRoutesOf reads. The entries hold
// their arrays, so an address is not reused for another while cached.
//
// A RoutesCache is not safe for concurrent use. Its zero value is empty.
type RoutesCache struct {
	// Reused is the number of payloads the last RoutesFromModel took
	// from the cache.
	Reused int

	global         *model.Global
	defaultBackend string
	hosts          map[string]*cachedRoutes
	// round marks the entries the last call used; the others are dropped.
	round uint64
	// need is RoutesNeeds's sum (before overhead) over the last call's
	// hosts, err its first error.
	need int64
	err  error
}

type cachedRoutes struct {
	appRoot   string
	tls       bool
	locations []model.Location
	routes    HostRoutes
	need      int64
	err       error
	round     uint64
}

// RoutesFromModel is the package's RoutesFromModel, reusing the entries of
// the last call's servers that did not change. The cache is updated in
// place: no new map of 100,000 hosts per call.
func (rc *RoutesCache) RoutesFromModel(c *model.Config, hosts []string) []HostRoutes {
	if rc.global == nil || rc.defaultBackend != c.DefaultBackend || !reflect.DeepEqual(*rc.global, c.Global) {
		g := c.Global
		rc.global, rc.defaultBackend, rc.hosts = &g, c.DefaultBackend, nil
	}
	if rc.hosts == nil {
		rc.hosts = make(map[string]*cachedRoutes, len(hosts))
	}
	rc.round++
	servers := serversNamed(c, hosts)
	out := make([]HostRoutes, 0, len(servers))
	rc.need, rc.err, rc.Reused = 0, nil, 0
	for _, s := range servers {
		e := rc.hosts[s.Hostname]
		if e != nil && e.serves(s) {
			rc.Reused++
		} else {
			e = &cachedRoutes{appRoot: s.AppRoot, tls: s.TLS, locations: s.Locations, routes: HostRoutesOf(c, s)}
			e.need, e.err = hostNeeds(&e.routes)
			rc.hosts[s.Hostname] = e
		}
		e.round = rc.round
		out = append(out, e.routes)
		rc.need += e.need
		if rc.err == nil {
			rc.err = e.err
		}
	}
	if len(rc.hosts) > len(servers) {
		for host, e := range rc.hosts {
			if e.round != rc.round {
				delete(rc.hosts, host)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// serversNamed returns the servers of c whose hostnames hosts lists, once
// each, in the order of c.Servers. hosts in that order (as LuaHosts gives
// them) are matched in one walk, others through a set.
func serversNamed(c *model.Config, hosts []string) []*model.Server {
	out := make([]*model.Server, 0, len(hosts))
	j := 0
	for i := range c.Servers {
		if j < len(hosts) && c.Servers[i].Hostname == hosts[j] {
			out = append(out, &c.Servers[i])
			j++
		}
	}
	if j == len(hosts) {
		return out
	}
	want := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		want[h] = true
	}
	out = out[:0]
	for i := range c.Servers {
		if s := &c.Servers[i]; want[s.Hostname] {
			want[s.Hostname] = false
			out = append(out, s)
		}
	}
	return out
}

// serves says whether e was made of a server like s.
func (e *cachedRoutes) serves(s *model.Server) bool {
	if e.appRoot != s.AppRoot || e.tls != s.TLS || len(e.locations) != len(s.Locations) {
		return false
	}
	return len(s.Locations) == 0 || &e.locations[0] == &s.Locations[0]
}

// SizeRoutesDict is the package's SizeRoutesDict for the routes of the
// last RoutesFromModel, from the sizes kept with its entries.
func (rc *RoutesCache) SizeRoutesDict(current int64) (int64, error) {
	return routesDictSize(withOverhead(rc.need+rc.need/2), rc.err, current)
}
