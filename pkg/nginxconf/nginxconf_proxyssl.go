package nginxconf

import (
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeProxySSL writes the TLS client side towards an HTTPS backend
// (proxy_ssl_*) or a GRPCS one (grpc_ssl_*); nothing for plain backends,
// where nginx would ignore it. As in ingress-nginx, the verification, its
// depth, the protocols and the ciphers are written only with a trusted CA.
// nginx reads the certificate, key and CA when it loads nginx.conf: new
// content is a new file name (model.File), so nginx reloads.
func writeProxySSL(w *confWriter, ps *model.ProxySSL, protocol string) {
	if ps == nil {
		return
	}
	var prefix string
	switch strings.ToUpper(protocol) {
	case "HTTPS":
		prefix = "proxy_ssl_"
	case "GRPCS":
		prefix = "grpc_ssl_"
	default:
		return
	}
	if ps.CertFile != "" {
		w.line(prefix+"certificate", w.q(model.FilePath(ps.CertFile)))
		w.line(prefix+"certificate_key", w.q(model.FilePath(ps.CertFile)))
	}
	if ps.CAFile != "" {
		w.line(prefix+"trusted_certificate", w.q(model.FilePath(ps.CAFile)))
		w.line(prefix+"ciphers", w.q(ps.Ciphers))
		protocols := []string{prefix + "protocols"}
		for _, p := range strings.Fields(ps.Protocols) {
			protocols = append(protocols, w.q(p))
		}
		w.line(protocols...)
		w.line(prefix+"verify", onOff(ps.Verify))
		w.line(prefix+"verify_depth", strconv.Itoa(ps.VerifyDepth))
	}
	if ps.Name != "" {
		w.line(prefix+"name", w.q(ps.Name))
	}
	w.line(prefix+"server_name", onOff(ps.ServerName))
}
