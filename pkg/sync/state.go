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
func DesiredState(c *model.Config, o nginxconf.ConfOptions) (State, error) {
	conf, err := nginxconf.NGINXConf(c, o)
	if err != nil {
		return State{}, fmt.Errorf("writing nginx.conf: %w", err)
	}
	s := State{Config: c, NGINXConf: conf}
	if o.LuaRouted() {
		hosts, _ := nginxconf.LuaHosts(c)
		s.Routes = luaapi.RoutesFromModel(c, hosts)
		if s.Routes == nil {
			s.Routes = []luaapi.HostRoutes{}
		}
	}
	return s, nil
}
