package nginxconf

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// OCSP stapling (enable-ocsp): the certificates are Lua's
// (lua/certificate.lua), so nginx's ssl_stapling cannot apply; Lua fetches
// the responses into the shared dict ocsp_response_cache and staples them
// (lua/ocsp_stapling.lua). Its responders' host names resolve through the
// resolver line (writeResolver).

// ocspDictSize is the size of ocsp_response_cache, ingress-nginx's.
const ocspDictSize = "5m"

// writeOCSPDict declares the response cache when stapling is on.
func writeOCSPDict(w *confWriter, g model.Global) {
	if g.TLS.EnableOCSP {
		w.line("lua_shared_dict", "ocsp_response_cache", ocspDictSize)
	}
}

// certificateInit is the init_by_lua line of lua/certificate.lua: it
// passes enable-ocsp.
func certificateInit(g model.Global) string {
	if g.TLS.EnableOCSP {
		return `certificate.init({ ocsp_stapling = true })`
	}
	return `certificate.init()`
}
