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
	rewriteGoOn  rewriteResult = iota // every line ran; go on
	rewriteBreak                      // "break": no more rewrite lines here
	rewriteLast                       // "last": search the locations again
	rewriteEnded                      // a return or a redirect answered
)

// runRewrites runs steps on t.uri in order, as the rewrite module does.
func (t *tracer) runRewrites(setting string, steps []model.SnippetRewriteStep) rewriteResult {
	for _, st := range steps {
		if r := st.Return; r != nil {
			text, ok := t.expand(r.Text, nil)
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
		target, ok := t.expand(rw.Replacement, m)
		if !ok {
			t.d.NotCovered = append(t.d.NotCovered, setting+": rewrite to "+rw.Replacement+" (a variable trace does not know)")
		}
		if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
			code := 302
			if rw.Flag == "permanent" {
				code = 301
			}
			t.step("rewrite", setting, "rewrite redirects to "+target)
			t.status(code, target)
			return rewriteEnded
		}
		t.setURI(target)
		t.step("rewrite", setting, "rewrite: URI becomes "+t.uri)
		switch rw.Flag {
		case "redirect", "permanent":
			code := 302
			if rw.Flag == "permanent" {
				code = 301
			}
			loc := t.uri
			if t.args != "" {
				loc += "?" + t.args
			}
			t.status(code, loc)
			t.makeAbsolute(t.portInRedirect())
			return rewriteEnded
		case "last":
			return rewriteLast
		case "break":
			return rewriteBreak
		}
	}
	return rewriteGoOn
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

// expand substitutes $1..$9 (from the match m on t.uri) and the
// variables trace knows in s; ok is false when s names another.
func (t *tracer) expand(s string, m []int) (string, bool) {
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
				b.WriteString(t.uri[m[2*n]:m[2*n+1]])
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
	case rewriteLast:
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
