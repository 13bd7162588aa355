package trace

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Route says what nginx, configured by the classic writer from c, does
// with r. It never fails: a request nginx refuses is a 400 outcome.
func Route(c *model.Config, r Request) Decision {
	if r.Method == "" {
		r.Method = "GET"
	}
	r.Scheme = strings.ToLower(r.Scheme)
	if r.Scheme == "" {
		r.Scheme = "http"
	}
	if r.Target == "" {
		r.Target = "/"
	}
	if r.ClientIP == "" {
		r.ClientIP = "127.0.0.1"
	}
	t := &tracer{c: c, r: reqView{Request: r, c: c}, d: &Decision{Steps: []Step{}}}
	t.route()
	return *t.d
}

// tracer carries one request through nginx's phases.
type tracer struct {
	c *model.Config
	r reqView
	d *Decision
	// errorPages are the custom error pages of the location reached: a
	// status nginx makes there is answered by them.
	errorPages *model.ErrorPages
	// limited is true when a rate or connection limit counts the
	// request; pendingUnless are the conditions of access checks trace
	// cannot decide: both go to the outcome's Unless.
	limited       bool
	pendingUnless []string
	// uri and args are $uri and $args as rewrites leave them; changed
	// says whether a rewrite changed them (the backend then gets them
	// instead of the target as sent).
	uri, args string
	changed   bool
}

func (t *tracer) step(phase, setting, effect string) {
	t.d.Steps = append(t.d.Steps, Step{Phase: phase, Setting: setting, Effect: effect})
}

// status ends the request with nginx's own answer, through the
// location's custom error pages when they take that code.
func (t *tracer) status(code int, location string) {
	t.d.Outcome = Outcome{Kind: OutcomeStatus, Status: code, Location: location}
	ep := t.errorPages
	if ep == nil || !slices.Contains(ep.Codes, code) {
		return
	}
	if ep.Backend == "" || ep.Backend == model.DefaultBackendName {
		t.step("error-page", "custom-http-errors", strconv.Itoa(code)+": the built-in default backend answers 404")
		t.d.Outcome = Outcome{Kind: OutcomeStatus, Status: 404}
		return
	}
	t.step("error-page", "custom-http-errors", strconv.Itoa(code)+": answered by "+ep.Backend+" (X-Code "+strconv.Itoa(code)+")")
	t.proxy(ep.Backend, "/", "")
}

// proxy ends the request at backend name (Lua's balancer.rewrite: 503
// when it is unknown or has no endpoints; else its canary decision).
func (t *tracer) proxy(name, uri, vhost string) {
	b := t.c.Backend(name)
	if b == nil {
		t.step("balancer", "backend", name+" is unknown: 503")
		t.status(503, "")
		return
	}
	if len(b.Endpoints) == 0 {
		t.step("balancer", "backend", name+" has no endpoints: 503")
		t.status(503, "")
		return
	}
	if b.SessionAffinity.Type == "cookie" {
		if _, ok := t.r.cookie(b.SessionAffinity.Cookie.Name); ok {
			t.step("balancer", "affinity", "sticky cookie "+b.SessionAffinity.Cookie.Name+" sent: the endpoint (and canary) it names may serve")
		}
	}
	if cd := chooseCanary(t.c, t.r, b); cd != nil {
		t.d.Canary = cd
		t.step("balancer", "canary", canaryEffect(cd))
		if !cd.Random {
			b = t.c.Backend(cd.Chosen)
		}
	}
	o := Outcome{Kind: OutcomeProxy, Backend: b.Name, UpstreamURI: uri, UpstreamHost: vhost}
	if b.Service.Name != "" {
		o.Service = b.Service.String() + ":" + b.Port
	}
	if b.ExternalName != "" {
		o.Service += " (ExternalName " + b.ExternalName + ")"
	}
	for _, e := range b.Endpoints {
		o.Endpoints = append(o.Endpoints, joinHostPort(e.Address, e.Port))
	}
	if t.d.Canary != nil && t.d.Canary.Random {
		o.Unless = append(o.Unless, "the canary weight sends it to "+t.d.Canary.Canary)
	}
	o.Unless = append(o.Unless, t.pendingUnless...)
	if t.limited {
		o.Unless = append(o.Unless, "a rate or connection limit is exceeded ("+strconv.Itoa(t.c.Global.LimitReqStatusCode)+")")
	}
	t.d.Outcome = o
}

func joinHostPort(a string, p int) string {
	if strings.Contains(a, ":") {
		a = "[" + a + "]"
	}
	return a + ":" + strconv.Itoa(p)
}

func (t *tracer) route() {
	d := t.d
	path, args := splitTarget(t.r.Target)
	d.Args = args
	uri, err := normalizePath(path)
	host, ok := normalizeHost(t.r.Host)
	if err != nil || !ok {
		d.Host = HostMatch{Host: t.r.Host, Kind: HostInvalid}
		why := "the request target " + strconv.Quote(t.r.Target)
		if err == nil {
			why = "the Host header " + strconv.Quote(t.r.Host)
		}
		t.step("read-request", "nginx", why+" is refused: 400")
		t.status(400, "")
		return
	}
	d.URI = uri
	t.uri, t.args = uri, args
	hm, s, www := selectServer(t.c, host)
	d.Host = hm
	if www != nil {
		code := t.c.Global.Redirects.HTTPRedirectCode
		if code == 0 {
			code = 308
		}
		loc := t.r.passScheme() + "://" + www.To + ":" + strconv.Itoa(t.port()) + dropSlash(t.r.Target)
		t.step("server-rewrite", "from-to-www-redirect", "redirect to "+www.To)
		t.status(code, loc)
		return
	}
	d.Server = s
	if s == nil {
		t.status(404, "")
		return
	}
	if t.clientCertificate(s) {
		return
	}
	if t.serverRewrite(s) {
		return
	}
	entries := serverLocations(t.c, s)
	for cycle := 0; ; cycle++ {
		if cycle == 11 {
			// nginx's limit of URI changes (ngx_http_core_post_rewrite_phase):
			// the first search and ten more
			t.step("rewrite", "rewrite last", "the URI changed 11 times: 500")
			t.status(500, "")
			return
		}
		if !t.locate(s, entries) {
			return
		}
		t.step("find-config", "rewrite last", "search the locations again for "+t.uri)
	}
}

// locate finds the location of t.uri and runs it; it reports whether a
// rewrite "last" asks for the search again.
func (t *tracer) locate(s *model.Server, entries []locEntry) bool {
	d := t.d
	uri, args := t.uri, t.args
	e, notes := findLocation(entries, uri)
	d.NotCovered = append(d.NotCovered, notes...)
	for i := range entries {
		if x := &entries[i]; (x.mod == "" || x.mod == "=") && len(x.path) > 255 {
			// nginx's location tree keeps a name's length in a byte
			// (ngx_http_location_tree_node_t.len): a longer name is cut,
			// and nginx matches requests against the cut name.
			d.NotCovered = append(d.NotCovered, "a location of this server is longer than 255 bytes, which nginx's location tree cuts: its matches are not traced")
			break
		}
	}
	if e == nil {
		t.step("find-config", "location", "no location matches: 404")
		t.status(404, "")
		return false
	}
	lm := &LocationMatch{Nginx: e.nginx(), Match: e.kind}
	if e.loc >= 0 {
		l := &s.Locations[e.loc]
		lm.Ingress, lm.Path, lm.PathType, lm.Regex, lm.Location = l.Ingress.String(), l.Path, l.PathType, l.Regex, l
		t.errorPages = &l.Settings.ErrorPages
	}
	d.Location = lm
	switch {
	case e.kind == MatchAutoRedirect:
		loc := uri + "/"
		if args != "" {
			loc += "?" + args
		}
		t.step("find-config", "location", "nginx redirects "+uri+" to the location "+e.path+": 301")
		t.status(301, loc)
		if d.Outcome.Status == 301 {
			t.makeAbsolute(t.portInRedirect())
		}
	case e.kind == MatchInternal:
		t.step("find-config", "location", "internal location: 404")
		t.status(404, "")
	case e.kind == MatchHealthz:
		t.step("find-config", "location", "the catch-all's health check location "+model.HealthzPath+": 200")
		t.status(200, "")
	case e.snippet:
		t.step("find-config", "server-snippet", "location "+e.nginx()+" of the server-snippet")
		return t.snippetLocation(e.snip)
	case e.loc < 0:
		t.fallback(s)
	default:
		return t.location(s, &s.Locations[e.loc])
	}
	return false
}

// makeAbsolute makes the outcome's Location, a path, absolute as nginx's
// absolute_redirect does: the connection's scheme, the host looked up and,
// with port (port_in_redirect, use-port-in-redirects), the port the client
// connected to unless it is the scheme's own. Without a host (no Host
// header: nginx names its own address) it stays a path, and Absolute says
// nginx makes it absolute. A server with app-root has absolute_redirect
// off: the path is sent as it is.
func (t *tracer) makeAbsolute(port bool) {
	o := &t.d.Outcome
	if s := t.c.Server(t.d.Host.Server); s != nil && s.AppRoot != "" {
		return
	}
	host := t.d.Host.Host
	if host == "" || !strings.HasPrefix(o.Location, "/") {
		o.Absolute = strings.HasPrefix(o.Location, "/")
		return
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	scheme, p := t.r.Scheme, t.port()
	if port && !(scheme == "http" && p == 80) && !(scheme == "https" && p == 443) {
		host += ":" + strconv.Itoa(p)
	}
	o.Location = scheme + "://" + host + o.Location
}

// portInRedirect is use-port-in-redirects of the location reached (the
// ConfigMap's outside one).
func (t *tracer) portInRedirect() bool {
	if lm := t.d.Location; lm != nil && lm.Location != nil {
		return t.c.PortInRedirect(lm.Location.Settings)
	}
	return t.c.Global.UsePortInRedirects
}

// port is the port the client connected to.
func (t *tracer) port() int {
	if t.r.Port != 0 {
		return t.r.Port
	}
	if t.r.Scheme == "https" {
		return 443
	}
	return 80
}

// dropSlash is $request_uri without one final "/" (the maps
// $kubectl_ingress_redirect_uri and $kubectl_ingress_www_uri).
func dropSlash(target string) string {
	if strings.Contains(target, "\n") {
		return target
	}
	return strings.TrimSuffix(target, "/")
}

// clientCertificate is auth-tls-verify-client "on" over HTTPS: nginx
// answers a request without a verified client certificate 400 (its 496),
// or redirects it to auth-tls-error-page (a URL), before any rewrite; an
// error page that is a path is an internal redirect to it (error_page
// 495 496 = /path): the request goes on with that URI and the page's
// arguments, as a GET (HEAD stays). trace sends no certificate.
func (t *tracer) clientCertificate(s *model.Server) bool {
	ca := s.ClientAuth
	if ca == nil || ca.Verify != "on" || t.r.Scheme != "https" {
		return false
	}
	if strings.HasPrefix(ca.ErrorPage, "/") {
		t.step("post-read", "auth-tls-verify-client", "no client certificate: served by auth-tls-error-page "+ca.ErrorPage+" (an internal redirect)")
		t.uri, t.args, _ = strings.Cut(ca.ErrorPage, "?")
		t.d.URI, t.changed = t.uri, true
		if m := t.r.Method; m != "" && m != "GET" && m != "HEAD" {
			t.r.Method = "GET"
		}
		t.pendingUnless = append(t.pendingUnless, "a client certificate that "+ca.Secret.String()+" verifies is sent")
		return false
	}
	if ca.ErrorPage != "" {
		t.step("post-read", "auth-tls-verify-client", "no client certificate: redirect to auth-tls-error-page")
		t.status(302, ca.ErrorPage)
	} else {
		t.step("post-read", "auth-tls-verify-client", "no client certificate: 400")
		t.status(400, "")
	}
	t.d.Outcome.Unless = append(t.d.Outcome.Unless, "a client certificate that "+ca.Secret.String()+" verifies is sent")
	return true
}

// serverRewrite is the server block's rewrite phase: the 403 of
// block-cidrs, block-user-agents and block-referers, then app-root's 302
// of "/". It reports whether the request ended.
func (t *tracer) serverRewrite(s *model.Server) bool {
	b := t.c.Global.Block
	if len(b.CIDRs) > 0 && inCIDRs(t.r.remoteAddr(), b.CIDRs) {
		t.step("server-rewrite", "block-cidrs", t.r.remoteAddr()+" is blocked: 403")
		t.status(403, "")
		return true
	}
	ua, _ := t.r.header("User-Agent")
	if len(b.UserAgents) > 0 && mapMatches(b.UserAgents, ua) {
		t.step("server-rewrite", "block-user-agents", "User-Agent is blocked: 403")
		t.status(403, "")
		return true
	}
	ref, _ := t.r.header("Referer")
	if len(b.Referers) > 0 && mapMatches(b.Referers, ref) {
		t.step("server-rewrite", "block-referers", "Referer is blocked: 403")
		t.status(403, "")
		return true
	}
	if s.AppRoot != "" && t.uri == "/" {
		t.step("server-rewrite", "app-root", "/ redirects to "+s.AppRoot+": 302")
		t.status(302, s.AppRoot)
		return true
	}
	// the server-snippet's rewrite and return lines come last in the
	// server block
	return s.Snippet != nil && t.runRewrites("server-snippet", s.Snippet.RewritePhase) == rewriteEnded
}

// mapMatches is an nginx map of blocked values: exact strings (nginx
// map keys ignore case), "~" regexes and "~*" case-insensitive ones.
func mapMatches(entries []string, v string) bool {
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e, "~*"):
			if re, err := regexp.Compile("(?i)" + e[2:]); err == nil && re.MatchString(v) {
				return true
			}
		case strings.HasPrefix(e, "~"):
			if re, err := regexp.Compile(e[1:]); err == nil && re.MatchString(v) {
				return true
			}
		default:
			if strings.EqualFold(e, v) {
				return true
			}
		}
	}
	return false
}

// fallback is the writer's "location /" of a server without a path "/":
// a TLS host redirects plain HTTP first, then the default backend.
func (t *tracer) fallback(s *model.Server) {
	g := &t.c.Global
	if ((s.TLS && g.SSLRedirect) || (g.Redirects.ForceSSLRedirect && s.Hostname != model.CatchAllHost)) && t.r.passScheme() == "http" {
		t.httpsRedirect(g.PreserveTrailingSlash)
		return
	}
	t.defaultBackend()
}

func (t *tracer) defaultBackend() {
	c := t.c
	if c.DefaultBackend == "" || c.DefaultBackend == model.DefaultBackendName {
		t.step("content", "default backend", "no rule: 404")
		t.status(404, "")
		return
	}
	t.step("content", "default backend", "no rule: "+c.DefaultBackend+" (X-Code 404)")
	t.proxy(c.DefaultBackend, t.upstreamURI(), "")
}

// httpsRedirect is writeHTTPSRedirect: http-redirect-code (308) to
// https://$kubectl_ingress_redirect_host and $request_uri, without its
// one final "/" unless preserve-trailing-slash.
func (t *tracer) httpsRedirect(preserve bool) {
	code := t.c.Global.Redirects.HTTPRedirectCode
	if code == 0 {
		code = 308
	}
	uri := t.r.Target
	if !preserve {
		uri = dropSlash(uri)
	}
	loc := "https://" + t.r.redirectHost(t.d.Host.Host) + uri
	t.step("rewrite", "ssl-redirect", "plain HTTP redirects to HTTPS: "+strconv.Itoa(code))
	t.status(code, loc)
}
