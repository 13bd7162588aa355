package sync

import (
	"fmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// DesiredState writes the nginx.conf of c with o and, when o routes in
// Lua (--routing=lua), the route payloads of the hosts the Lua router
// serves (nginxconf.LuaHosts: the others have classic server blocks in
// that nginx.conf). render, diff and the controller all build their State
// here, so that they agree on what reloads.
//
// In Lua routing, o.LuaRouting holds the router's sizes in the running
// nginx.conf (zero when none runs: RunningLuaRouting): the routes_data dict
// and the regex cache are sized for the routes from there, keeping a
// running size while it fits (luaapi.SizeRoutesDict), so that a new size,
// and its reload, comes only when the routes outgrow it.
func DesiredState(c *model.Config, o nginxconf.ConfOptions) (State, error) {
	return DesiredStateWith(c, o, &StateCache{})
}

// StateCache keeps what DesiredStateWith computed of the servers of the
// last Config, so that the next call computes again only what the
// servers that changed need: their route payloads and their part of the
// split into Lua-routed and classic hosts. The controller keeps one from
// sync to sync. Its zero value is empty.
type StateCache struct {
	Routes luaapi.RoutesCache
	Split  nginxconf.LuaSplitCache
}

// DesiredStateWith is DesiredState with what did not change since the
// last call taken from cache.
func DesiredStateWith(c *model.Config, o nginxconf.ConfOptions, cache *StateCache) (State, error) {
	var payloads []luaapi.HostRoutes
	var split *nginxconf.LuaSplit
	if o.LuaRouted() {
		split = cache.Split.Split(c)
		routes := &cache.Routes
		payloads = routes.RoutesFromModel(c, split.Lua)
		size, err := routes.SizeRoutesDict(o.LuaRouting.RoutesDict)
		if err != nil {
			return State{}, fmt.Errorf("sizing the routes dict: %w", err)
		}
		o.LuaRouting = nginxconf.LuaRouting{
			RoutesDict: size,
			RegexCache: routes.RegexCacheSize(o.LuaRouting.RegexCache),
			RouteCache: o.LuaRouting.RouteCache,
		}
	}
	conf, err := nginxconf.NGINXConfSplit(c, o, split)
	if err != nil {
		return State{}, fmt.Errorf("writing nginx.conf: %w", err)
	}
	return State{Config: c, NGINXConf: conf, Routes: payloads, order: &stateOrder{}}, nil
}

// RunningLuaRouting gives the router's sizes in the nginx.conf conf (zero
// for none, or classic routing), for ConfOptions.LuaRouting before
// DesiredState.
func RunningLuaRouting(conf []byte) nginxconf.LuaRouting {
	return nginxconf.LuaRouting{RoutesDict: luaapi.RoutesDictSizeOf(conf), RegexCache: luaapi.RegexCacheSizeOf(conf)}
}
