package model

import "strings"

// Matcher is the argument list of one location directive: an optional
// modifier ("=" or "~*") and the path. The modifier is the writer's own; the
// path is a user value.
type Matcher struct {
	Modifier string
	Path     string
}

// LocationMatchers gives the nginx locations that implement one Ingress
// path. exactPaths are the Exact paths of the same server: they take the
// "= /p" location of a Prefix path of the same value, as the Ingress spec
// gives Exact precedence.
func LocationMatchers(l *Location, exactPaths map[string]bool) []Matcher {
	switch {
	case l.PathType == PathExact:
		return []Matcher{{"=", l.Path}}
	case l.Regex:
		return []Matcher{{"~*", "^" + l.Path}}
	case l.PathType == PathPrefix:
		p := strings.TrimRight(l.Path, "/")
		if p == "" {
			return []Matcher{{"", "/"}}
		}
		if exactPaths[p] {
			return []Matcher{{"", p + "/"}}
		}
		return []Matcher{{"", p + "/"}, {"=", p}}
	default:
		return []Matcher{{"", l.Path}}
	}
}

// ExactSlash reports whether l is an Exact path that ends in "/" and is not
// "/" itself. The writers make it the case-sensitive regex "^/p/$", tried
// before every other location of its server: as an "=" location nginx
// would answer the request without the slash with a 301 (auto_redirect).
func (l *Location) ExactSlash() bool {
	return l.PathType == PathExact && len(l.Path) > 1 && strings.HasSuffix(l.Path, "/")
}

// LocationOrder gives the indexes of locs in the order the writers write
// their locations: the ExactSlash paths first, then the others as they are.
func LocationOrder(locs []Location) []int {
	order := make([]int, 0, len(locs))
	for i := range locs {
		if locs[i].ExactSlash() {
			order = append(order, i)
		}
	}
	for i := range locs {
		if !locs[i].ExactSlash() {
			order = append(order, i)
		}
	}
	return order
}

// HealthzPath is the location of the catch-all server that answers 200
// itself, as ingress-nginx's default server does (its health-check URI):
// load balancers probe it on the HTTP port (AKS's health probe path, for
// one).
const HealthzPath = "/healthz"

// ServesHealthz says whether server s has the built-in HealthzPath
// location: s is the catch-all and none of its Ingress paths nor
// server-snippet locations is the prefix location of that name (nginx
// refuses two; the Ingress's wins). A longer or exact path, or a regex,
// is matched as nginx matches any other location beside it.
func ServesHealthz(s *Server) bool {
	if s.Hostname != CatchAllHost {
		return false
	}
	exact := map[string]bool{}
	for i := range s.Locations {
		if s.Locations[i].PathType == PathExact {
			exact[s.Locations[i].Path] = true
		}
	}
	for i := range s.Locations {
		for _, m := range LocationMatchers(&s.Locations[i], exact) {
			if m.Modifier == "" && m.Path == HealthzPath {
				return false
			}
		}
	}
	if s.Snippet != nil {
		for _, l := range s.Snippet.Locations {
			if l.Modifier == "" && l.Path == HealthzPath {
				return false
			}
		}
	}
	return true
}
