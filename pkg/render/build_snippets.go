package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/snippet"
)

// Snippets: configuration-snippet and server-snippet translated by
// pkg/snippet into typed settings. A configuration-snippet goes to every
// location of its Ingress; a server-snippet to the server of each host of
// its Ingress, from the oldest Ingress of the host that has one (as
// ingress-nginx takes the first server-snippet of a host). A snippet with
// any refused directive applies none of its lines: each Refusal is a
// Problem naming the line and the directive. The ConfigMap's
// allow-snippet-annotations: "false" makes every snippet a Problem.

// ingressSnippets are the translated snippets of one Ingress (nil: none,
// or refused).
type ingressSnippets struct {
	location *model.Snippet
	server   *model.Snippet
	// hasServer says the Ingress has a server-snippet, applied or not: it
	// claims its hosts' server-snippet either way.
	hasServer bool
}

// translateSnippets translates the snippets of p into p.snippets, with a
// Problem for each refusal.
func (b *builder) translateSnippets(p *parsedIngress) {
	for _, a := range []struct {
		name string
		text string
		out  **model.Snippet
	}{
		{snippet.ConfigurationSnippet, p.ann.ConfigurationSnippet, &p.snippets.location},
		{snippet.ServerSnippet, p.ann.ServerSnippet, &p.snippets.server},
	} {
		if a.text == "" {
			continue
		}
		field := annotations.Field(a.name)
		if a.name == snippet.ServerSnippet {
			p.snippets.hasServer = true
		}
		if b.global.Policy.DisableSnippets {
			b.problem(p.ref, field, "%s", annotations.SnippetDisabledReason())
			continue
		}
		if p.ann.Canary.Enabled {
			b.problem(p.ref, field, "the snippet of a canary Ingress is not applied: the canary shares the locations and servers of its main Ingress; put the snippet on the main Ingress")
			continue
		}
		s, refusals := snippet.Translate(a.name, a.text)
		for _, r := range refusals {
			b.problem(p.ref, field, "%s; the snippet is not supported as written: %s", r, noneApplied(r.Directives))
		}
		if s == nil {
			continue
		}
		s.Ingress = p.ref
		for i := range s.Locations {
			s.Locations[i].Body.Ingress = p.ref
		}
		*a.out = s
	}
}

// noneApplied says that none of a snippet's n directives applies.
func noneApplied(n int) string {
	switch n {
	case 0:
		return "it is not applied"
	case 1:
		return "its one directive is not applied"
	}
	return fmt.Sprintf("none of its %d directives is applied", n)
}

// addServerSnippet applies the server-snippet of p to each of its hosts
// whose server-snippet no older Ingress has claimed.
func (b *builder) addServerSnippet(p *parsedIngress, hosts []string) {
	if !p.snippets.hasServer || b.global.Policy.DisableSnippets {
		return
	}
	if b.serverSnippetOwner == nil {
		b.serverSnippetOwner = map[string]model.ObjectRef{}
	}
	for _, h := range hosts {
		if owner, taken := b.serverSnippetOwner[h]; taken {
			if owner != p.ref {
				b.problem(p.ref, annotations.Field(snippet.ServerSnippet), "the server-snippet of host %q is that of ingress %s (older), applied or not; this snippet is not applied to that host", h, owner)
			}
			continue
		}
		b.serverSnippetOwner[h] = p.ref
		if p.snippets.server != nil {
			b.server(h).server.Snippet = p.snippets.server
		}
	}
}

// checkSnippetLocations refuses a server-snippet whose nested location
// repeats a location of the server's Ingress paths (nginx -t: "duplicate
// location"): an exact location of the same path, or a prefix one (with
// or without ^~) of the same path. Regex locations may repeat in nginx.
func (b *builder) checkSnippetLocations() {
	hosts := make([]string, 0, len(b.servers))
	for h := range b.servers {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		s := &b.servers[h].server
		if s.Snippet == nil || len(s.Snippet.Locations) == 0 {
			continue
		}
		exact := map[string]bool{}
		for i := range s.Locations {
			if s.Locations[i].PathType == model.PathExact {
				exact[s.Locations[i].Path] = true
			}
		}
		taken := map[string]*model.Location{}
		for i := range s.Locations {
			l := &s.Locations[i]
			for _, m := range model.LocationMatchers(l, exact) {
				if k := locationClass(m.Modifier, m.Path); k != "" {
					taken[k] = l
				}
			}
		}
		for _, nl := range s.Snippet.Locations {
			k := locationClass(nl.Modifier, nl.Path)
			l, dup := taken[k]
			if k == "" || !dup {
				continue
			}
			b.problem(s.Snippet.Ingress, annotations.Field(snippet.ServerSnippet), "the snippet's location %s repeats the location of path %q (%s) of ingress %s on host %q, which nginx refuses (duplicate location); the snippet is not applied",
				strings.TrimSpace(nl.Modifier+" "+nl.Path), l.Path, l.PathType, l.Ingress, h)
			s.Snippet = nil
			break
		}
	}
}

// locationClass is the key under which nginx finds two locations
// duplicate: "=" and the path for an exact one, "prefix" and the path for
// a prefix one (plain or ^~); "" for a regex.
func locationClass(modifier, path string) string {
	switch modifier {
	case "=":
		return "= " + path
	case "", "^~":
		return "prefix " + path
	}
	return ""
}

// SnippetNotices says, for each snippet applied in c, what it became:
// "configuration-snippet of ns/name: 3 directives translated: add_header
// ×3". Sorted; one line per snippet annotation of an Ingress.
func SnippetNotices(c *model.Config) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s *model.Snippet) {
		if s == nil {
			return
		}
		key := s.Annotation + " of " + s.Ingress.String()
		if seen[key] {
			return
		}
		seen[key] = true
		names := make([]string, 0, len(s.Translated))
		n := 0
		for k, v := range s.Translated {
			names = append(names, k)
			n += v
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = fmt.Sprintf("%s ×%d", k, s.Translated[k])
		}
		word := "directives"
		if n == 1 {
			word = "directive"
		}
		out = append(out, fmt.Sprintf("%s: %d %s translated: %s", key, n, word, strings.Join(parts, ", ")))
	}
	for i := range c.Servers {
		s := &c.Servers[i]
		add(s.Snippet)
		for j := range s.Locations {
			add(s.Locations[j].Settings.Snippet)
		}
	}
	sort.Strings(out)
	return out
}
