package luaapi

import (
	"reflect"
	"sort"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// RoutesCache keeps the route payloads of the last Config, by host, so that
// a server the model did not change is not encoded again (at 100,000 hosts
// encoding them all costs about a second per sync). An entry is reused
// when the server has the same hostname, app-root, TLS, client
// certificates, ssl-ciphers and ssl-prefer-server-ciphers and the same
// Locations (the same array: render.Incremental hands an unchanged server
// on with its array; a Build makes new ones), and the Config the same
// Global and DefaultBackend: all that HostRoutesOf reads. The entries hold
// their arrays, so an address is not reused for another while cached.
//
// The entries are in the order of the last call's servers (the Config's:
// by hostname, the catch-all first), and a call walks them in step with
// the new servers: no map of 100,000 hosts per sync. Servers in another
// order get the same payloads, only encoded again more often. The cache
// also counts the distinct path regexes of its entries (RegexCacheSize).
//
// A RoutesCache is not safe for concurrent use. Its zero value is empty.
type RoutesCache struct {
	// Reused is the number of payloads the last RoutesFromModel took
	// from the cache.
	Reused int

	global         *model.Global
	defaultBackend string
	entries        []*cachedRoutes
	// spare is the slice before entries, filled again by the next call.
	spare []*cachedRoutes
	// regexes counts, for each path regex, the entries that have it.
	regexes map[string]int
	// need is RoutesNeeds's sum (before overhead) over the last call's
	// hosts, err its first error.
	need int64
	err  error
}

type cachedRoutes struct {
	host      string
	appRoot   string
	tls       bool
	ca        *model.ClientAuth
	ciphers   string
	prefer    *bool
	snippet   *model.Snippet
	locations []model.Location
	routes    HostRoutes
	// regexes are the distinct path regexes of routes.
	regexes []string
	need    int64
	err     error
}

// RoutesFromModel is the package's RoutesFromModel, reusing the entries of
// the last call's servers that did not change.
func (rc *RoutesCache) RoutesFromModel(c *model.Config, hosts []string) []HostRoutes {
	if rc.global == nil || rc.defaultBackend != c.DefaultBackend || !reflect.DeepEqual(*rc.global, c.Global) {
		g := c.Global
		rc.global, rc.defaultBackend = &g, c.DefaultBackend
		clear(rc.entries)
		rc.entries, rc.regexes = rc.entries[:0], nil
	}
	if rc.regexes == nil {
		rc.regexes = map[string]int{}
	}
	servers := serversNamed(c, hosts)
	out := make([]HostRoutes, 0, len(servers))
	last, next := rc.entries, rc.spare[:0]
	rc.need, rc.err, rc.Reused = 0, nil, 0
	j := 0
	for _, s := range servers {
		for j < len(last) && model.HostBefore(last[j].host, s.Hostname) {
			rc.release(last[j])
			j++
		}
		var e *cachedRoutes
		if j < len(last) && last[j].host == s.Hostname {
			if e = last[j]; e.serves(s) {
				rc.Reused++
			} else {
				rc.release(e)
				e = nil
			}
			j++
		}
		if e == nil {
			e = rc.newEntry(c, s)
		}
		next = append(next, e)
		out = append(out, e.routes)
		rc.need += e.need
		if rc.err == nil {
			rc.err = e.err
		}
		for _, a := range aliasRoutes(s) {
			out = append(out, a)
			need, err := hostNeeds(&a)
			rc.need += need
			if rc.err == nil {
				rc.err = err
			}
		}
	}
	for ; j < len(last); j++ {
		rc.release(last[j])
	}
	clear(last)
	rc.entries, rc.spare = next, last[:0]
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// newEntry encodes the payload of s and counts its regexes.
func (rc *RoutesCache) newEntry(c *model.Config, s *model.Server) *cachedRoutes {
	routes, shape := hostRoutesOf(c, s)
	e := &cachedRoutes{host: s.Hostname, appRoot: s.AppRoot, tls: s.TLS, ca: s.ClientAuth, ciphers: s.SSLCiphers, prefer: s.SSLPreferServerCiphers, snippet: s.Snippet, locations: s.Locations, routes: routes}
	// sized from the JSON that gave the version: not encoded again
	e.need, e.err = shape.entryNeeds(&e.routes), shape.err
	e.regexes = pathRegexes(&e.routes, nil)
	for _, re := range e.regexes {
		rc.regexes[re]++
	}
	if shape.err == nil {
		// kept as that JSON, which nginx stores (routes_encoded.go)
		e.routes = compacted(routes, shape.json)
	}
	return e
}

// release uncounts the regexes of an entry that leaves the cache.
func (rc *RoutesCache) release(e *cachedRoutes) {
	for _, re := range e.regexes {
		if rc.regexes[re]--; rc.regexes[re] <= 0 {
			delete(rc.regexes, re)
		}
	}
}

// RegexCacheSize is the package's RegexCacheSize for the routes of the
// last RoutesFromModel, from the regexes counted with its entries.
func (rc *RoutesCache) RegexCacheSize(current int) int {
	return regexCacheSize(len(rc.regexes), current)
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

// serves says whether e was made of a server like s (of the same host).
func (e *cachedRoutes) serves(s *model.Server) bool {
	if e.appRoot != s.AppRoot || e.tls != s.TLS || e.ca != s.ClientAuth || e.snippet != s.Snippet || len(e.locations) != len(s.Locations) {
		return false
	}
	if e.ciphers != s.SSLCiphers || (e.prefer == nil) != (s.SSLPreferServerCiphers == nil) || (e.prefer != nil && *e.prefer != *s.SSLPreferServerCiphers) {
		return false
	}
	return len(s.Locations) == 0 || &e.locations[0] == &s.Locations[0]
}

// SizeRoutesDict is the package's SizeRoutesDict for the routes of the
// last RoutesFromModel, from the sizes kept with its entries.
func (rc *RoutesCache) SizeRoutesDict(current int64) (int64, error) {
	return routesDictSize(withOverhead(rc.need+rc.need/2), rc.err, current)
}
