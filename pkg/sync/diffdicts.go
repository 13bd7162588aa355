package sync

import (
	"fmt"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// dictChanges explains a change of the size of the shared dicts that hold
// the Lua payloads, and names the dicts that change.
func dictChanges(running, desired []byte) ([]Reason, []string) {
	o, c := luaapi.DictSizesOf(running), luaapi.DictSizesOf(desired)
	var rs []Reason
	var names []string
	for _, d := range []struct {
		name     string
		old, cur int64
	}{
		{luaapi.DictConfiguration, o.ConfigurationData, c.ConfigurationData},
		{luaapi.DictCertificates, o.CertificateData, c.CertificateData},
		{luaapi.DictServers, o.CertificateServers, c.CertificateServers},
		{luaapi.DictRoutes, luaapi.RoutesDictSizeOf(running), luaapi.RoutesDictSizeOf(desired)},
	} {
		if d.old == d.cur {
			continue
		}
		names = append(names, d.name)
		why := "the Lua payloads need more room"
		if d.cur < d.old {
			why = "the Lua payloads need much less room"
		}
		rs = append(rs, Reason{Reload: true, Message: fmt.Sprintf("lua_shared_dict %s resized from %s to %s: %s", d.name, mib(d.old), mib(d.cur), why)})
	}
	return rs, names
}

// Resized tells whether the reload changes the size of the dict name.
func (p Plan) Resized(name string) bool { return slices.Contains(p.ResizedDicts, name) }

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
