package nginxconf

import (
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The request headers sent upstream and the variables they come from, as
// ingress-nginx computes them (its nginx.tmpl and lua_ingress.lua, checked
// by its e2e test settings/forwarded_headers.go):
//
//	$pass_access_scheme  the scheme: $scheme, or with use-forwarded-headers
//	                     the client's X-Forwarded-Proto when it sends one
//	$pass_server_port    the port: $server_port, or with use-forwarded-headers
//	                     the client's X-Forwarded-Port when it sends one
//	$best_http_host      the client's Host header ($host without one), or with
//	                     use-forwarded-headers the first entry of its
//	                     X-Forwarded-Host when it sends one
//	$pass_port           $pass_server_port, with the port of the HTTPS
//	                     listener said as 443
//	$req_id              the client's X-Request-ID, else a generated one
//
// The backend gets Host and X-Forwarded-Host $best_http_host, X-Forwarded-For
// the client address nginx saw ($remote_addr: with use-forwarded-headers the
// real_ip module has taken it from the client's X-Forwarded-For), and the
// client's own X-Forwarded-For and X-Forwarded-Host as
// X-Original-Forwarded-For and X-Original-Forwarded-Host. Without
// use-forwarded-headers nothing the client sends in X-Forwarded-* reaches the
// backend under that name.
//
// Every value here is a variable or a constant of the writer; only the
// upstream-vhost annotation is user text, and it goes through q.

// writeForwardedVariables declares the variables above at http level.
// httpsPort is the port the HTTPS servers listen on (with SSL passthrough
// the loopback port behind the SNI router).
func writeForwardedVariables(w *confWriter, g model.Global, httpsPort int) {
	if g.UseForwardedHeaders {
		// the realip module: writeRealIP
		w.open("map", "$http_x_forwarded_proto", "$pass_access_scheme")
		w.line("default", "$http_x_forwarded_proto")
		w.line(`""`, "$scheme")
		w.close()
		w.open("map", "$http_x_forwarded_port", "$pass_server_port")
		w.line("default", "$http_x_forwarded_port")
		w.line(`""`, "$server_port")
		w.close()
		w.open("map", "$http_host", "$kubectl_ingress_this_host")
		w.line("default", "$http_host")
		w.line(`""`, "$host")
		w.close()
		// The first entry of a list ("a, b,c": "a"), as ingress-nginx
		// splits it on ",".
		w.open("map", "$http_x_forwarded_host", "$best_http_host")
		w.line(`""`, "$kubectl_ingress_this_host")
		w.line(`"~^([^,]*)"`, "$1")
		w.close()
	} else {
		w.open("map", "$scheme", "$pass_access_scheme")
		w.line("default", "$scheme")
		w.close()
		w.open("map", "$server_port", "$pass_server_port")
		w.line("default", "$server_port")
		w.close()
		w.open("map", "$http_host", "$best_http_host")
		w.line("default", "$http_host")
		w.line(`""`, "$host")
		w.close()
	}
	w.open("map", "$pass_server_port", "$pass_port")
	w.line(w.q(strconv.Itoa(httpsPort)), "443")
	w.line("default", "$pass_server_port")
	w.close()
	// The host of the HTTPS redirect. Without forwarded headers it is
	// $host, the name nginx chose this server by (the request line's host,
	// else the Host header without its port, lower case), never a Host
	// header that differs from it: an absolute-form request for a.example
	// with "Host: evil.example" is redirected to a.example, where
	// ingress-nginx sends it to evil.example. With use-forwarded-headers
	// the operator trusts the proxy in front: $best_http_host (its
	// X-Forwarded-Host) up to the first ":", as ingress-nginx.
	if g.UseForwardedHeaders {
		w.open("map", "$best_http_host", "$kubectl_ingress_redirect_host")
		w.line(`"~^([^:]*)"`, "$1")
		w.line("default", "$best_http_host")
	} else {
		w.open("map", "$host", "$kubectl_ingress_redirect_host")
		w.line("default", "$host")
	}
	w.close()
	w.open("map", "$http_x_request_id", "$req_id")
	w.line("default", "$http_x_request_id")
	if g.RealIP.GenerateRequestID {
		w.line(`""`, "$request_id")
	}
	w.close()
}

// writeHSTS sends Strict-Transport-Security as ingress-nginx does: with hsts
// on, every HTTPS answer carries exactly ours (an upstream's own header is
// hidden); over plain HTTP an upstream's header passes as it came. With hsts
// off nothing is added or hidden.
func writeHSTS(w *confWriter, g model.Global) {
	if !g.HSTS {
		w.open("map", "$scheme", "$hsts_header")
		w.line("default", `""`)
		w.close()
		w.line("add_header", "Strict-Transport-Security", "$hsts_header", "always")
		return
	}
	hsts := "max-age=" + strconv.Itoa(g.HSTSMaxAge)
	if g.HSTSIncludeSubdomains {
		hsts += "; includeSubDomains"
	}
	if g.HSTSPreload {
		hsts += "; preload"
	}
	w.line("proxy_hide_header", "Strict-Transport-Security")
	w.line("grpc_hide_header", "Strict-Transport-Security")
	w.open("map", "$scheme", "$hsts_header")
	w.line("default", "$upstream_http_strict_transport_security")
	w.line("https", w.q(hsts))
	w.close()
	w.line("add_header", "Strict-Transport-Security", "$hsts_header", "always")
}

// writeProxyHeaders writes the headers sent upstream; host overrides the
// Host header (annotation upstream-vhost) when not empty. nginx inherits
// proxy_set_header only into locations that set none, so a location that
// overrides one header writes them all again.
func writeProxyHeaders(w *confWriter, host string) {
	writeUpstreamHeaders(w, "proxy_set_header", host, "$connection_upgrade", w.global().ProxyAddOriginalURIHeader)
}

// writeOriginalURI writes the X-Original-URI of a request that gets it
// whatever proxy-add-original-uri-header says (an error page's, the
// default backend's), after writeProxyHeaders, which wrote it when the key
// is on.
func writeOriginalURI(w *confWriter) {
	if !w.global().ProxyAddOriginalURIHeader {
		w.line("proxy_set_header", "X-Original-URI", "$request_uri")
	}
}

// isGRPC says whether a backend-protocol is gRPC (GRPC or GRPCS, any
// case): nginx speaks to it with grpc_pass, which has directives of its
// own (grpc_set_header, grpc_*_timeout, grpc_intercept_errors).
func isGRPC(protocol string) bool {
	return strings.EqualFold(protocol, "GRPC") || strings.EqualFold(protocol, "GRPCS")
}

// upstreamHeaderDirective is the directive that sets a request header
// towards a backend of protocol: grpc_set_header for gRPC (grpc_pass
// ignores proxy_set_header), as ingress-nginx's template writes its
// headers with $proxySetHeader; proxy_set_header otherwise.
func upstreamHeaderDirective(protocol string) string {
	if isGRPC(protocol) {
		return "grpc_set_header"
	}
	return "proxy_set_header"
}

// writeUpstreamHeaders is writeProxyHeaders with the directive that sets
// them (upstreamHeaderDirective), the Connection header's value
// (connection-proxy-header, quoted, or a variable of the writer) and
// whether to send X-Original-URI (proxy-add-original-uri-header; the Lua
// router's locations send a variable of their own).
func writeUpstreamHeaders(w *confWriter, directive, host, connection string, originalURI bool) {
	hostValue := "$best_http_host"
	if host != "" {
		hostValue = w.q(host)
	}
	w.line(directive, "Host", hostValue)
	w.line(directive, "X-Request-ID", "$req_id")
	w.line(directive, "X-Real-IP", "$remote_addr")
	w.line(directive, "X-Forwarded-For", forwardedForValue(w.global()))
	w.line(directive, "X-Forwarded-Host", "$best_http_host")
	w.line(directive, "X-Forwarded-Port", "$pass_port")
	w.line(directive, "X-Forwarded-Proto", "$pass_access_scheme")
	w.line(directive, "X-Forwarded-Scheme", "$pass_access_scheme")
	w.line(directive, "X-Scheme", "$pass_access_scheme")
	if originalURI {
		w.line(directive, "X-Original-URI", "$request_uri")
	}
	w.line(directive, "X-Original-Forwarded-For", "$http_x_forwarded_for")
	w.line(directive, "X-Original-Forwarded-Host", "$http_x_forwarded_host")
	// httpoxy: a client's Proxy header never reaches a backend.
	w.line(directive, "Proxy", `""`)
	w.line(directive, "Upgrade", "$http_upgrade")
	w.line(directive, "Connection", connection)
}
