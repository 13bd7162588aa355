package nginxconf

import (
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeStickyPath marks a location whose Ingress asked for cookie affinity:
// balancer_sticky.lua sets the affinity cookie only where $location_path is
// set, and uses it as the cookie's Path unless session-cookie-path gives
// one, as ingress-nginx does (its $location_path is the Ingress path, and
// its cookieSessionAffinity.locations lists the host and path of each
// location whose Ingress asked for affinity). Another Ingress's location of
// the same backend sets no cookie.
//
// The path is a literal: a "$" can only be part of a use-regex path, whose
// text is no cookie path a browser would match anyway (ingress-nginx warns
// that session-cookie-path must be set with use-regex), so it is left out
// rather than read by nginx as a variable.
func writeStickyPath(w *confWriter, l *model.Location) {
	w.line("set", "$location_path", w.q(strings.ReplaceAll(l.Path, "$", "")))
}
