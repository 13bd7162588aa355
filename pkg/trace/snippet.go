package trace

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The rewrite-phase lines of snippets (model.Snippet.RewritePhase:
// rewrite and return) and their allow/deny lines, as nginx runs them.

// rewriteResult is what a list of rewrite-phase lines did.
type rewriteResult int

const (
	rewriteGoOn    rewriteResult = iota // every line ran, the URI as it was; go on
	rewriteChanged                      // every line ran and a rewrite without flag changed the URI: the locations are searched again after the location's rewrite phase
	rewriteBreak                        // "break": no more rewrite lines here
	rewriteLast                         // "last": search the locations again
	rewriteEnded                        // a return or a redirect answered
)

// runRewrites runs steps on t.uri in order, as the rewrite module does.
func (t *tracer) runRewrites(setting string, steps []model.SnippetRewriteStep) rewriteResult {
	result := rewriteGoOn
	for _, st := range steps {
		if r := st.Return; r != nil {
			text, ok := t.expand(r.Text, nil, false)
			if !ok {
				t.d.NotCovered = append(t.d.NotCovered, setting+": return "+strconv.Itoa(r.Code)+" "+r.Text+" (a variable trace does not know)")
			}
			t.step("rewrite", setting, "return "+strconv.Itoa(r.Code))
			switch r.Code {
			case 301, 302, 303, 307, 308:
				t.status(r.Code, text)
				t.makeAbsolute(t.portInRedirect())
			default:
				t.status(r.Code, "")
			}
			return rewriteEnded
		}
		rw := st.Rewrite
		if rw == nil {
			continue
		}
		re, err := regexp.Compile(rw.Regex)
		if err != nil {
			t.d.NotCovered = append(t.d.NotCovered, setting+": rewrite "+rw.Regex+" not evaluated: "+err.Error())
			continue
		}
		m := re.FindStringSubmatchIndex(t.uri)
		if m == nil {
			continue
		}
		done, ok := t.rewriteURI(setting, rw, m)
		if !ok {
			t.d.NotCovered = append(t.d.NotCovered, setting+": rewrite to "+rw.Replacement+" (a variable trace does not know)")
		}
		if done {
			return rewriteEnded
		}
		switch rw.Flag {
		case "last":
			return rewriteLast
		case "break":
			return rewriteBreak
		}
		result = rewriteChanged
	}
	return result
}

// rewriteURI applies the rewrite rw, whose regex matched t.uri (m), as
// nginx's rewrite module: the replacement's first "?" starts the new
// arguments, which the request's follow unless it ends in "?"; captures
// copied into the arguments are escaped when the request's path holds a
// "%" or "+" (quoted). A replacement that starts with http://, https://
// or $scheme, or the flag redirect or permanent, answers with a redirect
// (done): every capture escaped as above, then the escapes of printable
// characters before the arguments undone. ok is false when the
// replacement reads a variable trace does not know.
func (t *tracer) rewriteURI(setting string, rw *model.SnippetRewrite, m []int) (done, ok bool) {
	tpl := rw.Replacement
	keepArgs := !strings.HasSuffix(tpl, "?")
	tpl = strings.TrimSuffix(tpl, "?")
	redirect := rw.Flag == "redirect" || rw.Flag == "permanent" ||
		strings.HasPrefix(tpl, "http://") || strings.HasPrefix(tpl, "https://") || strings.HasPrefix(tpl, "$scheme")
	sent, _ := splitTarget(t.r.Target)
	quoted := strings.ContainsAny(sent, "%+")
	pathTpl, argsTpl, hasArgs := strings.Cut(tpl, "?")
	path, okPath := t.expand(pathTpl, m, redirect && quoted)
	args, okArgs := "", true
	if hasArgs {
		args, okArgs = t.expand(argsTpl, m, quoted)
	}
	ok = okPath && okArgs
	if redirect {
		code := 302
		if rw.Flag == "permanent" {
			code = 301
		}
		loc := path
		if hasArgs {
			loc += "?" + args
		}
		loc = unescapeRedirect(loc)
		if keepArgs && t.args != "" {
			if hasArgs {
				loc += "&" + t.args
			} else {
				loc += "?" + t.args
			}
		}
		t.step("rewrite", setting, "rewrite redirects to "+loc+": "+strconv.Itoa(code))
		t.status(code, loc)
		if strings.HasPrefix(loc, "/") {
			t.makeAbsolute(t.portInRedirect())
		}
		return true, ok
	}
	if path == "" {
		t.step("rewrite", setting, "the rewritten URI is empty: 500")
		t.status(500, "")
		return true, ok
	}
	switch {
	case hasArgs && keepArgs && t.args != "":
		t.args = args + "&" + t.args
	case hasArgs:
		t.args = args
	case !keepArgs:
		t.args = ""
	}
	t.uri, t.changed = path, true
	t.step("rewrite", setting, "rewrite: URI becomes "+t.uri)
	return false, ok
}

// unescapeRedirect is nginx's ngx_unescape_uri with NGX_UNESCAPE_REDIRECT
// on a redirect's target: up to the first "?" (or an escaped one), an
// escape of a character from "&" to "~" becomes the character, another
// stays; what is not an escape is dropped ("%" and the character after
// it, or "%", a digit and the character after them).
func unescapeRedirect(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '?' {
			b.WriteString(s[i:])
			break
		}
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		h1, ok1 := unhex(s[i+1])
		if !ok1 {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if i+2 >= len(s) {
			break
		}
		h2, ok2 := unhex(s[i+2])
		if ok2 {
			switch v := h1<<4 | h2; {
			case v == '?':
				b.WriteString("?" + s[i+3:])
				return b.String()
			case v > '%' && v < 0x7f:
				b.WriteByte(v)
			default:
				b.WriteString(s[i : i+3])
			}
		}
		i += 2
	}
	return b.String()
}

// escapeArgs is ngx_escape_uri(NGX_ESCAPE_ARGS): space, "#", "%", "&",
// "+", ";", "?", control and non-ASCII bytes.
func escapeArgs(s string) string {
	return escapeBytes(s, "#%&+;?")
}

// setURI makes target ("path?args" after a rewrite) the request's URI,
// with nginx's rules for arguments: the target's replace the request's,
// which follow them unless the target ends in "?".
func (t *tracer) setURI(target string) {
	p, q, hasQ := strings.Cut(target, "?")
	switch {
	case !hasQ:
	case strings.HasSuffix(q, "?"):
		t.args = strings.TrimSuffix(q, "?")
	case t.args != "" && q != "":
		t.args = q + "&" + t.args
	default:
		t.args = q
	}
	t.uri, t.changed = p, true
}

// expand substitutes $1..$9 (from the match m on t.uri, escaped as
// arguments when escape) and the variables trace knows in s; ok is false
// when s names another.
func (t *tracer) expand(s string, m []int, escape bool) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] >= '1' && s[i+1] <= '9' {
			n := int(s[i+1] - '0')
			if 2*n+1 < len(m) && m[2*n] >= 0 {
				v := t.uri[m[2*n]:m[2*n+1]]
				if escape {
					v = escapeArgs(v)
				}
				b.WriteString(v)
			}
			i++
			continue
		}
		j := i + 1
		brace := j < len(s) && s[j] == '{'
		if brace {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		name := s[j:k]
		end := k
		if brace && k < len(s) && s[k] == '}' {
			end = k + 1
		}
		v, known := map[string]string{
			"uri": t.uri, "request_uri": t.r.Target, "args": t.args, "query_string": t.args,
			"scheme": t.r.Scheme, "host": t.d.Host.Host, "http_host": t.r.Host,
		}[name]
		if !known {
			ok = false
			v = s[i:end]
		}
		b.WriteString(v)
		i = end - 1
	}
	return b.String(), ok
}

// upstreamURI is the request target the backend gets: as sent, or once a
// rewrite changed the URI, the URI escaped with its arguments.
func (t *tracer) upstreamURI() string {
	if !t.changed {
		return t.r.Target
	}
	up := escapeURI(t.uri)
	if t.args != "" {
		up += "?" + t.args
	}
	return up
}

// snippetLocation runs a location of the server-snippet: its rewrite
// lines, then its allow/deny lines; what it serves then (nginx's static
// files) is not traced. It reports whether the search starts again.
func (t *tracer) snippetLocation(l *model.SnippetLocation) bool {
	switch t.runRewrites("server-snippet location", l.Body.RewritePhase) {
	case rewriteEnded:
		return false
	case rewriteLast, rewriteChanged:
		return true
	}
	if allowed, rule := accessRules(t.r.remoteAddr(), snippetRules(l.Body.Access)); !allowed {
		t.step("access", "server-snippet location", rule+": 403")
		t.status(403, "")
		return false
	}
	t.d.NotCovered = append(t.d.NotCovered, "what the server-snippet location "+l.Modifier+" "+l.Path+" serves")
	t.d.Outcome = Outcome{Kind: OutcomeStatus, Unless: []string{"the server-snippet location answers"}}
	return false
}

// accessRule is one allow or deny line.
type accessRule struct {
	deny   bool
	source string // "all", an address or a network
}

func snippetRules(list []model.SnippetAccess) []accessRule {
	out := make([]accessRule, 0, len(list))
	for _, a := range list {
		out = append(out, accessRule{a.Deny, a.Source})
	}
	return out
}

// accessRules is the access module: the first rule that matches addr
// decides; none lets it in.
func accessRules(addr string, rules []accessRule) (bool, string) {
	for _, r := range rules {
		if r.source == "all" || inCIDRs(addr, []string{r.source}) {
			verb := "allow "
			if r.deny {
				verb = "deny "
			}
			return !r.deny, verb + r.source
		}
	}
	return true, ""
}
