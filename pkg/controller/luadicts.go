package controller

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// confOptions returns the nginx.conf options of a sync whose desired model
// is cfg: the configured ones, with the shared dicts of the Lua payloads
// sized for cfg's payloads by luaapi.DictsFor (the rule that render and
// diff apply too; through the loop's cache of backend lengths), given the sizes of the nginx.conf that runs. A payload
// that outgrows its dict so changes nginx.conf, and the plan reloads nginx
// with a larger dict (a reason names it) instead of Lua answering 413 to
// every push.
func (c *Controller) confOptions(cfg *model.Config) nginxconf.ConfOptions {
	o := c.cfg.Conf
	if o.LuaDicts != (nginxconf.LuaDicts{}) {
		return o // sized by the caller
	}
	// An error means payloads that cannot be encoded: their push says so,
	// and d keeps the running sizes.
	d, _ := c.state.dicts.DictsFor(cfg, luaapi.DictSizesOf(c.state.running.NGINXConf))
	// nginxconf.LuaDicts and luaapi.DictSizes have the same fields: a
	// conversion, checked by the compiler.
	o.LuaDicts = nginxconf.LuaDicts(d)
	if o.LuaRouted() {
		// The running sizes: DesiredState keeps them while the routes fit.
		o.LuaRouting = ksync.RunningLuaRouting(c.state.running.NGINXConf)
	}
	return o
}
