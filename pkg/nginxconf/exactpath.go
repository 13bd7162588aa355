package nginxconf

import (
	"regexp"
	"strings"

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

// exactSlash says whether l is an Exact path that ends in "/" and is not
// "/" itself.
func exactSlash(l *model.Location) bool {
	return l.PathType == model.PathExact && len(l.Path) > 1 && strings.HasSuffix(l.Path, "/")
}

// exactSlashMatcher gives the location of an Exact path ending in "/"
// (see above); any other matcher is returned as it is.
func exactSlashMatcher(l *model.Location, m model.Matcher) model.Matcher {
	if !exactSlash(l) || m.Modifier != "=" {
		return m
	}
	return model.Matcher{Modifier: "~", Path: "^" + regexp.QuoteMeta(l.Path) + "$"}
}

// locationOrder gives the indexes of locs in the order their locations are
// written: Exact paths ending in "/" first, then the others as they are.
func locationOrder(locs []model.Location) []int {
	order := make([]int, 0, len(locs))
	for i := range locs {
		if exactSlash(&locs[i]) {
			order = append(order, i)
		}
	}
	for i := range locs {
		if !exactSlash(&locs[i]) {
			order = append(order, i)
		}
	}
	return order
}
