package nginxconf

import (
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Added headers (custom-headers, add-headers, proxy-set-headers), the
// per-server TLS ciphers and the from-to-www-redirect servers.

// dollarVar holds a literal "$": a header value whose "$" is not a
// variable (custom-headers, as ingress-nginx escapes it) names it instead.
const dollarVar = "$kubectl_ingress_dollar"

// headerValue is the text of a header value in nginx.conf, before quoting.
func headerValue(h model.Header) string {
	if h.Vars {
		return h.Value
	}
	return strings.ReplaceAll(h.Value, "$", "${kubectl_ingress_dollar}")
}

// needsDollar reports whether some literal header value holds a "$".
func needsDollar(c *model.Config) bool {
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			for _, h := range c.Servers[i].Locations[j].Settings.CustomHeaders {
				if !h.Vars && strings.Contains(h.Value, "$") {
					return true
				}
			}
		}
	}
	return snippetNeedsDollar(c)
}

// writeHeaderGlobals writes the http-level lines of this file: the "$"
// variable when needed, add-headers, and the maps of the www redirects.
func writeHeaderGlobals(w *confWriter, c *model.Config, o ConfOptions) {
	if needsDollar(c) || shapesNeedDollar(w.shapes) {
		w.open("geo", dollarVar)
		w.line("default", `"$"`)
		w.close()
	}
	writeResponseHeaders(w, c.Global.ResponseHeaders)
	if len(c.WWWRedirects) > 0 {
		w.open("map", "$pass_server_port", "$kubectl_ingress_www_port")
		if p := serverHTTPSPort(c, o); p != o.HTTPSPort {
			w.line(w.q(strconv.Itoa(p)), w.q(strconv.Itoa(o.HTTPSPort)))
		}
		w.line("default", "$pass_server_port")
		w.close()
		// A final "/" is dropped, as ingress-nginx's redirect does.
		w.open("map", "$request_uri", "$kubectl_ingress_www_uri")
		w.line(`"~^(.*)/$"`, "$1")
		w.line("default", "$request_uri")
		w.close()
	}
}

// writeResponseHeaders sets response headers with headers-more: each
// replaces a header of the same name that the backend sent.
func writeResponseHeaders(w *confWriter, hs []model.Header) {
	for _, h := range hs {
		w.line("more_set_headers", w.q(h.Name+": "+headerValue(h)))
	}
}

// writeBackendHeaders writes the proxy-set-headers headers; it follows
// every writeProxyHeaders, since a location that sets one header inherits
// none.
func writeBackendHeaders(w *confWriter, hs []model.Header) {
	writeBackendHeadersWith(w, "proxy_set_header", hs)
}

// writeBackendHeadersWith is writeBackendHeaders with the directive that
// sets them (upstreamHeaderDirective).
func writeBackendHeadersWith(w *confWriter, directive string, hs []model.Header) {
	for _, h := range hs {
		w.line(directive, w.q(h.Name), w.q(headerValue(h)))
	}
}

// writeServerTLS writes the ssl-ciphers and ssl-prefer-server-ciphers of a
// server.
func writeServerTLS(w *confWriter, s *model.Server) {
	if s.SSLCiphers != "" {
		w.line("ssl_ciphers", w.q(s.SSLCiphers))
	}
	if s.SSLPreferServerCiphers != nil {
		w.line("ssl_prefer_server_ciphers", onOff(*s.SSLPreferServerCiphers))
	}
}

// writeWWWRedirects writes a server per from-to-www-redirect that answers
// every request with a 308 to the same scheme, port and URI on the rule's
// host, as ingress-nginx's redirect servers do (with http-redirect-code,
// 308 by default).
func writeWWWRedirects(w *confWriter, c *model.Config, o ConfOptions) {
	for _, r := range c.WWWRedirects {
		w.comment("from-to-www-redirect to " + r.To)
		w.comment("start server " + r.From)
		block := w.beginOwned(r.From, "", []model.ObjectRef{r.Ingress})
		w.open("server")
		w.line("server_name", w.q(r.From))
		// Listeners and blocking as every server's (writeServer).
		writeListen(w, o, o.HTTPPort, w.listenOptions()...)
		writeHTTPSListen(w, c, o)
		writeServerBlocking(w, &c.Global)
		w.line("set", "$proxy_upstream_name", `"-"`)
		// r.To is a host checked by render (RFC 1123 name).
		code := c.Global.Redirects.HTTPRedirectCode
		if code == 0 {
			code = 308
		}
		w.line("return", strconv.Itoa(code), w.q("$pass_access_scheme://"+r.To+":$kubectl_ingress_www_port$kubectl_ingress_www_uri"))
		w.close()
		w.endOwned(block)
		w.comment("end server " + r.From)
	}
}
