package nginxconf

import (
	"maps"
	"reflect"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// LuaSplit is what the Lua writer learns of a Config's servers before it
// writes: LuaHosts's answer (the Lua-routed hostnames and why each other
// host is classic), the shapes of the Lua-routed locations and the
// router location's body size. DesiredState computes it once a sync for
// both the route payloads and nginx.conf.
type LuaSplit struct {
	// Lua are the Lua-routed hostnames, in the order of c.Servers.
	Lua []string
	// Classic holds, for each other host, why it keeps a server block.
	Classic map[string][]ClassicReason

	shapes  []model.LocationShape
	bodyMax string
}

// LuaSplitOf computes the split of c's servers.
func LuaSplitOf(c *model.Config) *LuaSplit {
	var sc LuaSplitCache
	return sc.Split(c)
}

// LuaSplitCache keeps, per server, what LuaSplit needs of it (its classic
// reasons, the shapes and body sizes of its locations), so that a split
// looks again only at the servers that changed: at 100,000 hosts looking
// at them all costs about a fifth of a second per sync. An entry is
// reused when the server has the same hostname and the same Locations
// array, and the Config the same Global: render.Incremental hands an
// unchanged server on whole, with its array, and a Build makes new
// arrays (as luaapi.RoutesCache relies on too). The entries hold their
// arrays, so an address is not reused for another while cached. A server
// without locations is looked at every time.
//
// The entries are in the order of the last Config's servers (by hostname,
// the catch-all first), and a Split walks them in step with the new
// Config's: no map of 100,000 hosts per sync.
//
// A LuaSplitCache is not safe for concurrent use. Its zero value is empty.
type LuaSplitCache struct {
	// Reused is the number of servers the last Split took from the cache.
	Reused int

	global  *model.Global
	entries []*serverSplit
}

// serverSplit is what the split takes from one server.
type serverSplit struct {
	host      string
	locations []model.Location
	// reasons are LuaRoutable's.
	reasons []ClassicReason
	// shapes are the distinct shapes of its locations, by name.
	shapes map[string]model.LocationShape
	// zeroBody is the first body size of its locations that means no
	// limit ("" for none); maxBody the first of the largest others, of
	// maxBytes bytes.
	zeroBody string
	maxBody  string
	maxBytes int64
}

// Split is LuaSplitOf(c), from the cache where the server did not change.
func (sc *LuaSplitCache) Split(c *model.Config) *LuaSplit {
	if sc.global == nil || !reflect.DeepEqual(*sc.global, c.Global) {
		g := c.Global
		sc.global, sc.entries = &g, nil
	}
	last := sc.entries
	entries := make([]*serverSplit, len(c.Servers))
	sc.Reused = 0
	j := 0
	for i := range c.Servers {
		s := &c.Servers[i]
		for j < len(last) && model.HostBefore(last[j].host, s.Hostname) {
			j++
		}
		var e *serverSplit
		if j < len(last) && last[j].host == s.Hostname {
			if e = last[j]; len(s.Locations) > 0 && len(e.locations) == len(s.Locations) && &e.locations[0] == &s.Locations[0] {
				sc.Reused++
			} else {
				e = nil
			}
			j++
		}
		if e == nil {
			e = newServerSplit(c, s)
		}
		entries[i] = e
	}
	sc.entries = entries
	return splitOf(c, entries)
}

func newServerSplit(c *model.Config, s *model.Server) *serverSplit {
	e := &serverSplit{host: s.Hostname, locations: s.Locations, reasons: LuaRoutable(c, s)}
	addShape := func(shape model.LocationShape) {
		if e.shapes == nil {
			e.shapes = map[string]model.LocationShape{}
		}
		e.shapes[shape.Location()] = shape
	}
	body := func(v string) {
		switch n := sizeOf(v); {
		case n == 0:
			if e.zeroBody == "" {
				e.zeroBody = v
			}
		case n > e.maxBytes:
			e.maxBody, e.maxBytes = v, n
		}
	}
	for j := range s.Locations {
		if shape := model.ShapeOf(c, s, &s.Locations[j]); shape.Location() != "" {
			addShape(shape)
		}
		if v := s.Locations[j].Settings.Proxy.BodySize; v != "" {
			body(v)
		}
	}
	if sn := s.Snippet; sn != nil && sn.Proxy.BodySize != "" {
		// the limit of the snippet's locations (Server.BodySize)
		body(sn.Proxy.BodySize)
	}
	return e
}

// splitOf is the split of c whose servers' parts are entries (one per
// server, in order).
func splitOf(c *model.Config, entries []*serverSplit) *LuaSplit {
	classic := map[string][]ClassicReason{}
	// isClassic[i] says whether c.Servers[i] is in classic: looked up by
	// index, not by name, at 100,000 hosts.
	isClassic := make([]bool, len(entries))
	catchAll := false
	var wildcards []string
	for i, e := range entries {
		if len(e.reasons) == 0 {
			continue
		}
		h := c.Servers[i].Hostname
		classic[h] = e.reasons
		isClassic[i] = true
		catchAll = catchAll || h == model.CatchAllHost
		if isRegexName(h) {
			wildcards = append(wildcards, h)
		}
		// a wildcard server-alias is in the classic server's server_name
		// too: nginx gives it the names it covers before the router's
		// default server sees them
		for _, a := range c.Servers[i].Aliases {
			if isRegexName(a) {
				wildcards = append(wildcards, a)
			}
		}
	}
	if len(wildcards) > 0 {
		for i := range c.Servers {
			s := &c.Servers[i]
			if isClassic[i] || s.Hostname == model.CatchAllHost {
				continue
			}
			// the host, or one of its server-aliases (which the router
			// serves with it)
			for k := -1; k < len(s.Aliases); k++ {
				name := s.Hostname
				if k >= 0 {
					name = s.Aliases[k]
				}
				for _, wc := range wildcards {
					if coversOneLabel(wc, name) {
						classic[s.Hostname] = append(slices.Clip(classic[s.Hostname]), ClassicReason{Setting: WildcardClassic + wc})
						isClassic[i] = true
					}
				}
			}
			if isClassic[i] && len(s.Aliases) > 0 {
				// the host and an alias under the same wildcard: one reason
				classic[s.Hostname] = sortReasons(classic[s.Hostname])
			}
		}
	}
	split := &LuaSplit{Classic: classic, Lua: make([]string, 0, len(c.Servers)-len(classic))}
	for i := range c.Servers {
		h := c.Servers[i].Hostname
		switch {
		case catchAll && h != model.CatchAllHost:
			classic[h] = sortReasons(append(slices.Clip(classic[h]), ClassicReason{Setting: CatchAllClassic}))
			isClassic[i] = true
		case !isClassic[i]:
			split.Lua = append(split.Lua, h)
		}
	}
	split.shapes, split.bodyMax = luaLocations(c, entries, isClassic)
	return split
}

// luaLocations are the distinct shapes of the Lua-routed locations
// (sorted by name) and the client_max_body_size of the router's location:
// the largest proxy-body-size of the Lua-routed locations ("0", no limit,
// when one has none), which the router lowers per route from
// Content-Length (router.lua); "" when that is the ConfigMap's, which the
// location inherits. Only the largest value reaches nginx.conf, never one
// per host.
func luaLocations(c *model.Config, entries []*serverSplit, isClassic []bool) ([]model.LocationShape, string) {
	g := c.Global.ProxyBodySize
	best, bestBytes := g, sizeOf(g)
	zero := ""
	// the routes of a host with app-root that have no other shape (and
	// its app-root redirect) are served there: always written, so that
	// app-root on a Lua-routed host is as dynamic as any setting of the
	// router's own location
	relative := model.RelativeRedirectsShape
	seen := map[string]model.LocationShape{relative.Location(): relative}
	for i, e := range entries {
		if isClassic[i] {
			continue
		}
		maps.Copy(seen, e.shapes)
		switch {
		case zero != "":
		case e.zeroBody != "":
			zero = e.zeroBody
		case bestBytes != 0 && e.maxBytes > bestBytes:
			best, bestBytes = e.maxBody, e.maxBytes
		}
	}
	shapes := make([]model.LocationShape, 0, len(seen))
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		shapes = append(shapes, seen[name])
	}
	switch {
	case zero != "":
		return shapes, zero // no limit: nothing is larger
	case best == g:
		return shapes, ""
	}
	return shapes, best
}
