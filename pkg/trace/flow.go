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
func (t *tracer) location(s *model.Server, l *model.Location) {
	st := &l.Settings
	g := &t.c.Global
	t.notCovered(l)
	if l.HTTPSRedirect && t.r.passScheme() == "http" {
		pres := g.PreserveTrailingSlash
		if st.PreserveTrailingSlash != nil {
			pres = *st.PreserveTrailingSlash
		}
		t.httpsRedirect(pres)
		return
	}
	if st.Denied != "" {
		t.step("rewrite", "denied", st.Denied+": 503")
		t.status(503, "")
		return
	}
	if ca := st.ClientAuth; ca != nil && ca.MatchCN != "" {
		re, err := regexp.Compile(ca.MatchCN)
		if err != nil || !re.MatchString("") {
			t.step("rewrite", "auth-tls-match-cn", "no client certificate subject matches "+ca.MatchCN+": 403")
			t.status(403, "")
			t.d.Outcome.Unless = append(t.d.Outcome.Unless, "a client certificate whose subject matches "+ca.MatchCN)
			return
		}
	}
	if rd := st.Redirect; rd != nil {
		t.step("rewrite", "redirect", "permanent/temporal redirect: "+strconv.Itoa(rd.Code))
		t.status(rd.Code, rd.URL)
		return
	}
	if st.CORS != nil && t.cors(st.CORS) {
		return
	}
	if l.Backend == "" {
		t.defaultBackend()
		return
	}
	uri := t.r.Target
	if st.RewriteTarget != "" && l.Regex {
		var redirect bool
		uri, redirect = t.rewrite(l)
		if redirect {
			return
		}
	}
	// Lua's balancer.rewrite runs at the end of the rewrite phase.
	b := t.c.Backend(l.Backend)
	if b == nil || len(b.Endpoints) == 0 {
		t.proxy(l.Backend, uri, st.UpstreamVhost)
		return
	}
	t.limits(st)
	if t.access(l) {
		return
	}
	if st.UpstreamVhost != "" {
		t.step("content", "upstream-vhost", "Host "+st.UpstreamVhost)
	}
	t.proxy(l.Backend, uri, st.UpstreamVhost)
	if ep := st.ErrorPages; len(ep.Codes) > 0 && ep.Intercept && t.d.Outcome.Kind == OutcomeProxy {
		t.d.Outcome.Unless = append(t.d.Outcome.Unless, "the backend answers one of custom-http-errors "+intsText(ep.Codes)+" (then "+orBuiltin(ep.Backend)+" answers)")
	}
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

// notCovered names the settings of l that trace does not evaluate.
func (t *tracer) notCovered(l *model.Location) {
	st := &l.Settings
	if sn := st.Snippet; sn != nil && (len(sn.RewritePhase) > 0 || len(sn.Access) > 0) {
		t.d.NotCovered = append(t.d.NotCovered, "configuration-snippet rewrite, return, allow and deny lines")
	}
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
// It returns the URI the backend gets, and whether nginx redirects
// instead (a target starting with http://, https:// or $scheme).
func (t *tracer) rewrite(l *model.Location) (string, bool) {
	st := &l.Settings
	re, err := regexp.Compile("(?i)^" + l.Path)
	if err != nil {
		t.d.NotCovered = append(t.d.NotCovered, "rewrite-target regex not evaluated: "+err.Error())
		return t.r.Target, false
	}
	m := re.FindStringSubmatchIndex(t.d.URI)
	if m == nil {
		t.step("rewrite", "rewrite-target", "the path regex does not match "+t.d.URI+": URI unchanged")
		return t.r.Target, false
	}
	var out []byte
	tgt := st.RewriteTarget
	for i := 0; i < len(tgt); i++ {
		if tgt[i] == '$' && i+1 < len(tgt) && tgt[i+1] >= '1' && tgt[i+1] <= '9' {
			n := int(tgt[i+1] - '0')
			if 2*n+1 < len(m) && m[2*n] >= 0 {
				out = append(out, t.d.URI[m[2*n]:m[2*n+1]]...)
			}
			i++
			continue
		}
		out = append(out, tgt[i])
	}
	newURI := string(out)
	if strings.HasPrefix(newURI, "http://") || strings.HasPrefix(newURI, "https://") || strings.HasPrefix(newURI, "$scheme") {
		t.step("rewrite", "rewrite-target", "redirects to "+newURI+": 302")
		t.status(302, newURI)
		return "", true
	}
	args := t.d.Args
	if p, q, ok := strings.Cut(newURI, "?"); ok {
		newURI = p
		switch {
		case strings.HasSuffix(q, "?"):
			args = strings.TrimSuffix(q, "?")
		case args != "" && q != "":
			args = q + "&" + args
		case q != "":
			args = q
		}
	}
	up := escapeURI(newURI)
	if args != "" {
		up += "?" + args
	}
	t.step("rewrite", "rewrite-target", t.d.URI+" becomes "+newURI)
	return up, false
}

// escapeURI is ngx_escape_uri(NGX_ESCAPE_URI) of a changed URI: space,
// "#", "%", "?", control and non-ASCII bytes.
func escapeURI(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || c == '#' || c == '%' || c == '?' {
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
	st := &l.Settings
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
	if a := &st.Access; a.DenyAll || len(a.Allow) > 0 || len(a.Deny) > 0 {
		switch {
		case a.DenyAll:
			add(deny, 403, "", "source ranges", "an invalid range denies everyone: 403")
		case inCIDRs(ip, a.Deny):
			add(deny, 403, "", "denylist-source-range", ip+" is denied: 403")
		case inCIDRs(ip, a.Allow):
			add(pass, 0, "", "allowlist-source-range", ip+" is allowed")
		case len(a.Allow) > 0:
			add(deny, 403, "", "allowlist-source-range", ip+" is not allowed: 403")
		default:
			add(pass, 0, "", "denylist-source-range", ip+" is not denied")
		}
	}
	if ba := st.BasicAuth; ba != nil {
		if v, ok := t.r.header("Authorization"); ok && strings.HasPrefix(strings.ToLower(v), "basic ") {
			add(maybe, 401, "the credentials are refused (401)", "auth-type basic", "credentials sent: checked against the htpasswd")
		} else {
			add(deny, 401, "", "auth-type basic", "no credentials: 401")
		}
	}
	if a := authOf(t.c, l); a != nil {
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
	if st.Satisfy == "any" && !st.Access.DenyAll {
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
