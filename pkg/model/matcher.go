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
