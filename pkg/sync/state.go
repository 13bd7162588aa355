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
	return DesiredStateWith(c, o, &luaapi.RoutesCache{})
}

// DesiredStateWith is DesiredState with the route payloads of the servers
// that did not change since the last call taken from routes (the
// controller keeps one from sync to sync).
func DesiredStateWith(c *model.Config, o nginxconf.ConfOptions, routes *luaapi.RoutesCache) (State, error) {
	var payloads []luaapi.HostRoutes
	if o.LuaRouted() {
		hosts, _ := nginxconf.LuaHosts(c)
		payloads = routes.RoutesFromModel(c, hosts)
		size, err := routes.SizeRoutesDict(o.LuaRouting.RoutesDict)
		if err != nil {
			return State{}, fmt.Errorf("sizing the routes dict: %w", err)
		}
		o.LuaRouting = nginxconf.LuaRouting{
			RoutesDict: size,
			RegexCache: luaapi.RegexCacheSize(payloads, o.LuaRouting.RegexCache),
			RouteCache: o.LuaRouting.RouteCache,
		}
	}
	conf, err := nginxconf.NGINXConf(c, o)
	if err != nil {
		return State{}, fmt.Errorf("writing nginx.conf: %w", err)
	}
	return State{Config: c, NGINXConf: conf, Routes: payloads}, nil
}

// RunningLuaRouting gives the router's sizes in the nginx.conf conf (zero
// for none, or classic routing), for ConfOptions.LuaRouting before
// DesiredState.
func RunningLuaRouting(conf []byte) nginxconf.LuaRouting {
	return nginxconf.LuaRouting{RoutesDict: luaapi.RoutesDictSizeOf(conf), RegexCache: luaapi.RegexCacheSizeOf(conf)}
}
