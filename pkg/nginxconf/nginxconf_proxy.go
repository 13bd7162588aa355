package nginxconf

import (
	"slices"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The proxy and client settings of model.ProxyGlobals and the location
// settings of proxy.go and proxy_location.go in pkg/annotations: each
// written at http level only where the ConfigMap differs from nginx's own
// default, and in a location only where the location differs from what it
// inherits. Every value is a validated size, number or token; the
// rewrites' texts go through q.

// defaultNGINX are the values nginx uses without a directive, for the
// keys written only where they differ.
var defaultNGINX = model.DefaultProxyGlobals()

// writeHTTPProxySettings writes the http-level lines of ProxyGlobals that
// writeHTTPSettings does not.
func writeHTTPProxySettings(w *confWriter, g model.Global) {
	if g.ProxyBusyBuffersSize != "" {
		w.line("proxy_busy_buffers_size", w.q(g.ProxyBusyBuffersSize))
	}
	if g.ProxyMaxTempFileSize != defaultNGINX.ProxyMaxTempFileSize {
		w.line("proxy_max_temp_file_size", w.q(g.ProxyMaxTempFileSize))
	}
	if g.ProxyNextUpstreamTimeout > 0 {
		w.line("proxy_next_upstream_timeout", strconv.Itoa(g.ProxyNextUpstreamTimeout)+"s")
	}
	if !g.ProxyCookieDomain.Off {
		writeTextRewrite(w, "proxy_cookie_domain", g.ProxyCookieDomain)
	}
	if !g.ProxyCookiePath.Off {
		writeTextRewrite(w, "proxy_cookie_path", g.ProxyCookiePath)
	}
	if g.ClientBodyBufferSize != defaultNGINX.ClientBodyBufferSize {
		w.line("client_body_buffer_size", w.q(g.ClientBodyBufferSize))
	}
	if g.ClientBodyTimeout != defaultNGINX.ClientBodyTimeout {
		w.line("client_body_timeout", strconv.Itoa(g.ClientBodyTimeout)+"s")
	}
	if g.ClientHeaderBufferSize != defaultNGINX.ClientHeaderBufferSize {
		w.line("client_header_buffer_size", w.q(g.ClientHeaderBufferSize))
	}
	if g.ClientHeaderTimeout != defaultNGINX.ClientHeaderTimeout {
		w.line("client_header_timeout", strconv.Itoa(g.ClientHeaderTimeout)+"s")
	}
	if b := g.LargeClientHeaderBuffers; b != defaultNGINX.LargeClientHeaderBuffers {
		w.line("large_client_header_buffers", strconv.Itoa(b.Number), w.q(b.Size))
	}
	if g.EnableUnderscoresInHeaders {
		w.line("underscores_in_headers", "on")
	}
	if !g.IgnoreInvalidHeaders {
		w.line("ignore_invalid_headers", "off")
	}
}

// nextUpstreamArgs are the arguments of proxy_next_upstream:
// non_idempotent last, added by retry-non-idempotent.
func nextUpstreamArgs(cases []string, retryNonIdempotent bool) []string {
	out := []string{"proxy_next_upstream"}
	for _, c := range cases {
		if c != "non_idempotent" {
			out = append(out, c)
		}
	}
	if (retryNonIdempotent || slices.Contains(cases, "non_idempotent")) && !slices.Contains(cases, "off") {
		out = append(out, "non_idempotent")
	}
	return out
}

// writeTextRewrite writes proxy_cookie_domain, proxy_cookie_path or
// proxy_redirect for r.
func writeTextRewrite(w *confWriter, directive string, r model.TextRewrite) {
	switch {
	case r.Off:
		w.line(directive, "off")
	case r.Default:
		w.line(directive, "default")
	default:
		w.line(directive, w.q(r.From), w.q(r.To))
	}
}

// writeProxyTuning writes a location's own proxy buffering, buffers,
// HTTP version, retries and cookie rewrites: each that differs from the
// ConfigMap's (model.ShapeOf keeps the same ones, and the Lua router's
// shape locations are written with this too).
func writeProxyTuning(w *confWriter, g *model.Global, p *model.ProxySettings) {
	if p.Buffering != nil && *p.Buffering != g.ProxyBuffering {
		w.line("proxy_buffering", onOff(*p.Buffering))
	}
	if p.RequestBuffering != nil && *p.RequestBuffering != g.ProxyRequestBuffering {
		w.line("proxy_request_buffering", onOff(*p.RequestBuffering))
	}
	size, num := g.ProxyBufferSize, g.ProxyBuffersNumber
	if p.BufferSize != "" {
		size = p.BufferSize
	}
	if p.BuffersNumber != 0 {
		num = p.BuffersNumber
	}
	if size != g.ProxyBufferSize || num != g.ProxyBuffersNumber {
		writeProxyBuffers(w, num, size)
	}
	if p.BusyBuffersSize != "" && p.BusyBuffersSize != g.ProxyBusyBuffersSize {
		w.line("proxy_busy_buffers_size", w.q(p.BusyBuffersSize))
	}
	if p.MaxTempFileSize != "" && p.MaxTempFileSize != g.ProxyMaxTempFileSize {
		w.line("proxy_max_temp_file_size", w.q(p.MaxTempFileSize))
	}
	if p.HTTPVersion != "" && p.HTTPVersion != g.ProxyHTTPVersion {
		w.line("proxy_http_version", p.HTTPVersion)
	}
	if p.NextUpstream != nil && !slices.Equal(p.NextUpstream, g.ProxyNextUpstream) {
		w.line(nextUpstreamArgs(p.NextUpstream, g.RetryNonIdempotent)...)
	}
	if p.NextUpstreamTries != nil && *p.NextUpstreamTries != g.ProxyNextUpstreamTries {
		w.line("proxy_next_upstream_tries", strconv.Itoa(*p.NextUpstreamTries))
	}
	if p.NextUpstreamTimeout != nil && *p.NextUpstreamTimeout != g.ProxyNextUpstreamTimeout {
		w.line("proxy_next_upstream_timeout", strconv.Itoa(*p.NextUpstreamTimeout)+"s")
	}
	if p.CookieDomain != nil && *p.CookieDomain != g.ProxyCookieDomain {
		writeTextRewrite(w, "proxy_cookie_domain", *p.CookieDomain)
	}
	if p.CookiePath != nil && *p.CookiePath != g.ProxyCookiePath {
		writeTextRewrite(w, "proxy_cookie_path", *p.CookiePath)
	}
}

// writeLocationClient writes the location's request body buffer, logs,
// port in redirects and response rate, which apply whatever answers (a
// redirect, the default backend, the backend).
func writeLocationClient(w *confWriter, g *model.Global, st *model.LocationSettings) {
	if st.Logs.AccessOff {
		w.line("access_log", "off")
	}
	if st.Logs.Rewrite {
		w.line("rewrite_log", "on")
	}
	if p := st.UsePortInRedirects; p != nil && *p != g.UsePortInRedirects {
		w.line("port_in_redirect", onOff(*p))
	}
	writeLocationModSecurity(w, g, st.ModSecurity)
	if b := st.Proxy.ClientBodyBufferSize; b != "" && b != g.ClientBodyBufferSize {
		w.line("client_body_buffer_size", w.q(b))
	}
	// limit_rate is in bytes; the keys in kilobytes, as ingress-nginx
	// writes them ("Nk").
	after, rate := g.LimitRateAfter, g.LimitRate
	if st.Limits.RateAfter != nil {
		after = *st.Limits.RateAfter
	}
	if st.Limits.Rate != nil {
		rate = *st.Limits.Rate
	}
	if after > 0 {
		w.line("limit_rate_after", strconv.Itoa(after)+"k")
	}
	if rate > 0 {
		w.line("limit_rate", strconv.Itoa(rate)+"k")
	}
}

// writeProxyRedirect writes the proxy_redirect of proxy-redirect-from and
// -to for a location whose protocol is proxied by the proxy module (for
// gRPC and FastCGI proxy_redirect does not apply): "off" without them, as
// ingress-nginx writes its default ("off"), so that a backend's Location
// naming nginx's upstream (http://upstream_balancer/…) is sent as it is,
// where nginx's implicit "proxy_redirect default" would rewrite it.
func writeProxyRedirect(w *confWriter, st *model.LocationSettings, protocol string) {
	if protocol == "GRPC" || protocol == "GRPCS" || protocol == "FCGI" {
		return
	}
	r := st.Proxy.Redirect
	if r == nil {
		r = &model.TextRewrite{Off: true}
	}
	writeTextRewrite(w, "proxy_redirect", *r)
}

// connectionHeader is the Connection header a location sends upstream.
func connectionHeader(w *confWriter, p *model.ProxySettings) string {
	if p.ConnectionHeader != "" {
		return w.q(p.ConnectionHeader)
	}
	return "$connection_upgrade"
}

// redirectURIVar is the URI of the HTTPS redirect without a trailing "/",
// as ingress-nginx's redirect drops it unless preserve-trailing-slash.
const redirectURIVar = "$kubectl_ingress_redirect_uri"

// httpsRedirectURI is the URI variable of the HTTPS redirect.
func httpsRedirectURI(preserve bool) string {
	if preserve {
		return "$request_uri"
	}
	return redirectURIVar
}

// preserveTrailingSlash is the effective preserve-trailing-slash of st.
func preserveTrailingSlash(g *model.Global, st *model.LocationSettings) bool {
	if st.PreserveTrailingSlash != nil {
		return *st.PreserveTrailingSlash
	}
	return g.PreserveTrailingSlash
}

// writeRedirectURIMap declares redirectURIVar when a server may redirect
// to HTTPS: $request_uri without its one trailing "/" ("/" gives "", so
// the redirect is to https://host, as ingress-nginx's Lua cuts it).
func writeRedirectURIMap(w *confWriter, c *model.Config) {
	for i := range c.Servers {
		s := &c.Servers[i]
		need := s.TLS
		for j := range s.Locations {
			need = need || s.Locations[j].HTTPSRedirect
		}
		if need {
			w.open("map", "$request_uri", redirectURIVar)
			w.line(`"~^(?<kubectl_ingress_uri>.*)/$"`, "$kubectl_ingress_uri")
			w.line("default", "$request_uri")
			w.close()
			return
		}
	}
}

// writeGRPCTimeouts writes the timeouts of a gRPC location: its
// proxy-connect-timeout, proxy-send-timeout and proxy-read-timeout (else
// the ConfigMap's) as grpc_connect_timeout, grpc_send_timeout and
// grpc_read_timeout, which grpc_pass reads instead of proxy_*_timeout, as
// ingress-nginx writes them in every gRPC location. p is nil in a location
// that has only the ConfigMap's (the Lua router's gRPC location, whose
// routes set their own through the balancer).
func writeGRPCTimeouts(w *confWriter, g *model.Global, p *model.ProxySettings) {
	connect, send, read := g.ProxyConnectTimeout, g.ProxySendTimeout, g.ProxyReadTimeout
	if p != nil {
		connect, send, read = ownTimeout(p.ConnectTimeout, connect), ownTimeout(p.SendTimeout, send), ownTimeout(p.ReadTimeout, read)
	}
	for _, t := range []struct {
		directive string
		seconds   int
	}{{"grpc_connect_timeout", connect}, {"grpc_send_timeout", send}, {"grpc_read_timeout", read}} {
		if t.seconds > 0 {
			w.line(t.directive, strconv.Itoa(t.seconds)+"s")
		}
	}
}

// ownTimeout is a location's timeout v when set (> 0), else the
// ConfigMap's def.
func ownTimeout(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
