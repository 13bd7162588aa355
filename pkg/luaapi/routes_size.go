package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Sizing of the Lua router (--routing=lua): the shared dict routes_data
// and lua_regex_cache_max_entries, both in nginx.conf
// (nginxconf.LuaRouting), so a new size reloads nginx. Both keep their
// running value while it holds what the routes need and is at most four
// times the new size, as the payload dicts do (SizeDicts).

// DictRoutes is the shared dict of the route entries.
const DictRoutes = "routes_data"

// Floors of the router's sizes (nginxconf.LuaRouting's defaults).
const (
	DefaultRoutesDict = 8 << 20
	DefaultRegexCache = 1024
)

// RoutesNeeds returns the bytes routes_data needs for routes: per host its
// entry ("h:<host>", the JSON as Lua's cjson writes it, which escapes
// every "/"), its version ("v:<host>") and the handshake's client
// certificate settings ("t:<host>", lua/client_auth.lua) and ciphers
// ("s:<host>", lua/ssl_ciphers.lua), in slab sizes, half again for
// fragmentation and one entry being replaced, plus the pool's overhead.
func RoutesNeeds(routes []HostRoutes) (int64, error) {
	var n int64
	for i := range routes {
		need, err := hostNeeds(&routes[i])
		if err != nil {
			return 0, err
		}
		n += need
	}
	return withOverhead(n + n/2), nil
}

// hostNeeds is the slab bytes of one host's entry and version.
func hostNeeds(h *HostRoutes) (int64, error) {
	data, err := json.Marshal(h)
	if err != nil {
		return 0, fmt.Errorf("encoding the routes of %s: %w", h.Host, err)
	}
	return shapeOf(data).entryNeeds(h), nil
}

// encodedShape is what sizing an entry reads of a payload's JSON: its
// length and its slashes (lua-cjson writes each "/" as "\/").
type encodedShape struct {
	length, slashes int
	// err is the encoding's error (never for a payload of strings,
	// numbers and bools; then the shape is zero).
	err error
	// json is the JSON of the shape when routesVersion made it.
	json []byte
}

func shapeOf(data []byte) encodedShape {
	return encodedShape{length: len(data), slashes: bytes.Count(data, []byte("/"))}
}

// entryNeeds is hostNeeds for h, whose JSON has shape e.
func (e encodedShape) entryNeeds(h *HostRoutes) int64 {
	key := 2 + len(h.Host)
	n := slab(key, e.length+e.slashes) + slab(key, len(h.Version))
	if ca := h.ClientAuth; ca != nil && ca.Verify != "off" {
		n += slab(key, len(ca.CAFile)+len(ca.Verify)+3+len(strconv.Itoa(ca.Depth))+len(ca.CRLFile))
	}
	if t := h.TLS; t != nil {
		// "s:<host>" = "<on|off|-> <ciphers>" (lua/ssl_ciphers.lua's key)
		n += slab(key, 4+len(t.Ciphers))
	}
	return n
}

// SizeRoutesDict returns the size of routes_data for routes given the size
// of the running nginx.conf's (0 when none runs; RoutesDictSizeOf). The
// error is RoutesNeeds's; the size is then current, or the default.
func SizeRoutesDict(routes []HostRoutes, current int64) (int64, error) {
	need, err := RoutesNeeds(routes)
	return routesDictSize(need, err, current)
}

func routesDictSize(need int64, err error, current int64) (int64, error) {
	if err != nil {
		if current > 0 {
			return current, err
		}
		return DefaultRoutesDict, err
	}
	return sizeDict(need, current, DefaultRoutesDict), nil
}

// RegexCacheSize returns lua_regex_cache_max_entries for routes: room for
// every distinct path regex (a rewrite-target's regex is its path's; an
// auth-tls-match-cn is one too) of
// every host, twice over, as a power of two of at least
// DefaultRegexCache; current (0 when none runs) stays while it holds them
// and is at most four times that.
func RegexCacheSize(routes []HostRoutes, current int) int {
	seen := map[string]bool{}
	for i := range routes {
		for _, re := range pathRegexes(&routes[i], nil) {
			seen[re] = true
		}
	}
	return regexCacheSize(len(seen), current)
}

// pathRegexes appends the distinct regexes of h's paths to out: their
// matchers, their auth-tls-match-cn and their snippets' rewrites (and
// the host's).
func pathRegexes(h *HostRoutes, out []string) []string {
	rewrites := func(list []RouteRewrite) {
		for _, rw := range list {
			if rw.Regex != "" && !slices.Contains(out, rw.Regex) {
				out = append(out, rw.Regex)
			}
		}
	}
	rewrites(h.Rewrites)
	for _, p := range h.Paths {
		rewrites(p.Settings.Rewrites)
		for _, m := range p.Matchers {
			if (m.Kind == MatchRegex || m.Kind == MatchRegexCase) && !slices.Contains(out, m.Value) {
				out = append(out, m.Value)
			}
		}
		if cn := p.Settings.MatchCN; cn != "" && !slices.Contains(out, cn) {
			out = append(out, cn)
		}
	}
	return out
}

// regexCacheSize is RegexCacheSize for distinct regexes.
func regexCacheSize(distinct, current int) int {
	need := 2 * distinct
	target := DefaultRegexCache
	for target < need {
		target *= 2
	}
	if current >= need && current >= DefaultRegexCache && current <= 4*target {
		return current
	}
	return target
}

// RoutesDictSizeOf reads the size of routes_data from an nginx.conf (0
// when it declares none: classic routing).
func RoutesDictSizeOf(conf []byte) int64 {
	line := []byte("lua_shared_dict " + DictRoutes + " ")
	i := bytes.Index(conf, line)
	if i < 0 {
		return 0
	}
	rest := conf[i+len(line):]
	end := bytes.IndexByte(rest, ';')
	if end < 0 {
		return 0
	}
	return parseSize(string(bytes.TrimSpace(rest[:end])))
}

// RegexCacheSizeOf reads lua_regex_cache_max_entries from an nginx.conf (0
// when it has none).
func RegexCacheSizeOf(conf []byte) int {
	line := []byte("lua_regex_cache_max_entries ")
	i := bytes.Index(conf, line)
	if i < 0 {
		return 0
	}
	rest := conf[i+len(line):]
	end := bytes.IndexByte(rest, ';')
	if end < 0 {
		return 0
	}
	return int(parseSize(string(bytes.TrimSpace(rest[:end]))))
}
