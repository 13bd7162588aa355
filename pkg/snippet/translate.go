package snippet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The snippet annotations Translate reads.
const (
	ConfigurationSnippet = "configuration-snippet"
	ServerSnippet        = "server-snippet"
)

// maxSnippet bounds the text of a snippet (nginx itself has no bound; a
// snippet of real use is a few hundred bytes).
const maxSnippet = 64 << 10

// Refusal is why a snippet is not applied: a directive that is not
// allowlisted, bad arguments, or text nginx would not parse.
type Refusal struct {
	// Line is the 1-based line of the directive in the snippet.
	Line int
	// Directive is the directive's name ("" for a syntax error).
	Directive string
	// Reason says why, and what to use instead where there is something.
	Reason string
	// Directives is the number of directives of the whole snippet (0 when
	// it did not parse), none of which is applied.
	Directives int
}

// String is "line 3: directive "x": reason".
func (r Refusal) String() string {
	if r.Directive == "" {
		return fmt.Sprintf("line %d: %s", r.Line, r.Reason)
	}
	return fmt.Sprintf("line %d: directive %q: %s", r.Line, r.Directive, r.Reason)
}

// Translate translates the text of a snippet annotation
// (ConfigurationSnippet or ServerSnippet) into a model.Snippet. Any
// Refusal means the Snippet is nil: a snippet applies whole or not at all.
// A snippet without directives (empty, or comments only) gives nil and no
// Refusal. The Snippet's Ingress is left for the caller to set.
func Translate(annotation, text string) (*model.Snippet, []Refusal) {
	var top where
	var proxyVars []string
	switch annotation {
	case ConfigurationSnippet:
		top, proxyVars = atLocation, serviceVars
	case ServerSnippet:
		top = atServer
	default:
		return nil, []Refusal{{Line: 1, Reason: fmt.Sprintf("%s is not a snippet annotation that translates", annotations.ValueQuote(annotation))}}
	}
	if len(text) > maxSnippet {
		return nil, []Refusal{{Line: 1, Reason: fmt.Sprintf("the snippet is longer than %d bytes", maxSnippet)}}
	}
	tokens, err := Tokenize(text)
	if err == nil {
		var ds []directive
		ds, err = parse(tokens)
		if err == nil {
			return translate(annotation, ds, top, proxyVars)
		}
	}
	se := err.(*SyntaxError)
	return nil, []Refusal{{Line: se.Line, Reason: "nginx would not parse it: " + se.Reason}}
}

func translate(annotation string, ds []directive, top where, proxyVars []string) (*model.Snippet, []Refusal) {
	total := count(ds)
	if total == 0 {
		return nil, nil
	}
	s := &model.Snippet{Annotation: annotation, Translated: map[string]int{}}
	var refusals []Refusal
	refuse := func(d directive, format string, args ...any) {
		refusals = append(refusals, Refusal{Line: d.Line, Directive: d.Name, Reason: fmt.Sprintf(format, args...), Directives: total})
	}
	t := &target{s: s, seen: map[string]bool{}, proxyVars: proxyVars}
	type located struct{ modifier, path string }
	var seenLocations []located
	for _, d := range ds {
		if d.Name == "location" && top == atServer {
			loc, ok := translateLocation(d, s.Translated, refuse)
			if !ok {
				continue
			}
			key := located{loc.Modifier, loc.Path}
			if slices.Contains(seenLocations, key) {
				refuse(d, "%s is written twice (nginx -t refuses a duplicate location)", describeLocation(loc.Modifier, loc.Path))
				continue
			}
			seenLocations = append(seenLocations, key)
			s.Locations = append(s.Locations, loc)
			s.Translated["location"]++
			continue
		}
		if applyDirective(t, d, top, refuse) {
			s.Translated[d.Name]++
		}
	}
	if len(refusals) > 0 {
		return nil, refusals
	}
	return s, nil
}

// applyDirective translates one directive d standing at w into t, or
// refuses it; it reports whether d was translated.
func applyDirective(t *target, d directive, w where, refuse func(directive, string, ...any)) bool {
	sp := lookup(d.Name)
	switch {
	case sp == nil:
		refuse(d, "%s", refusedReason(d.Name))
		return false
	case sp.where&w == 0 && d.Name == "location" && w == atLocation:
		refuse(d, "a location is translated only in a server-snippet (one level deep); use a server-snippet of the Ingress that owns the host, or a path of the Ingress")
		return false
	case sp.where&w == 0:
		refuse(d, "a location nested in a location is not translated; write it at the server-snippet's top level")
		return false
	case d.HasBlock:
		refuse(d, "takes no block")
		return false
	case sp.single && t.seen[d.Name]:
		refuse(d, "is set twice in one block (nginx -t refuses a duplicate)")
		return false
	}
	args := make([]string, len(d.Args))
	for i, a := range d.Args {
		args[i] = a.Text
	}
	if err := sp.apply(t, args); err != nil {
		refuse(d, "%v", err)
		return false
	}
	t.seen[d.Name] = true
	return true
}

// translateLocation translates a location block of a server-snippet,
// counting its directives into translated.
func translateLocation(d directive, translated map[string]int, refuse func(directive, string, ...any)) (model.SnippetLocation, bool) {
	var loc model.SnippetLocation
	if !d.HasBlock {
		refuse(d, "needs a block: location [= | ^~ | ~ | ~*] PATH { … }")
		return loc, false
	}
	args := make([]string, len(d.Args))
	for i, a := range d.Args {
		args[i] = a.Text
	}
	switch {
	case len(args) == 2:
		loc.Modifier, loc.Path = args[0], args[1]
	case len(args) == 1:
		loc.Path = args[0]
		// nginx reads "=/x", "~*^/x", "~^/x" and "^~/x" as a modifier and a path.
		for _, m := range []string{"=", "~*", "^~", "~"} {
			if p, ok := strings.CutPrefix(args[0], m); ok && p != "" {
				loc.Modifier, loc.Path = m, p
				break
			}
		}
	default:
		refuse(d, "takes a modifier (=, ^~, ~ or ~*) and a path, or a path")
		return loc, false
	}
	switch loc.Modifier {
	case "=", "", "^~":
		if strings.HasPrefix(loc.Path, "@") {
			refuse(d, "named locations are not translated (they serve error_page and try_files, which are not translated either)")
			return loc, false
		}
		if !strings.HasPrefix(loc.Path, "/") {
			refuse(d, "path %s must start with \"/\"", annotations.ValueQuote(loc.Path))
			return loc, false
		}
		if err := checkVisible("path", loc.Path); err != nil {
			refuse(d, "%v", err)
			return loc, false
		}
	case "~", "~*":
		if err := checkRegex(loc.Path); err != nil {
			refuse(d, "%v", err)
			return loc, false
		}
	default:
		refuse(d, "modifier %s must be =, ^~, ~ or ~*", annotations.ValueQuote(loc.Modifier))
		return loc, false
	}
	body := &model.Snippet{Annotation: ServerSnippet}
	t := &target{s: body, seen: map[string]bool{}}
	ok := true
	counted := map[string]int{}
	failed := func(dd directive, format string, args ...any) {
		ok = false
		refuse(dd, format, args...)
	}
	for _, inner := range d.Block {
		if applyDirective(t, inner, atNested, failed) {
			counted[inner.Name]++
		}
	}
	if !ok {
		return loc, false
	}
	if !answersItself(body) {
		refuse(d, "%s must answer by itself: a return (not after a rewrite with flag break), or deny all before any allow; it cannot proxy, and without an answer nginx would serve files from its own root", describeLocation(loc.Modifier, loc.Path))
		return loc, false
	}
	for k, n := range counted {
		translated[k] += n
	}
	loc.Body = *body
	return loc, true
}

// describeLocation is "location ~ ^/x" for a message.
func describeLocation(modifier, path string) string {
	if modifier == "" {
		return "location " + annotations.ValueQuote(path)
	}
	return "location " + modifier + " " + annotations.ValueQuote(path)
}

// answersItself reports whether a nested location's body answers every
// request without reaching nginx's content phase (which, with no proxy
// allowed in a snippet, would serve files from nginx's root): its rewrite
// phase reaches a return (a rewrite with flag break ends the phase
// before it; last, redirect and permanent leave the location), or its
// first access rule denies all.
func answersItself(body *model.Snippet) bool {
	for _, step := range body.RewritePhase {
		if step.Return != nil {
			return true
		}
		if step.Rewrite != nil && step.Rewrite.Flag == "break" {
			break
		}
	}
	return len(body.Access) > 0 && body.Access[0].Deny && body.Access[0].Source == "all"
}
