package nginxconf

import (
	"sort"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Custom error pages (model.ErrorPages), written as ingress-nginx writes
// them: a location with custom-http-errors intercepts its backend's
// answers with those codes (proxy_intercept_errors) and sends each code to
// a named location of its server, @custom_<backend>_<code>, one per
// default backend and code whatever the number of locations that use it.
// The named location asks the default backend for "/" and tells it the
// code, the client's Accept header, the original URI, the Ingress, Service
// and port of the location (variables the location sets) and the request
// ID. error_page "=" without a code: the client gets the default
// backend's answer, status included, as in ingress-nginx. When the
// default backend is the built-in one (no Service), the named location
// answers 404, as ingress-nginx's built-in default backend does.
//
// The location's Ingress, Service and port are Kubernetes names that
// render validated (no "$", which nginx would expand); they reach the
// text through q.

// errorPageVars are the variables a location with error pages sets and
// the headers the default backend gets them in, as ingress-nginx names
// both.
var errorPageVars = []struct{ variable, header string }{
	{"$namespace", "X-Namespace"},
	{"$ingress_name", "X-Ingress-Name"},
	{"$service_name", "X-Service-Name"},
	{"$service_port", "X-Service-Port"},
}

// errorPageLocation names the named location of a default backend and code.
func errorPageLocation(backend string, code int) string {
	return "@custom_" + backend + "_" + strconv.Itoa(code)
}

// writeErrorPageVars writes, first in a location with error pages, the
// variables its default backend is told: "set" runs in order with the
// location's returns, so they must come before any.
func writeErrorPageVars(w *confWriter, l *model.Location) {
	ep := &l.Settings.ErrorPages
	if len(ep.Codes) == 0 && !ep.Fallback {
		return
	}
	for i, v := range []string{l.Ingress.Namespace, l.Ingress.Name, l.Service, l.ServicePort} {
		w.line("set", errorPageVars[i].variable, w.q(v))
	}
}

// writeErrorPages writes proxy_intercept_errors and one error_page per code
// of a location; nothing for a location without codes. nginx answers with
// the first error_page of a code, so these come after the sign-in
// redirect of external authentication (error_page 401), which wins, as
// in ingress-nginx's template.
func writeErrorPages(w *confWriter, l *model.Location) {
	ep := &l.Settings.ErrorPages
	if len(ep.Codes) == 0 {
		return
	}
	if ep.Intercept {
		w.line(interceptErrorsDirective(l.Settings.BackendProtocol), "on")
	}
	for _, code := range ep.Codes {
		w.line("error_page", strconv.Itoa(code), "=", w.q(errorPageLocation(ep.Backend, code)))
	}
}

// writeErrorPageHeaders writes, in a location that sets its request
// headers again (nginxconf_headers.go), what its backend is told when it
// answers in place of a Service without endpoints (Fallback): X-Code 503,
// X-Format and the location's Ingress, Service and port.
func writeErrorPageHeaders(w *confWriter, l *model.Location) {
	if !l.Settings.ErrorPages.Fallback {
		return
	}
	writeUnavailableHeaders(w, upstreamHeaderDirective(l.Settings.BackendProtocol))
}

// writeUnavailableHeaders writes with directive what a default backend
// answering for a Service without endpoints is told: X-Code 503, X-Format
// and the variables of errorPageVars (the location's, or the router's
// route's).
func writeUnavailableHeaders(w *confWriter, directive string) {
	w.line(directive, "X-Code", "503")
	w.line(directive, "X-Format", "$http_accept")
	for _, v := range errorPageVars {
		w.line(directive, v.header, v.variable)
	}
}

// interceptErrorsDirective is the directive that has nginx answer a
// backend's error codes with its error_page lines: grpc_intercept_errors
// for gRPC, proxy_intercept_errors otherwise.
func interceptErrorsDirective(protocol string) string {
	if isGRPC(protocol) {
		return "grpc_intercept_errors"
	}
	return "proxy_intercept_errors"
}

// writeNoRuleHeaders writes the request headers of the default backend
// Service when no rule matches: X-Code 404, X-Format and X-Original-URI
// besides the usual ones (X-Request-ID among them). No Ingress, Service
// or port is known there.
func writeNoRuleHeaders(w *confWriter) {
	writeProxyHeaders(w, "")
	writeOriginalURI(w)
	w.line("proxy_set_header", "X-Code", "404")
	w.line("proxy_set_header", "X-Format", "$http_accept")
}

// writeErrorPageLocations writes the named locations that the locations of
// s send their error pages to: one per default backend and code, sorted.
func writeErrorPageLocations(w *confWriter, s *model.Server) {
	codes := map[string]map[int]bool{}
	for i := range s.Locations {
		ep := &s.Locations[i].Settings.ErrorPages
		if len(ep.Codes) == 0 {
			continue
		}
		if codes[ep.Backend] == nil {
			codes[ep.Backend] = map[int]bool{}
		}
		for _, c := range ep.Codes {
			codes[ep.Backend][c] = true
		}
	}
	backends := make([]string, 0, len(codes))
	for be := range codes {
		backends = append(backends, be)
	}
	sort.Strings(backends)
	for _, be := range backends {
		list := make([]int, 0, len(codes[be]))
		for c := range codes[be] {
			list = append(list, c)
		}
		sort.Ints(list)
		for _, c := range list {
			writeErrorPageLocation(w, be, c)
		}
	}
}

func writeErrorPageLocation(w *confWriter, backend string, code int) {
	w.open("location", w.q(errorPageLocation(backend, code)))
	if backend == "" || backend == model.DefaultBackendName {
		// The built-in default backend: nginx itself, 404 to everything.
		w.line("return", "404")
		w.close()
		return
	}
	w.line("set", "$proxy_upstream_name", w.q(backend))
	w.line("rewrite", `"(.*)"`, `"/"`, "break")
	writeErrorPageRequest(w, code)
	w.close()
}

// writeErrorPageRequest writes how an error page location asks the
// default backend for the page of code: the usual headers, X-Code,
// X-Format, X-Original-URI and the variables of errorPageVars.
func writeErrorPageRequest(w *confWriter, code int) {
	writeProxyHeaders(w, "")
	writeOriginalURI(w)
	w.line("proxy_set_header", "X-Code", strconv.Itoa(code))
	w.line("proxy_set_header", "X-Format", "$http_accept")
	for _, v := range errorPageVars {
		w.line("proxy_set_header", v.header, v.variable)
	}
	w.line("proxy_pass", "http://upstream_balancer")
}
