package trace

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// location runs the phases of an Ingress path's location as
// writeLocationBody writes it: the rewrite phase (HTTPS redirect,
// denied, auth-tls-match-cn, redirect, CORS preflight, no backend,
// rewrite-target) in the order of its lines, then Lua's balancer rewrite
// (backend, canary), preaccess (limits), access (source ranges, basic
// and external auth under satisfy) and content (the proxy).
func (t *tracer) location(s *model.Server, l *model.Location) bool {
	st := l.Settings
	g := &t.c.Global
	t.notCovered(l)
	if l.HTTPSRedirect && t.r.passScheme() == "http" {
		pres := g.PreserveTrailingSlash
		if st.PreserveTrailingSlash != nil {
			pres = *st.PreserveTrailingSlash
		}
		t.httpsRedirect(pres)
		return false
	}
	if st.Denied != "" {
		t.step("rewrite", "denied", st.Denied+": 503")
		t.status(503, "")
		return false
	}
	if ca := st.ClientAuth; ca != nil && ca.MatchCN != "" {
		re, err := regexp.Compile(ca.MatchCN)
		if err != nil || !re.MatchString("") {
			t.step("rewrite", "auth-tls-match-cn", "no client certificate subject matches "+ca.MatchCN+": 403")
			t.status(403, "")
			t.d.Outcome.Unless = append(t.d.Outcome.Unless, "a client certificate whose subject matches "+ca.MatchCN)
			return false
		}
	}
	if rd := st.Redirect; rd != nil {
		t.step("rewrite", "redirect", "permanent/temporal redirect: "+strconv.Itoa(rd.Code))
		t.status(rd.Code, rd.URL)
		return false
	}
	if st.CORS != nil && t.cors(st.CORS) {
		return false
	}
	// the configuration-snippet's rewrite lines; a URI changed without
	// "break" has the locations searched again at the end of the rewrite
	// phase, unless rewrite-target's "rewrite … break" after them matches
	// (or a return answers first: the built-in default backend's 404)
	rewritten := rewriteGoOn
	if sn := st.Snippet; sn != nil {
		rewritten = t.runRewrites("configuration-snippet", sn.RewritePhase)
		switch rewritten {
		case rewriteEnded:
			return false
		case rewriteLast:
			return true
		}
	}
	if l.Backend == "" {
		if rewritten == rewriteChanged && t.c.DefaultBackend != "" && t.c.DefaultBackend != model.DefaultBackendName {
			return true
		}
		t.defaultBackend()
		return false
	}
	if st.RewriteTarget != "" && l.Regex && rewritten != rewriteBreak {
		ended, matched := t.rewrite(l)
		if ended {
			return false
		}
		if matched {
			rewritten = rewriteBreak
		}
	}
	if rewritten == rewriteChanged {
		return true
	}
	uri := t.upstreamURI()
	// Lua's balancer.rewrite runs at the end of the rewrite phase.
	b := t.c.Backend(l.Backend)
	if b == nil || len(b.Endpoints) == 0 {
		t.proxy(l.Backend, uri, st.UpstreamVhost)
		return false
	}
	t.limits(st)
	if t.access(l) {
		return false
	}
	if st.UpstreamVhost != "" {
		t.step("content", "upstream-vhost", "Host "+st.UpstreamVhost)
	}
	t.proxy(l.Backend, uri, st.UpstreamVhost)
	if ep := st.ErrorPages; len(ep.Codes) > 0 && ep.Intercept && t.d.Outcome.Kind == OutcomeProxy {
		t.d.Outcome.Unless = append(t.d.Outcome.Unless, "the backend answers one of custom-http-errors "+intsText(ep.Codes)+" (then "+orBuiltin(ep.Backend)+" answers)")
	}
	return false
}

func orBuiltin(b string) string {
	if b == "" || b == model.DefaultBackendName {
		return "the built-in 404"
	}
	return b
}

func intsText(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// locationRules are the allow and deny lines of l in nginx.conf's order:
// the source ranges (denylist, allowlist, then "deny all" after an
// allowlist; an invalid range denies all), then the
// configuration-snippet's; a location without any inherits the
// server-snippet's.
func (t *tracer) locationRules(l *model.Location) ([]accessRule, string) {
	st := l.Settings
	var rules []accessRule
	setting := "source ranges"
	if st.Access.DenyAll {
		rules = append(rules, accessRule{true, "all"})
	} else {
		for _, c := range st.Access.Deny {
			rules = append(rules, accessRule{true, c})
		}
		for _, c := range st.Access.Allow {
			rules = append(rules, accessRule{false, c})
		}
		if len(st.Access.Allow) > 0 {
			rules = append(rules, accessRule{true, "all"})
		}
	}
	if sn := st.Snippet; sn != nil && len(sn.Access) > 0 {
		rules = append(rules, snippetRules(sn.Access)...)
		setting = "source ranges and configuration-snippet"
	}
	if len(rules) == 0 {
		for i := range t.c.Servers {
			// the server of l
			s := &t.c.Servers[i]
			if t.d.Server == s && s.Snippet != nil && len(s.Snippet.Access) > 0 {
				return snippetRules(s.Snippet.Access), "server-snippet"
			}
		}
	}
	return rules, setting
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// notCovered names the settings of l that trace does not evaluate.
func (t *tracer) notCovered(l *model.Location) {
	st := l.Settings
	if st.ModSecurity != nil || t.c.Global.ModSecurity.Enable {
		t.d.NotCovered = append(t.d.NotCovered, "ModSecurity rules")
	}
	if st.Mirror != nil {
		t.step("content", "mirror-target", "a copy goes to "+st.Mirror.Scheme+"://"+st.Mirror.HostPort+st.Mirror.URI)
	}
}

// cors is writeCORS: with "*" every request matches; else an Origin of
// the list (case-insensitive, "*." one label). A matching OPTIONS is
// answered 204 here. It reports whether the request ended.
func (t *tracer) cors(c *model.CORS) bool {
	match := len(c.AllowOrigins) == 0 || c.AllowOrigins[0] == "*"
	if !match {
		origin, _ := t.r.header("Origin")
		for _, p := range originsPatterns(c.AllowOrigins) {
			if re, err := regexp.Compile("(?i)" + p); err == nil && re.MatchString(origin) {
				match = true
				break
			}
		}
	}
	if !match {
		t.step("rewrite", "enable-cors", "Origin not allowed: no CORS headers")
		return false
	}
	if t.r.Method == "OPTIONS" {
		t.step("rewrite", "enable-cors", "preflight answered here: 204")
		t.status(204, "")
		return true
	}
	t.step("rewrite", "enable-cors", "CORS headers added to the answer")
	return false
}

// originsPatterns is nginxconf's originsRegexes without its split.
func originsPatterns(origins []string) []string {
	var parts []string
	for _, o := range origins {
		parts = append(parts, strings.Replace(regexp.QuoteMeta(o), `\*\.`, `[A-Za-z0-9-]+\.`, 1))
	}
	return []string{"^(" + strings.Join(parts, "|") + ")$"}
}

// rewrite is rewrite-target: "rewrite (?i)^path target break" on $uri.
// It reports whether nginx redirects instead (a target starting with
// http://, https:// or $scheme).
func (t *tracer) rewrite(l *model.Location) (ended, matched bool) {
	st := l.Settings
	re, err := regexp.Compile("(?i)^" + l.Path)
	if err != nil {
		t.d.NotCovered = append(t.d.NotCovered, "rewrite-target regex not evaluated: "+err.Error())
		return false, false
	}
	m := re.FindStringSubmatchIndex(t.uri)
	if m == nil {
		t.step("rewrite", "rewrite-target", "the path regex does not match "+t.uri+": URI unchanged")
		return false, false
	}
	var out []byte
	tgt := st.RewriteTarget
	for i := 0; i < len(tgt); i++ {
		if tgt[i] == '$' && i+1 < len(tgt) && tgt[i+1] >= '1' && tgt[i+1] <= '9' {
			n := int(tgt[i+1] - '0')
			if 2*n+1 < len(m) && m[2*n] >= 0 {
				out = append(out, t.uri[m[2*n]:m[2*n+1]]...)
			}
			i++
			continue
		}
		out = append(out, tgt[i])
	}
	target := string(out)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "$scheme") {
		t.step("rewrite", "rewrite-target", "redirects to "+target+": 302")
		t.status(302, target)
		return true, true
	}
	from := t.uri
	t.setURI(target)
	t.step("rewrite", "rewrite-target", from+" becomes "+t.uri)
	return false, true
}

// escapeURI is ngx_escape_uri(NGX_ESCAPE_URI) of a changed URI: space,
// "#", "%", "?", control and non-ASCII bytes.
func escapeURI(s string) string {
	return escapeBytes(s, "#%?")
}

// escapeBytes writes as %XX the control bytes, space, DEL, the bytes
// above it and those of special in s, as nginx's ngx_escape_uri does with
// a table of that set.
func escapeBytes(s, special string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte(special, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// limits notes the rate and connection limits (preaccess): a first
// request passes them.
func (t *tracer) limits(st *model.LocationSettings) {
	lim := &st.Limits
	if lim.RPS <= 0 && lim.RPM <= 0 && lim.Connections <= 0 {
		return
	}
	exempt := len(lim.Exempt) > 0 && inCIDRs(t.r.remoteAddr(), lim.Exempt)
	var parts []string
	if lim.RPS > 0 {
		parts = append(parts, "limit-rps "+strconv.Itoa(lim.RPS))
	}
	if lim.RPM > 0 {
		parts = append(parts, "limit-rpm "+strconv.Itoa(lim.RPM))
	}
	if lim.Connections > 0 {
		parts = append(parts, "limit-connections "+strconv.Itoa(lim.Connections))
	}
	effect := strings.Join(parts, ", ") + " per client address"
	if exempt {
		effect = t.r.remoteAddr() + " is exempt from " + strings.Join(parts, ", ")
	}
	t.step("preaccess", "limits", effect)
	if !exempt {
		t.limited = true
	}
}

// access is nginx's access phase: the source ranges (access module),
// basic auth, then external auth, under satisfy all (the first refusal
// answers) or any (one acceptance is enough). It reports whether the
// request ended.
func (t *tracer) access(l *model.Location) bool {
	st := l.Settings
	type verdict int
	const (
		pass verdict = iota
		deny
		maybe // depends on what trace cannot know
	)
	var results []struct {
		v      verdict
		status int
		unless string
	}
	add := func(v verdict, status int, unless, setting, effect string) {
		results = append(results, struct {
			v      verdict
			status int
			unless string
		}{v, status, unless})
		t.step("access", setting, effect)
	}
	ip := t.r.remoteAddr()
	satisfyAny := st.Satisfy == "any" && !st.Access.DenyAll
	if rules, setting := t.locationRules(l); len(rules) > 0 {
		if ok, rule := accessRules(ip, rules); ok && rule == "" && satisfyAny {
			// nginx's access module lets a client in by an allow line
			// only: no matching line lets the other checks decide
			t.step("access", setting, ip+" matches no rule: the authentication decides (satisfy any)")
		} else if ok {
			add(pass, 0, "", setting, ip+" is allowed ("+orText(rule, "no rule matches")+")")
		} else {
			add(deny, 403, "", setting, ip+" is refused ("+rule+"): 403")
		}
	}
	if ba := st.BasicAuth; ba != nil {
		if v, ok := t.r.header("Authorization"); ok && strings.HasPrefix(strings.ToLower(v), "basic ") {
			add(maybe, 401, "the credentials are refused (401)", "auth-type basic", "credentials sent: checked against the htpasswd")
		} else {
			add(deny, 401, "", "auth-type basic", "no credentials: 401")
		}
	}
	if a := t.c.AuthOf(l); a != nil {
		what := "auth-url"
		if st.ExternalAuth == nil {
			what = "global-auth-url"
		}
		unless := "the auth service at " + a.URL + " refuses (401, 403)"
		if a.SigninURL != "" {
			unless += "; a 401 redirects to " + a.SigninURL
		}
		add(maybe, 401, unless, what, "subrequest to "+a.URL)
	}
	if len(results) == 0 {
		return false
	}
	var unless []string
	if satisfyAny {
		status := 0
		for _, r := range results {
			switch r.v {
			case pass:
				t.step("access", "satisfy", "any: one check lets it in")
				return false
			case maybe:
				unless = append(unless, r.unless)
			}
			if status != 401 {
				status = r.status
			}
		}
		if len(unless) == 0 {
			t.status(status, "")
			return true
		}
		t.pendingUnless = append(t.pendingUnless, "every check refuses: "+strings.Join(unless, "; "))
		return false
	}
	for _, r := range results {
		switch r.v {
		case deny:
			t.status(r.status, "")
			t.d.Outcome.Unless = append(t.d.Outcome.Unless, unless...)
			return true
		case maybe:
			unless = append(unless, r.unless)
		}
	}
	t.pendingUnless = append(t.pendingUnless, unless...)
	return false
}
