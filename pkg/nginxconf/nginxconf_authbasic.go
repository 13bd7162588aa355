package nginxconf

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeBasicAuth writes auth-type basic. nginx opens the user file for
// every request that needs it (ngx_http_auth_basic_module reads it in its
// access handler), so a new content of the Secret applies without a
// reload: its name (model.File) stays the same.
func writeBasicAuth(w *confWriter, ba *model.BasicAuth) {
	if ba == nil {
		return
	}
	w.line("auth_basic", w.q(ba.Realm))
	w.line("auth_basic_user_file", w.q(model.FilePath(ba.File)))
}

// authProxyHeaders tells whether the location sends headers of its
// authentication upstream: it then writes every proxy_set_header (nginx
// inherits them only into a location that sets none).
func authProxyHeaders(st *model.LocationSettings) bool {
	return st.BasicAuth != nil || (st.ClientAuth != nil && st.ClientAuth.Verify != "off")
}

// writeAuthProxyHeaders writes the headers of authentication sent
// upstream, as ingress-nginx does: no Authorization after basic
// authentication (the backend never sees the password), and the result
// of the client certificate verification.
func writeAuthProxyHeaders(w *confWriter, st *model.LocationSettings) {
	directive := upstreamHeaderDirective(st.BackendProtocol)
	if st.BasicAuth != nil {
		w.line(directive, "Authorization", `""`)
	}
	writeClientCertHeaders(w, directive, st.ClientAuth)
}
