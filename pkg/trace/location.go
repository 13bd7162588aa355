package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// locEntry is one location block of a server as the classic writer
// writes it (nginxconf_server.go writeServer), in file order.
type locEntry struct {
	mod  string // "", "=", "~*" or "~"
	path string // the location's argument (a regex for "~*" and "~")
	loc  int    // index in Server.Locations; -1 for the others
	kind MatchKind
	// re is the compiled regex of "~*" and "~" (nil when Go cannot
	// compile nginx's PCRE pattern: badRe says why).
	re    *regexp.Regexp
	badRe string
	// proxies is true when the location passes requests on (proxy_pass,
	// grpc_pass, fastcgi_pass): nginx's auto_redirect of a name ending
	// in "/".
	proxies bool
	// snippet is true for a location of the server-snippet, snip.
	snippet bool
	snip    *model.SnippetLocation
}

func (e *locEntry) nginx() string {
	if e.mod == "" {
		return e.path
	}
	return e.mod + " " + e.path
}

// serverLocations lists the locations of s in the order the writer
// writes them: for each Ingress path (model.LocationOrder: Exact paths ending
// in "/" first) its internal auth location and its matchers
// (model.LocationMatchers; an Exact path ending in "/" as the regex
// "~ ^/p/$"), the fallback "location /" unless a path or the
// server-snippet has one, the catch-all's model.HealthzPath, the internal
// mirror locations and the server-snippet's locations.
func serverLocations(c *model.Config, s *model.Server) []locEntry {
	exact := map[string]bool{}
	hasRoot := false
	for i := range s.Locations {
		l := &s.Locations[i]
		if l.PathType == model.PathExact {
			exact[l.Path] = true
		}
		if l.PathType != model.PathExact && l.Path == "/" {
			hasRoot = true
		}
	}
	var out []locEntry
	for _, i := range model.LocationOrder(s.Locations) {
		l := &s.Locations[i]
		if c.AuthOf(l) != nil {
			out = append(out, locEntry{mod: "=", path: authPath(l), loc: -1, kind: MatchInternal})
		}
		for _, m := range model.LocationMatchers(l, exact) {
			if l.ExactSlash() && m.Modifier == "=" {
				m = model.Matcher{Modifier: "~", Path: "^" + regexp.QuoteMeta(l.Path) + "$"}
			}
			e := locEntry{mod: m.Modifier, path: m.Path, loc: i, proxies: proxies(c, l)}
			switch m.Modifier {
			case "=":
				e.kind = MatchExact
			case "":
				e.kind = MatchPrefix
			default:
				e.kind = MatchRegex
				e.re, e.badRe = compileNginxRegex(m.Path, m.Modifier == "~*")
			}
			out = append(out, e)
		}
	}
	if !hasRoot && !snippetHasRoot(s) {
		out = append(out, locEntry{path: "/", loc: -1, kind: MatchFallback, proxies: c.DefaultBackend != "" && c.DefaultBackend != model.DefaultBackendName})
	}
	if model.ServesHealthz(s) {
		out = append(out, locEntry{path: model.HealthzPath, loc: -1, kind: MatchHealthz})
	}
	seen := map[string]bool{}
	for _, i := range model.LocationOrder(s.Locations) {
		if m := s.Locations[i].Settings.Mirror; m != nil && !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, locEntry{mod: "=", path: "/_mirror-" + m.ID, loc: -1, kind: MatchInternal})
		}
	}
	if s.Snippet != nil {
		for i := range s.Snippet.Locations {
			l := &s.Snippet.Locations[i]
			e := locEntry{mod: l.Modifier, path: l.Path, loc: -1, kind: MatchPrefix, snippet: true, snip: l}
			switch l.Modifier {
			case "=":
				e.kind = MatchExact
			case "~", "~*":
				e.kind = MatchRegex
				e.re, e.badRe = compileNginxRegex(l.Path, l.Modifier == "~*")
			}
			out = append(out, e)
		}
	}
	return out
}

// compileNginxRegex compiles a location regex for Go: RE2 runs the
// patterns render accepts (PCRE2's language checked there) unless they
// use what RE2 lacks (look-around, back-references).
func compileNginxRegex(p string, fold bool) (*regexp.Regexp, string) {
	if fold {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err.Error()
	}
	return re, ""
}

// proxies says whether the location of l ends in a pass directive
// (writeLocationBody): not when it is denied, redirects, or has no
// backend and the default backend is nginx's own 404.
func proxies(c *model.Config, l *model.Location) bool {
	st := l.Settings
	switch {
	case st.Denied != "", st.Redirect != nil:
		return false
	case l.Backend == "":
		return c.DefaultBackend != "" && c.DefaultBackend != model.DefaultBackendName
	}
	return true
}

// findLocation is nginx's ngx_http_core_find_location on entries: an
// "=" location equal to uri; else, when no prefix location is named uri,
// nginx's 301 when a location that passes requests on is named uri +
// "/"; else the first regex (file order) that matches; else the longest
// prefix.
func findLocation(entries []locEntry, uri string) (*locEntry, []string) {
	var notes []string
	for i := range entries {
		if entries[i].mod == "=" && entries[i].path == uri {
			return &entries[i], nil
		}
	}
	// A prefix location named uri ends nginx's tree walk before the
	// location uri + "/" below it is looked at.
	equal := false
	for i := range entries {
		if e := &entries[i]; (e.mod == "" || e.mod == "^~") && e.path == uri {
			equal = true
		}
	}
	for i := range entries {
		e := &entries[i]
		if !equal && (e.mod == "" || e.mod == "=") && e.proxies && e.path == uri+"/" {
			r := *e
			r.kind = MatchAutoRedirect
			return &r, nil
		}
	}
	var prefix *locEntry
	for i := range entries {
		e := &entries[i]
		if (e.mod == "" || e.mod == "^~") && strings.HasPrefix(uri, e.path) && (prefix == nil || len(e.path) > len(prefix.path)) {
			prefix = e
		}
	}
	if prefix != nil && prefix.mod == "^~" {
		return prefix, nil
	}
	for i := range entries {
		e := &entries[i]
		if e.mod != "~" && e.mod != "~*" {
			continue
		}
		if e.re == nil {
			notes = append(notes, "location "+e.nginx()+" is not evaluated: "+e.badRe)
			continue
		}
		if e.re.MatchString(uri) {
			return e, notes
		}
	}
	return prefix, notes
}

// The helpers below state what pkg/nginxconf decides, from the model
// (trace may not import the writer).

// snippetHasRoot: a server-snippet location "/" replaces the fallback.
func snippetHasRoot(s *model.Server) bool {
	if s.Snippet == nil {
		return false
	}
	for _, l := range s.Snippet.Locations {
		if l.Path == "/" && (l.Modifier == "" || l.Modifier == "^~") {
			return true
		}
	}
	return false
}

// authPath is the internal location of l's auth request.
func authPath(l *model.Location) string {
	sum := sha256.Sum256([]byte(string(l.PathType) + "\x00" + l.Path))
	return "/_external-auth-" + hex.EncodeToString(sum[:8])
}
