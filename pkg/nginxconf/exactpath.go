package nginxconf

import (
	"regexp"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// An Exact path ending in "/" ("/foo/") cannot be written "location =
// /foo/": nginx gives a location whose name ends in "/" and that proxies
// an automatic 301 to "/foo/" for a request of "/foo" (auto_redirect),
// even for an "=" location, and before it looks at any regex. The Ingress
// spec says "/foo" is not that path: it must go to whatever else matches
// it (a Prefix "/", a regex, the default backend). So such a path is the
// case-sensitive regex "^/foo/$", which nginx never redirects for, and
// which is written before every other location of its server: nginx tries
// regexes in the order of the file, and only an "=" location (which this
// one replaces; no other path writes "= /foo/") or "^~" (never written)
// is chosen before the regexes, so it keeps the precedence of an Exact
// path over every Prefix and regex path.

// exactSlashMatcher gives the location of an Exact path ending in "/"
// (see above); any other matcher is returned as it is.
func exactSlashMatcher(l *model.Location, m model.Matcher) model.Matcher {
	if !l.ExactSlash() || m.Modifier != "=" {
		return m
	}
	return model.Matcher{Modifier: "~", Path: "^" + regexp.QuoteMeta(l.Path) + "$"}
}
