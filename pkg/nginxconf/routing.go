package nginxconf

import "fmt"

// The routing modes (--routing, DESIGN's "Routing modes"): the classic
// writer (a server block per host, a location per path) or the Lua router
// (nginxconf_lua.go: a fixed nginx.conf, the hosts as Lua payloads, a
// classic server block only for a host LuaRoutable keeps classic).
const (
	RoutingNginx = "nginx"
	RoutingLua   = "lua"
)

// RoutingModes are the values of --routing, the default first.
var RoutingModes = []string{RoutingNginx, RoutingLua}

// CheckRouting returns an error naming the flag when mode is not a routing
// mode ("" is the default, RoutingNginx).
func CheckRouting(mode string) error {
	switch mode {
	case "", RoutingNginx, RoutingLua:
		return nil
	}
	return fmt.Errorf("--routing %q: want %q or %q", mode, RoutingNginx, RoutingLua)
}

// LuaRouted reports whether o writes the nginx.conf of the Lua router.
func (o ConfOptions) LuaRouted() bool { return o.Routing == RoutingLua }
