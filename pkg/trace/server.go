package trace

import (
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// A server_name entry as the classic writer writes it (servername.go):
// exact names go to nginx's hash, a "*." name becomes the regex of one
// label "~^[\w-]+\.rest$".
type serverEntry struct {
	name   string // the model's name (host or alias)
	kind   HostKind
	server int // index in Config.Servers; -1 for a www redirect
	www    int // index in Config.WWWRedirects
}

// selectServer is nginx's ngx_http_find_virtual_server on the writer's
// names: an exact name first (hosts, aliases, www redirects), then the
// regex names in the order of the file (servers in Config order, each
// host before its aliases), else the default server "_".
func selectServer(c *model.Config, host string) (HostMatch, *model.Server, *model.WWWRedirect) {
	m := HostMatch{Host: host}
	var entries []serverEntry
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Hostname == model.CatchAllHost {
			continue
		}
		kind := HostExact
		if strings.HasPrefix(s.Hostname, "*.") {
			kind = HostWildcard
		}
		entries = append(entries, serverEntry{s.Hostname, kind, i, -1})
		for _, a := range s.Aliases {
			kind := HostAlias
			if strings.HasPrefix(a, "*.") {
				kind = HostAliasWild
			}
			entries = append(entries, serverEntry{a, kind, i, -1})
		}
	}
	for i := range c.WWWRedirects {
		entries = append(entries, serverEntry{c.WWWRedirects[i].From, HostWWWRedirect, -1, i})
	}
	found := func(e serverEntry) (HostMatch, *model.Server, *model.WWWRedirect) {
		m.Kind, m.Name = e.kind, e.name
		if e.server < 0 {
			m.Server = c.WWWRedirects[e.www].From
			return m, nil, &c.WWWRedirects[e.www]
		}
		m.Server = c.Servers[e.server].Hostname
		return m, &c.Servers[e.server], nil
	}
	if host != "" {
		for _, e := range entries {
			if !strings.HasPrefix(e.name, "*.") && e.name == host {
				return found(e)
			}
		}
		for _, e := range entries {
			if rest, ok := strings.CutPrefix(e.name, "*."); ok && oneLabelOf(host, rest) {
				return found(e)
			}
		}
	}
	m.Kind, m.Server = HostDefault, model.CatchAllHost
	return m, c.Server(model.CatchAllHost), nil
}

// oneLabelOf says whether host is one label followed by "." and rest, as
// the regex name ~^[\w-]+\.rest$ matches it.
func oneLabelOf(host, rest string) bool {
	label, ok := strings.CutSuffix(host, "."+rest)
	if !ok || label == "" {
		return false
	}
	for i := 0; i < len(label); i++ {
		// PCRE's [\w-]: letters, digits, "_" and "-"
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
