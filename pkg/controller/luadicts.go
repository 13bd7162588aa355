package controller

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// confOptions returns the nginx.conf options of a sync whose desired model
// is cfg: the configured ones, with the shared dicts of the Lua payloads
// sized for cfg's payloads (luaapi.SizeDicts), given the sizes of the
// nginx.conf that runs. A payload that outgrows its dict so changes
// nginx.conf, and the plan reloads nginx with a larger dict (a reason
// names it) instead of Lua answering 413 to every push.
func (c *Controller) confOptions(cfg *model.Config) render.ConfOptions {
	o := c.cfg.Conf
	if o.LuaDicts != (render.LuaDicts{}) {
		return o // sized by the caller
	}
	need, err := luaapi.Needs(luaapi.FromModel(cfg))
	if err != nil {
		// The push cannot encode them either and says so.
		return o
	}
	d := luaapi.SizeDicts(need, luaapi.DictSizesOf(c.state.running.NGINXConf))
	o.LuaDicts = render.LuaDicts{
		ConfigurationData:  d.ConfigurationData,
		CertificateData:    d.CertificateData,
		CertificateServers: d.CertificateServers,
	}
	return o
}
