package nginxconf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeServerClientAuth writes the client certificate authentication of a
// server (auth-tls-*). nginx reads ssl_client_certificate and ssl_crl when
// it loads nginx.conf (into the server's SSL context): a rotated CA or CRL
// is a new file name (model.File), so nginx.conf changes and nginx reloads.
// A failed verification answers 400 (nginx's 495 and 496), or redirects to
// auth-tls-error-page.
func writeServerClientAuth(w *confWriter, ca *model.ClientAuth) {
	if ca == nil {
		return
	}
	w.comment("client certificates: auth-tls-secret " + ca.Secret.String() + " of ingress " + ca.Ingress.String() + " (read at load: a CA change reloads)")
	w.line("ssl_client_certificate", w.q(model.FilePath(ca.CAFile)))
	w.line("ssl_verify_client", verifyClient(w, ca.Verify))
	w.line("ssl_verify_depth", strconv.Itoa(ca.Depth))
	if ca.CRLFile != "" {
		w.line("ssl_crl", w.q(model.FilePath(ca.CRLFile)))
	}
	if ca.ErrorPage != "" {
		w.line("error_page", "495", "496", "=", w.q(ca.ErrorPage))
	}
}

// verifyClient returns the ssl_verify_client value, refusing any other.
func verifyClient(w *confWriter, v string) string {
	switch v {
	case "on", "off", "optional", "optional_no_ca":
		return v
	}
	return w.q(v) + " invalid" // never reached: render validates
}

// writeClientAuthCheck writes the check of auth-tls-match-cn: a client
// certificate whose subject does not match answers 403, as in
// ingress-nginx. The regex was checked in render (CVE-2025-1097) and is
// quoted by the writer; in an "if" nginx compiles it as it is, so its '$'
// is an anchor, not a variable.
func writeClientAuthCheck(w *confWriter, ca *model.ClientAuth) {
	if ca == nil || ca.MatchCN == "" {
		return
	}
	w.open("if", "($ssl_client_s_dn", "!~", w.q(ca.MatchCN)+")")
	w.line("return", "403", `"client certificate unauthorized"`)
	w.close()
}

// writeClientCertHeaders sends the verification result upstream (unless
// verification is off), and the certificate with
// auth-tls-pass-certificate-to-upstream; directive is proxy_set_header or
// grpc_set_header.
func writeClientCertHeaders(w *confWriter, directive string, ca *model.ClientAuth) {
	if ca == nil || ca.Verify == "off" {
		return
	}
	if ca.PassCertificate {
		w.line(directive, "ssl-client-cert", "$ssl_client_escaped_cert")
	}
	w.line(directive, "ssl-client-verify", "$ssl_client_verify")
	w.line(directive, "ssl-client-subject-dn", "$ssl_client_s_dn")
	w.line(directive, "ssl-client-issuer-dn", "$ssl_client_i_dn")
}

// classicClientAuthDigest is a digest (hex) of the client certificate
// settings of c's classic server blocks ("" for none): lua/tls_session.lua
// mixes it into the TLS session id context of every name that no Lua host
// entry serves, so that a session verified against a classic host's CA
// does not resume once that CA (or the verification) changed, as nginx's
// own context, which holds the CA, would not. The writer sees only the
// classic servers (and, where the router's server is written, the
// catch-all, which the router serves: routerBodyMax is set then; a classic
// catch-all makes the whole config classic).
func classicClientAuthDigest(w *confWriter, c *model.Config) string {
	h := sha256.New()
	any := false
	for i := range c.Servers {
		s := &c.Servers[i]
		ca := s.ClientAuth
		if ca == nil || (w.routerBodyMax != nil && s.Hostname == model.CatchAllHost) {
			continue
		}
		any = true
		fmt.Fprintf(h, "%s %v %s %s %s %d\n", s.Hostname, s.Aliases, ca.CAFile, ca.CRLFile, ca.Verify, ca.Depth)
	}
	if !any {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
