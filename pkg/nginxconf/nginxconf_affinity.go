package nginxconf

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeLocationPath sets $location_path in a proxying location, as
// ingress-nginx does in each of its locations: balancer_sticky.lua sets
// the affinity cookie only where the backend's
// sessionAffinityConfig.cookieSessionAffinity.locations lists the host and
// this path (the locations whose Ingress asked for affinity), and uses it
// as the cookie's Path unless session-cookie-path gives one. Every
// location has it, so that turning affinity on or off changes only the
// Lua payload, never nginx.conf (no reload).
//
// The path is a literal: a "$" can only be part of a use-regex path, whose
// text is no cookie path a browser would match anyway (ingress-nginx warns
// that session-cookie-path must be set with use-regex), so it is left out
// (model.LocationPathValue) rather than read by nginx as a variable.
func writeLocationPath(w *confWriter, l *model.Location) {
	w.line("set", "$location_path", w.q(model.LocationPathValue(l.Path)))
}
