package nginxconf

import "strconv"

// LuaDicts are the sizes in bytes of the lua_shared_dict zones that hold
// the Lua payloads (lua/CONTRACT.md); zero is the default (64m, 32m, 8m).
// The controller sizes them from the payloads it pushes
// (luaapi.SizeDicts), so that a payload always fits: one that outgrows a
// dict changes nginx.conf, and so reloads nginx with a larger one.
type LuaDicts struct {
	ConfigurationData  int64
	CertificateData    int64
	CertificateServers int64
}

// withDefaults returns d with every zero size replaced by the default.
func (d LuaDicts) withDefaults() LuaDicts {
	if d.ConfigurationData <= 0 {
		d.ConfigurationData = 64 << 20
	}
	if d.CertificateData <= 0 {
		d.CertificateData = 32 << 20
	}
	if d.CertificateServers <= 0 {
		d.CertificateServers = 8 << 20
	}
	return d
}

// writeLuaDicts writes the lua_shared_dict lines, one after the other
// (luaapi.DictSizesOf reads them back).
func writeLuaDicts(w *confWriter, d LuaDicts) {
	d = d.withDefaults()
	w.line("lua_shared_dict", "configuration_data", nginxSize(d.ConfigurationData))
	w.line("lua_shared_dict", "certificate_data", nginxSize(d.CertificateData))
	w.line("lua_shared_dict", "certificate_servers", nginxSize(d.CertificateServers))
	// ewma scores, shared by the workers (lua/balancer_ewma.lua)
	w.line("lua_shared_dict", "balancer_ewma", "10m")
}

// statusBodyLimit is the client_max_body_size of the status server: a
// payload as large as its dict (a larger one could not be stored anyway),
// at least 64m.
func statusBodyLimit(d LuaDicts) string {
	d = d.withDefaults()
	return nginxSize(max(64<<20, d.ConfigurationData, d.CertificateData))
}

// nginxSize writes n bytes as nginx reads a size: in MiB or KiB when it
// is a whole number of them.
func nginxSize(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}
