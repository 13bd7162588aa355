package model

import (
	"strconv"
	"strings"
)

// ErrorPages say which answers of a location the default backend renders
// (custom-http-errors) and whether it answers every request in place of
// a Service without endpoints (default-backend). The default backend is
// told the request's code, Accept header, URI, Ingress, Service and
// request ID in X-Code, X-Format, X-Original-URI, X-Namespace,
// X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID, as
// ingress-nginx tells it.
type ErrorPages struct {
	// Codes are the status codes (sorted, unique, 300 to 599) whose
	// answers the default backend renders: the annotation's, else the
	// ConfigMap's; nil for none.
	Codes []int
	// Intercept replaces the backend's own answers with those codes
	// (nginx's proxy_intercept_errors); without it (annotation
	// disable-proxy-intercept-errors) only nginx's own answers are (a 502
	// or 504 of an unreachable backend, a 503 without endpoints).
	Intercept bool
	// Backend names the Backend that renders the pages: the
	// default-backend annotation's Service, else Config.DefaultBackend
	// (DefaultBackendName: the built-in one, nginx itself, which answers
	// 404 to all, as ingress-nginx's own default backend does).
	Backend string
	// Fallback is true when the path's Service has no endpoints and the
	// location's Backend is the default-backend annotation's, which then
	// answers every request, told X-Code 503.
	Fallback bool
}

// ShapeKey names the interception of e, the same for every location
// with the same codes and Intercept: "i" (or "n" without Intercept) and
// the codes, joined by "_" ("i_404_503"); "" without codes. The Lua
// router's nginx.conf has one location per distinct key (nginxconf), and
// the route payload names it (luaapi).
func (e ErrorPages) ShapeKey() string {
	if len(e.Codes) == 0 {
		return ""
	}
	var b strings.Builder
	if e.Intercept {
		b.WriteString("i")
	} else {
		b.WriteString("n")
	}
	for _, c := range e.Codes {
		b.WriteString("_")
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}
