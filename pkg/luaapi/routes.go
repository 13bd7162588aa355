package luaapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The routes payload of --routing=lua (lua/router.lua): one HostRoutes per
// host that Lua routes, sent to POST /configuration/routes only when its
// Version changed. Every setting is resolved here (the ConfigMap's value
// where the location inherits it), so that the Lua router only applies
// values and needs no defaults of its own. Which hosts Lua may route is
// decided by the writer (nginxconf.LuaRoutable); RoutesFromModel builds the
// payload of the hosts it is given.

// PathRoutes is the endpoint of the per-host route payloads.
const PathRoutes = "/configuration/routes"

// The kinds of RouteMatcher, in the order nginx tries them: exact ("="),
// then the longest prefix, then the regexes in their order (case
// insensitive, "~*"), the first that matches; else the longest prefix.
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchRegex  = "regex"
	// A server-snippet's locations have two more: a case-sensitive regex
	// ("~") and a prefix that, when it is the longest, stops the regexes
	// ("^~").
	MatchRegexCase     = "regexCase"
	MatchPrefixNoRegex = "prefixNoRegex"
)

// HostRoutes is the route payload of one host.
type HostRoutes struct {
	// Host is the model's hostname: an exact host, a "*." wildcard of one
	// label, or "_" (model.CatchAllHost).
	Host string `json:"host"`
	// Version is a content hash of the entry (without Version): a host
	// whose Version is unchanged needs no push.
	Version string `json:"version"`
	// AppRoot is the path that "/" redirects to (302, a relative
	// Location); "" for none.
	AppRoot string `json:"appRoot,omitempty"`
	// Paths are in the order the classic writer writes their locations;
	// the regexes are tried in this order. None in an alias.
	Paths []RoutePath `json:"paths"`
	// AliasOf, in the entry of a server-alias (Host is the alias, exact
	// or "*."), is the hostname whose entry serves it, as nginx serves an
	// alias by its server block; "" in a host's own entry.
	AliasOf string `json:"aliasOf,omitempty"`
	// ClientAuth is the host's client certificate authentication
	// (auth-tls-*), in an alias's entry too (nil: none).
	ClientAuth *RouteClientAuth `json:"clientAuth,omitempty"`
	// TLS is the host's ssl-ciphers and ssl-prefer-server-ciphers, in an
	// alias's entry too (nil: neither; the router server's own apply).
	TLS *RouteTLS `json:"tls,omitempty"`
	// Rewrites are the rewrite and return lines of the host's
	// server-snippet (nil: none), which the router runs before it matches
	// the path, as nginx's server rewrite phase; PortInRedirect is then
	// use-port-in-redirects, for their redirects.
	Rewrites       []RouteRewrite `json:"rewrites,omitempty"`
	PortInRedirect bool           `json:"portInRedirect,omitempty"`

	// encoded, in a RoutesCache's entry, is its JSON; Paths are then nil
	// (routes_encoded.go).
	encoded *encodedRoutes
}

// aliasRoutes are the entries of the server-aliases of s: each names s's
// host and carries its client certificate authentication (the TLS
// handshake of the alias's name asks for certificates as the host's, as
// nginx's one server block), and its version changes only with these.
func aliasRoutes(s *model.Server) []HostRoutes {
	if len(s.Aliases) == 0 {
		return nil // most servers: no version string made for nothing
	}
	out := make([]HostRoutes, len(s.Aliases))
	ca := routeClientAuth(s.ClientAuth)
	t := routeTLS(s)
	version := "alias of " + s.Hostname
	if ca != nil {
		version += " asking client certificates of " + ca.CAFile + " " + ca.Verify + " " + strconv.Itoa(ca.Depth) + " " + ca.ErrorPage + " " + ca.CRLFile
	}
	if t != nil {
		version += " with ciphers " + strconv.Quote(t.Ciphers)
		if t.PreferServerCiphers != nil {
			version += " preferring the server's " + strconv.FormatBool(*t.PreferServerCiphers)
		}
	}
	for i, a := range s.Aliases {
		out[i] = HostRoutes{Host: a, Version: version, Paths: []RoutePath{}, AliasOf: s.Hostname, ClientAuth: ca, TLS: t}
	}
	return out
}

// RouteTLS is a host's ssl-ciphers (Ciphers, an OpenSSL cipher list; ""
// keeps the router server's) and ssl-prefer-server-ciphers (nil keeps the
// router server's), as the classic server's ssl_ciphers and
// ssl_prefer_server_ciphers: the router server's TLS handshake of the
// host's name sets them on the connection (lua/client_auth.lua), before
// OpenSSL chooses the cipher of a TLS 1.2 (or older) handshake.
type RouteTLS struct {
	Ciphers             string `json:"ciphers,omitempty"`
	PreferServerCiphers *bool  `json:"preferServerCiphers,omitempty"`
}

// routeTLS is the payload of s's ssl-ciphers and ssl-prefer-server-ciphers
// (nil for neither).
func routeTLS(s *model.Server) *RouteTLS {
	if s.SSLCiphers == "" && s.SSLPreferServerCiphers == nil {
		return nil
	}
	t := &RouteTLS{Ciphers: s.SSLCiphers}
	if p := s.SSLPreferServerCiphers; p != nil {
		v := *p
		t.PreferServerCiphers = &v
	}
	return t
}

// RouteClientAuth is the client certificate authentication of a host
// (auth-tls-*), as the classic server's ssl_client_certificate,
// ssl_verify_client, ssl_verify_depth and error_page 495 496: the TLS
// handshake of the host's name asks for a certificate that CAFile (a
// PEM bundle, relative to nginx.conf's directory: model.FilePath, which
// the controller writes before it posts the route) verifies within Depth
// intermediates (lua/client_auth.lua), and the router answers a request
// as nginx's request checks would: 421 when the host is not the name of
// the handshake, 400 (or a 302 to ErrorPage, an http(s) URL) when
// Verify is "on" and no valid certificate was sent, or "optional" and an
// invalid one was (ErrorPage a path: the router serves that path of the
// host instead, as nginx's error_page internal redirect). Verify "off"
// asks for nothing
// (nginxconf.LuaRoutable). The checks of each path (auth-tls-match-cn,
// the headers sent upstream) are its RouteSettings.
type RouteClientAuth struct {
	CAFile string `json:"caFile"`
	// CRLFile is the CA's revocation list (ca.crl, a PEM file beside
	// CAFile; "" for none): the handshake checks the client's chain
	// against it as nginx's ssl_crl.
	CRLFile   string `json:"crlFile,omitempty"`
	Verify    string `json:"verify"`
	Depth     int    `json:"depth"`
	ErrorPage string `json:"errorPage,omitempty"`
}

// routeClientAuth is the payload of ca (nil for nil).
func routeClientAuth(ca *model.ClientAuth) *RouteClientAuth {
	if ca == nil {
		return nil
	}
	out := &RouteClientAuth{CAFile: model.FilePath(ca.CAFile), Verify: ca.Verify, Depth: ca.Depth, ErrorPage: ca.ErrorPage}
	if ca.CRLFile != "" {
		out.CRLFile = model.FilePath(ca.CRLFile)
	}
	return out
}

// RouteMatcher is one nginx location of a path: Kind is MatchExact,
// MatchPrefix or MatchRegex (Value is then the regex, "^" included).
type RouteMatcher struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// RoutePath is one path of a host (one model.Location), or the host's
// fallback "/" (Fallback) that the classic writer adds when no path is
// "/".
type RoutePath struct {
	// Path, PathType and Regex are the Ingress path as the model has it.
	Path     string `json:"path"`
	PathType string `json:"pathType"`
	Regex    bool   `json:"regex,omitempty"`
	// Matchers are the locations of the path (model.LocationMatchers).
	Matchers []RouteMatcher `json:"matchers"`
	// Backend is the backend that serves the path; "" when the default
	// backend answers (DefaultBackend).
	Backend string `json:"backend,omitempty"`
	// DefaultBackend, for a path without Backend, is the backend that
	// answers as nginx's default backend (told X-Code 404); "" answers 404.
	DefaultBackend string `json:"defaultBackend,omitempty"`
	// Fallback marks the "/" the classic writer adds to a host without one.
	Fallback bool `json:"fallback,omitempty"`
	// Namespace and Ingress name the owning Ingress; Service and
	// ServicePort the path's Service (the log and metric labels).
	Namespace   string `json:"namespace,omitempty"`
	Ingress     string `json:"ingress,omitempty"`
	Service     string `json:"service,omitempty"`
	ServicePort string `json:"servicePort,omitempty"`
	// LocationPath is $location_path (model.LocationPathValue).
	LocationPath string `json:"locationPath"`
	// AutoRedirect is true when nginx answers a request for the path
	// without its trailing "/" with a 301 to it (a proxying prefix
	// location whose name ends in "/" and no exact location of that
	// request).
	AutoRedirect bool `json:"autoRedirect,omitempty"`
	// AccessLogOff leaves the request out of the access log
	// (enable-access-log "false"; the catch-all's fallback without
	// enable-access-log-for-default-backend).
	AccessLogOff bool          `json:"accessLogOff,omitempty"`
	Settings     RouteSettings `json:"settings"`
}

// RouteSettings are the settings the Lua router applies, resolved.
type RouteSettings struct {
	// HTTPSRedirect redirects plain HTTP to HTTPS with this code (0: no).
	HTTPSRedirect int `json:"httpsRedirect,omitempty"`
	// PreserveTrailingSlash keeps the URI's trailing "/" in the HTTPS
	// redirect.
	PreserveTrailingSlash bool `json:"preserveTrailingSlash,omitempty"`
	// PortInRedirect is use-port-in-redirects, resolved: the redirects the
	// router makes absolute name the client's port (but 80 for http, 443
	// for https).
	PortInRedirect bool `json:"portInRedirect,omitempty"`
	// Denied answers 503 (a setting could not be honoured).
	Denied bool `json:"denied,omitempty"`
	// Status is answered with no body by the route itself (0: none): 200
	// for the catch-all's health check location (healthzPath).
	Status int `json:"status,omitempty"`
	// Return is a server-snippet location's "return" (nil: none).
	Return *RouteReturn `json:"return,omitempty"`
	// Rewrites are the rewrite and return lines of the route's
	// configuration-snippet, in order (nil: none), which the router runs
	// where the classic location has them: after the route's redirects
	// and CORS preflight, before rewrite-target.
	Rewrites []RouteRewrite `json:"rewrites,omitempty"`
	// Redirect answers every request with a redirect.
	Redirect *RouteRedirect `json:"redirect,omitempty"`
	// RewriteTarget replaces the URI sent upstream; $1..$9 are the
	// captures of "(?i)^" + Path.
	RewriteTarget string `json:"rewriteTarget,omitempty"`
	// RewriteLog is enable-rewrite-log: the router writes the notices of
	// nginx's rewrite log for RewriteTarget and Rewrites ("… matches …",
	// "rewritten data: …").
	RewriteLog bool `json:"rewriteLog,omitempty"`
	// UpstreamVhost is the Host header sent upstream ("": the client's).
	UpstreamVhost string `json:"upstreamVhost,omitempty"`
	// BackendProtocol is "HTTPS" for a backend spoken to over TLS
	// ("": plain HTTP).
	BackendProtocol string `json:"backendProtocol,omitempty"`
	// XForwardedPrefix is the X-Forwarded-Prefix header sent upstream.
	XForwardedPrefix string `json:"xForwardedPrefix,omitempty"`
	// Timeouts are the proxy timeouts when one differs from the
	// ConfigMap's (nil: nginx.conf's).
	Timeouts *RouteTimeouts `json:"timeouts,omitempty"`
	// Allow, Deny and DenyAll are the source ranges (CIDR): a client in
	// Deny is refused (403); with Allow, only a client in it is served;
	// DenyAll refuses every client.
	Allow   []string `json:"allow,omitempty"`
	Deny    []string `json:"deny,omitempty"`
	DenyAll bool     `json:"denyAll,omitempty"`
	// CORS is enable-cors (nil: off).
	CORS *RouteCORS `json:"cors,omitempty"`
	// ResponseHeaders are custom-headers: set on every answer of the
	// route, replacing the backend's (none on a denied route).
	ResponseHeaders []RouteHeader `json:"responseHeaders,omitempty"`
	// BodyLimit is the route's client_max_body_size in bytes
	// (proxy-body-size, else the ConfigMap's); 0: no limit. The router's
	// location has the largest of all routes (nginxconf).
	BodyLimit int64 `json:"bodyLimit"`
	// LimitRate and LimitRateAfter are limit-rate and limit-rate-after in
	// kilobytes (the ConfigMap's where the route has none; 0: none; none
	// on a Fallback, as the classic writer's "/"), as the router's
	// location's limit_rate and limit_rate_after variables.
	LimitRate      int `json:"limitRate"`
	LimitRateAfter int `json:"limitRateAfter"`
	// Limits are limit-rps, limit-rpm and limit-connections (nil: none).
	Limits *RouteLimits `json:"limits,omitempty"`
	// BasicAuth is auth-type basic (nil: none).
	BasicAuth *RouteBasicAuth `json:"basicAuth,omitempty"`
	// SatisfyAny is satisfy any where it matters (model.SatisfyAnyOf): a
	// client the source ranges let in is not asked to authenticate (the
	// router turns auth_basic off and makes the shape's auth subrequest
	// answer 204 at once), and one they refuse may still authenticate
	// (401 when it does not, as nginx's access phase answers).
	SatisfyAny bool `json:"satisfyAny,omitempty"`
	// ErrorPages is custom-http-errors (nil: none).
	ErrorPages *RouteErrorPages `json:"errorPages,omitempty"`
	// Shape is the named location of the router's server that serves the
	// route ("": the router's own location): the one of its
	// model.LocationShape, with what nginx cannot switch per request (the
	// error_page lines of custom-http-errors, the proxy buffering, buffers,
	// retries …), which nginxconf writes once per distinct shape. The
	// router enters it (ngx.exec) as soon as the route is matched and runs
	// again there from the start.
	Shape string `json:"shape,omitempty"`
	// StreamBody is true when the route's location sends the request body
	// on as it arrives (request buffering off): nginx checks a chunked
	// body against its shape's client_max_body_size while reading it, and
	// the router does not read the body first.
	StreamBody bool `json:"streamBody,omitempty"`
	// ServerName is true when the route's Shape reads the host entry the
	// router chose as $kubectl_ingress_server_name (a FastCGI backend's
	// SERVER_NAME, where the router's server says "_"): the router sets it.
	ServerName bool `json:"serverName,omitempty"`
	// AuthScope starts the key of the auth service's answers cached for
	// the route (auth-cache-key): its host, path type and path, so that an
	// answer cached for one route never lets a request in on another of
	// the same shape ("" without a cache).
	AuthScope string `json:"authScope,omitempty"`
	// MatchCN is auth-tls-match-cn: the subject DN of the client
	// certificate must match this regex (nginx's "!~": PCRE, case
	// sensitive), else 403 "client certificate unauthorized"; checked
	// after a denied route and before a redirect, as the classic
	// location's "if".
	MatchCN string `json:"matchCN,omitempty"`
	// HideHeaders are the response headers of the backend that the
	// host's server-snippet hides (proxy_hide_header): the router removes
	// them from the route's answers (nil: none).
	HideHeaders []string `json:"hideHeaders,omitempty"`
	// ClientCertHeaders sends the result of the client certificate
	// verification upstream (ssl-client-verify, ssl-client-subject-dn,
	// ssl-client-issuer-dn) and PassClientCert the certificate
	// (ssl-client-cert), as the classic location's lines, which replace the
	// client's headers of those names (an empty value sends none).
	ClientCertHeaders bool `json:"clientCertHeaders,omitempty"`
	PassClientCert    bool `json:"passClientCert,omitempty"`
}

// RouteReturn is nginx's "return Code [Text]" of a server-snippet
// location, without variables: a redirect to Text (made absolute as
// nginx's) for 301, 302, 303, 307 and 308; Text as the body for another
// code; nginx's own answer of Code without Text (444 closes the
// connection).
type RouteReturn struct {
	Code int    `json:"code"`
	Text string `json:"text,omitempty"`
}

// RouteRewrite is one rewrite or return line of a configuration-snippet:
// Return, or nginx's "rewrite Regex Replacement [Flag]". Regex is PCRE,
// matched against the URI; Replacement and Return's Text may read $1..$9
// (a rewrite's captures) and the request's variables, those whose value
// depends on the route already resolved (rewriteVars).
type RouteRewrite struct {
	Regex       string       `json:"regex,omitempty"`
	Replacement string       `json:"replacement,omitempty"`
	Flag        string       `json:"flag,omitempty"`
	Return      *RouteReturn `json:"return,omitempty"`
}

// RouteErrorPages is custom-http-errors: the route's Shape has the
// error_page lines that send each code to the default backend Backend
// ("" for the built-in one, which answers 404), as the classic
// location's error_page lines.
type RouteErrorPages struct {
	Backend string `json:"backend"`
}

// RouteBasicAuth is auth-type basic as the classic location's auth_basic
// and auth_basic_user_file: the router sets the variables that the
// router location's two directives read, and nginx checks the
// credentials (access phase); the backend never gets the Authorization
// header. UserFile is the htpasswd file, relative to nginx.conf's
// directory (model.FilePath), which the controller writes before it
// posts the route.
type RouteBasicAuth struct {
	Realm    string `json:"realm"`
	UserFile string `json:"userFile"`
}

// RouteLimits are the per client address limits of a route, as the
// classic writer's limit_req and limit_conn lines (nginx's preaccess
// phase): a leaky bucket of RPS requests a second with a burst of
// RPSBurst and nodelay, another of RPM a minute (RPMBurst), and at most
// Connections requests in progress. Zone names the Ingress: its paths
// share the counters, as the classic zones of one Ingress. A client in
// Exempt (CIDR) is not counted. A refused request is answered ReqStatus
// (a rate) or ConnStatus (connections): limit-req-status-code and
// limit-conn-status-code.
type RouteLimits struct {
	Zone        string   `json:"zone"`
	RPS         int      `json:"rps,omitempty"`
	RPSBurst    int      `json:"rpsBurst,omitempty"`
	RPM         int      `json:"rpm,omitempty"`
	RPMBurst    int      `json:"rpmBurst,omitempty"`
	Connections int      `json:"connections,omitempty"`
	Exempt      []string `json:"exempt,omitempty"`
	ReqStatus   int      `json:"reqStatus"`
	ConnStatus  int      `json:"connStatus"`
}

// routeLimits resolves the limits of a location (nil: none).
func routeLimits(g *model.Global, l *model.Location) *RouteLimits {
	lim := &l.Settings.Limits
	if lim.RPS <= 0 && lim.RPM <= 0 && lim.Connections <= 0 {
		return nil
	}
	mult := max(lim.BurstMultiplier, 1)
	out := &RouteLimits{
		Zone:        l.Ingress.Namespace + "/" + l.Ingress.Name,
		Connections: max(lim.Connections, 0),
		Exempt:      append([]string(nil), lim.Exempt...),
		ReqStatus:   g.LimitReqStatusCode,
		ConnStatus:  g.LimitConnStatusCode,
	}
	if lim.RPS > 0 {
		out.RPS, out.RPSBurst = lim.RPS, lim.RPS*mult
	}
	if lim.RPM > 0 {
		out.RPM, out.RPMBurst = lim.RPM, lim.RPM*mult
	}
	return out
}

// RouteHeader is a response header; with Vars its value holds nginx
// variables ($name, ${name}) to expand, else a "$" is literal.
type RouteHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Vars  bool   `json:"vars,omitempty"`
}

// RouteCORS is enable-cors as the classic writer answers it (writeCORS):
// the headers on every answer of an allowed origin (any origin, "*", when
// AllowOrigins is empty), a preflight (OPTIONS) of one answered 204.
type RouteCORS struct {
	// AllowOrigins are the allowed origins, matched case-insensitively,
	// "*." standing for one DNS label; empty for any.
	AllowOrigins     []string `json:"allowOrigins,omitempty"`
	AllowMethods     string   `json:"allowMethods,omitempty"`
	AllowHeaders     string   `json:"allowHeaders,omitempty"`
	ExposeHeaders    string   `json:"exposeHeaders,omitempty"`
	AllowCredentials bool     `json:"allowCredentials,omitempty"`
	MaxAge           int      `json:"maxAge"`
}

// RouteRedirect is a permanent or temporal redirect.
type RouteRedirect struct {
	URL  string `json:"url"`
	Code int    `json:"code"`
}

// RouteTimeouts are proxy timeouts in seconds, each resolved.
type RouteTimeouts struct {
	Connect int `json:"connect"`
	Send    int `json:"send"`
	Read    int `json:"read"`
}

// RoutesFromModel returns the route payloads of the hosts of c named in
// hosts (model hostnames; unknown ones are skipped) and of their
// server-aliases, sorted by host.
func RoutesFromModel(c *model.Config, hosts []string) []HostRoutes {
	want := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		want[h] = true
	}
	out := make([]HostRoutes, 0, len(hosts))
	for i := range c.Servers {
		s := &c.Servers[i]
		if want[s.Hostname] {
			out = append(out, HostRoutesOf(c, s))
			out = append(out, aliasRoutes(s)...)
			want[s.Hostname] = false
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// HostRoutesOf returns the route payload of server s of c, Version set.
// It reads c.Global, c.DefaultBackend and s's Hostname, AppRoot, TLS,
// ClientAuth, SSLCiphers, SSLPreferServerCiphers, Snippet and Locations,
// nothing else: RoutesCache reuses a payload while these stay.
func HostRoutesOf(c *model.Config, s *model.Server) HostRoutes {
	h, _ := hostRoutesOf(c, s)
	return h
}

// hostRoutesOf is HostRoutesOf, with the shape of the payload's JSON that
// sizes its routes_data entry, and that JSON (routesVersion's).
func hostRoutesOf(c *model.Config, s *model.Server) (HostRoutes, encodedShape) {
	h := HostRoutes{Host: s.Hostname, AppRoot: s.AppRoot, Paths: []RoutePath{}, ClientAuth: routeClientAuth(s.ClientAuth), TLS: routeTLS(s)}
	exact := map[string]bool{}
	hasRoot := false
	for i := range s.Locations {
		l := &s.Locations[i]
		if l.PathType == model.PathExact {
			exact[l.Path] = true
		} else if l.Path == "/" {
			hasRoot = true
		}
	}
	for _, i := range model.LocationOrder(s.Locations) {
		p := routePath(c, s, &s.Locations[i], exact)
		if p.Settings.AuthScope != "" {
			p.Settings.AuthScope = s.Hostname + " " + p.Settings.AuthScope
		}
		h.Paths = append(h.Paths, p)
	}
	if !hasRoot {
		h.Paths = append(h.Paths, fallbackPath(c, s))
	}
	if model.ServesHealthz(s) {
		h.Paths = append(h.Paths, healthzPath())
	}
	h.Paths = append(h.Paths, snippetPaths(c, s)...)
	if sn := s.Snippet; sn != nil && len(sn.RewritePhase) > 0 {
		h.Rewrites = snippetRewrites(sn.RewritePhase, map[string]string{"server_name": model.ServerName(s.Hostname), "proxy_upstream_name": "-"})
		h.PortInRedirect = c.Global.UsePortInRedirects
	}
	markAutoRedirects(h.Paths)
	var shape encodedShape
	h.Version, shape = routesVersion(h)
	return h, shape
}

func matchers(l *model.Location, exact map[string]bool) []RouteMatcher {
	ms := model.LocationMatchers(l, exact)
	out := make([]RouteMatcher, 0, len(ms))
	for _, m := range ms {
		kind := MatchPrefix
		switch m.Modifier {
		case "=":
			kind = MatchExact
		case "~*":
			kind = MatchRegex
		}
		out = append(out, RouteMatcher{Kind: kind, Value: m.Path})
	}
	return out
}

func routePath(c *model.Config, srv *model.Server, l *model.Location, exact map[string]bool) RoutePath {
	g := &c.Global
	st := l.Settings
	p := RoutePath{
		Path:         l.Path,
		PathType:     string(l.PathType),
		Regex:        l.Regex,
		Matchers:     matchers(l, exact),
		Backend:      l.Backend,
		Namespace:    l.Ingress.Namespace,
		Ingress:      l.Ingress.Name,
		Service:      l.Service,
		ServicePort:  l.ServicePort,
		LocationPath: model.LocationPathValue(l.Path),
		AccessLogOff: st.Logs.AccessOff,
	}
	if l.Backend == "" {
		p.DefaultBackend = defaultBackend(c)
	}
	rs := &p.Settings
	if l.HTTPSRedirect {
		rs.HTTPSRedirect = httpRedirectCode(g)
		rs.PreserveTrailingSlash = g.PreserveTrailingSlash
		if st.PreserveTrailingSlash != nil {
			rs.PreserveTrailingSlash = *st.PreserveTrailingSlash
		}
	}
	rs.PortInRedirect = c.PortInRedirect(st)
	rs.Denied = st.Denied != ""
	if st.Redirect != nil {
		rs.Redirect = &RouteRedirect{URL: st.Redirect.URL, Code: st.Redirect.Code}
	}
	if l.Regex {
		rs.RewriteTarget = st.RewriteTarget
	}
	if rs.RewriteTarget != "" || (st.Snippet != nil && len(st.Snippet.RewritePhase) > 0) {
		rs.RewriteLog = st.Logs.Rewrite
	}
	rs.UpstreamVhost = st.UpstreamVhost
	if strings.EqualFold(st.BackendProtocol, "HTTPS") {
		rs.BackendProtocol = "HTTPS"
	}
	rs.XForwardedPrefix = st.XForwardedPrefix
	t := RouteTimeouts{Connect: g.ProxyConnectTimeout, Send: g.ProxySendTimeout, Read: g.ProxyReadTimeout}
	if st.Proxy.ConnectTimeout > 0 {
		t.Connect = st.Proxy.ConnectTimeout
	}
	if st.Proxy.SendTimeout > 0 {
		t.Send = st.Proxy.SendTimeout
	}
	if st.Proxy.ReadTimeout > 0 {
		t.Read = st.Proxy.ReadTimeout
	}
	if t != (RouteTimeouts{Connect: g.ProxyConnectTimeout, Send: g.ProxySendTimeout, Read: g.ProxyReadTimeout}) {
		rs.Timeouts = &t
	}
	rs.BodyLimit = BodyLimit(g.ProxyBodySize, st.Proxy.BodySize)
	rs.LimitRate, rs.LimitRateAfter = g.LimitRate, g.LimitRateAfter
	if st.Limits.Rate != nil {
		rs.LimitRate = *st.Limits.Rate
	}
	if st.Limits.RateAfter != nil {
		rs.LimitRateAfter = *st.Limits.RateAfter
	}
	rs.Limits = routeLimits(g, l)
	shape := model.ShapeOf(c, srv, l)
	rs.Shape = shape.Location()
	rs.StreamBody = shape.StreamsBody(g)
	rs.ServerName = shape.Protocol == "FCGI"
	if shape.Auth != nil && shape.Auth.CacheKey != "" {
		// HostRoutesOf puts the host before it
		rs.AuthScope = string(l.PathType) + " " + l.Path
	}
	if len(shape.Errors.Codes) > 0 {
		be := st.ErrorPages.Backend
		if be == model.DefaultBackendName {
			be = ""
		}
		rs.ErrorPages = &RouteErrorPages{Backend: be}
	}
	if ba := st.BasicAuth; ba != nil && ba.File != "" {
		rs.BasicAuth = &RouteBasicAuth{Realm: ba.Realm, UserFile: model.FilePath(ba.File)}
	}
	if st.Denied == "" {
		for _, h := range st.CustomHeaders {
			if _, always := st.Snippet.NamesResponseHeader(h.Name); always {
				continue // the snippet's line replaces it (shape location)
			}
			rs.ResponseHeaders = append(rs.ResponseHeaders, RouteHeader{Name: h.Name, Value: h.Value, Vars: h.Vars})
		}
	}
	if c := st.CORS; c != nil {
		rs.CORS = &RouteCORS{AllowMethods: c.AllowMethods, AllowHeaders: c.AllowHeaders, ExposeHeaders: c.ExposeHeaders,
			AllowCredentials: c.AllowCredentials, MaxAge: c.MaxAge}
		if len(c.AllowOrigins) > 0 && c.AllowOrigins[0] != "*" {
			rs.CORS.AllowOrigins = append([]string(nil), c.AllowOrigins...)
		}
	}
	rs.SatisfyAny = c.SatisfyAnyOf(l)
	rs.HideHeaders = serverHiddenHeaders(srv)
	if sn := st.Snippet; sn != nil && len(sn.RewritePhase) > 0 {
		rs.Rewrites = snippetRewrites(sn.RewritePhase, rewriteVars(srv, l))
	}
	if ca := st.ClientAuth; ca != nil {
		rs.MatchCN = ca.MatchCN
		rs.ClientCertHeaders = ca.Verify != "off"
		rs.PassClientCert = rs.ClientCertHeaders && ca.PassCertificate
	}
	if st.Access.DenyAll {
		rs.DenyAll = true
	} else {
		rs.Allow = append([]string(nil), st.Access.Allow...)
		rs.Deny = append([]string(nil), st.Access.Deny...)
	}
	return p
}

// snippetMatchKinds are the matcher kinds of a server-snippet location's
// modifiers.
var snippetMatchKinds = map[string]string{"=": MatchExact, "": MatchPrefix, "^~": MatchPrefixNoRegex, "~": MatchRegexCase, "~*": MatchRegex}

// snippetPaths are the locations of s's server-snippet, which the Lua
// router serves only when they answer (model.Snippet.ServerLuaBlocker), in
// their order after the host's other paths, as the classic writer writes
// them: a return, or deny all's 403 (as a return). They set no log labels and no
// $location_path, as the classic snippet location sets none.
func snippetPaths(c *model.Config, s *model.Server) []RoutePath {
	sn := s.Snippet
	if sn == nil {
		return nil
	}
	g := &c.Global
	out := make([]RoutePath, 0, len(sn.Locations))
	for i := range sn.Locations {
		l := &sn.Locations[i]
		kind := snippetMatchKinds[l.Modifier]
		p := RoutePath{
			Path:     l.Path,
			PathType: string(model.PathImplementationSpecific),
			Regex:    kind == MatchRegex || kind == MatchRegexCase,
			Matchers: []RouteMatcher{{Kind: kind, Value: l.Path}},
		}
		p.Settings.BodyLimit = BodyLimit(s.BodySize(g), "")
		p.Settings.PortInRedirect = g.UsePortInRedirects
		if s.AppRoot != "" {
			// the classic server of an app-root host has absolute_redirect
			// off: its relative redirects stay relative
			p.Settings.Shape = model.RelativeRedirectsShape.Location()
		}
		if ret := l.Return(); ret != nil {
			p.Settings.Return = &RouteReturn{Code: ret.Code, Text: ret.Text}
		} else {
			// deny all: nginx's access phase answers 403, and nothing
			// else of the location runs before it
			p.Settings.Return = &RouteReturn{Code: 403}
		}
		out = append(out, p)
	}
	return out
}

// healthzPath is the catch-all's model.HealthzPath, a prefix location that
// answers 200 itself, unlogged (nginxconf's writeHealthzLocation).
func healthzPath() RoutePath {
	return RoutePath{
		Path:         model.HealthzPath,
		PathType:     string(model.PathImplementationSpecific),
		Matchers:     []RouteMatcher{{Kind: MatchPrefix, Value: model.HealthzPath}},
		LocationPath: model.HealthzPath,
		AccessLogOff: true,
		Settings:     RouteSettings{Status: 200},
	}
}

// fallbackPath is the "/" the classic writer gives a host without one:
// the default backend, after the HTTPS redirect of a TLS host.
func fallbackPath(c *model.Config, s *model.Server) RoutePath {
	g := &c.Global
	p := RoutePath{
		Path:           "/",
		PathType:       string(model.PathPrefix),
		Matchers:       []RouteMatcher{{Kind: MatchPrefix, Value: "/"}},
		DefaultBackend: defaultBackend(c),
		Fallback:       true,
		LocationPath:   "/",
		AccessLogOff:   s.Hostname == model.CatchAllHost && !g.Logging.DefaultBackend,
	}
	p.Settings.BodyLimit = BodyLimit(g.ProxyBodySize, "")
	p.Settings.PortInRedirect = g.UsePortInRedirects
	p.Settings.HideHeaders = serverHiddenHeaders(s)
	if s.AppRoot != "" {
		p.Settings.Shape = model.RelativeRedirectsShape.Location()
	}
	if (s.TLS && g.SSLRedirect) || (g.Redirects.ForceSSLRedirect && s.Hostname != model.CatchAllHost) {
		p.Settings.HTTPSRedirect = httpRedirectCode(g)
		p.Settings.PreserveTrailingSlash = g.PreserveTrailingSlash
	}
	return p
}

// markAutoRedirects sets AutoRedirect on the proxying prefix paths whose
// name ends in "/" (other than "/"), unless an exact or prefix matcher is
// named like the request without it: nginx answers that request with a 301
// to the name, except when its location tree finds a location of the
// request's own name first (an exact one, or a prefix one, which ends the
// walk before the "/" child).
func markAutoRedirects(paths []RoutePath) {
	exact := map[string]bool{}
	for _, p := range paths {
		for _, m := range p.Matchers {
			if m.Kind == MatchExact || m.Kind == MatchPrefix || m.Kind == MatchPrefixNoRegex {
				exact[m.Value] = true
			}
		}
	}
	for i := range paths {
		p := &paths[i]
		proxies := !p.Settings.Denied && p.Settings.Redirect == nil && (p.Backend != "" || p.DefaultBackend != "")
		if !proxies {
			continue
		}
		for _, m := range p.Matchers {
			if m.Kind == MatchPrefix && len(m.Value) > 1 && strings.HasSuffix(m.Value, "/") && !exact[strings.TrimSuffix(m.Value, "/")] {
				p.AutoRedirect = true
			}
		}
	}
}

func defaultBackend(c *model.Config) string {
	if c.DefaultBackend == model.DefaultBackendName {
		return ""
	}
	return c.DefaultBackend
}

func httpRedirectCode(g *model.Global) int {
	if g.Redirects.HTTPRedirectCode != 0 {
		return g.Redirects.HTTPRedirectCode
	}
	return 308
}

// routesVersion is the hex SHA-256 (first 16 bytes) of h's JSON without
// its Version (`"version":""`), and the shape of h's JSON with that
// version, which it keeps (encodedShape.json): the JSON is encoded once,
// with as many digits as a version has in its place, hashed around them,
// and the version written over them.
func routesVersion(h HostRoutes) (string, encodedShape) {
	h.Version = versionPlaceholder
	data, err := json.Marshal(hostRoutesJSON(h))
	if err != nil {
		// never: the payload holds strings, numbers and bools only
		return "", encodedShape{err: fmt.Errorf("encoding the routes of %s: %w", h.Host, err)}
	}
	// the first "version" is the entry's own: the host before it is a
	// JSON string, whose quotes are escaped
	at := bytes.Index(data, placeholderJSON)
	if at < 0 {
		return "", encodedShape{err: fmt.Errorf("encoding the routes of %s: no version in the JSON", h.Host)}
	}
	digits := at + len(placeholderJSON) - len(versionPlaceholder) - 1
	sum := sha256.New()
	sum.Write(data[:digits])
	sum.Write(data[digits+len(versionPlaceholder):])
	version := hex.EncodeToString(sum.Sum(nil)[:16])
	copy(data[digits:], version)
	shape := shapeOf(data)
	shape.json = data
	return version, shape
}

// versionPlaceholder holds a version's place while its JSON is hashed.
var (
	versionPlaceholder = strings.Repeat("0", 32)
	placeholderJSON    = []byte(`"version":"` + versionPlaceholder + `"`)
)

// RoutesUpdate is the body of POST /configuration/routes: the hosts to
// add or replace, and the hosts to delete.
type RoutesUpdate struct {
	Hosts  []HostRoutes `json:"hosts"`
	Delete []string     `json:"delete"`
}

// RoutesChanges returns the update that turns the routes running (nil for
// none) into desired: the hosts that are new or whose Version moved, and
// the hosts of running that desired no longer has, sorted.
func RoutesChanges(running, desired []HostRoutes) RoutesUpdate {
	byHost := func(a, b HostRoutes) int { return strings.Compare(a.Host, b.Host) }
	if slices.IsSortedFunc(running, byHost) && slices.IsSortedFunc(desired, byHost) {
		return sortedRoutesChanges(running, desired)
	}
	return mappedRoutesChanges(running, desired)
}

// mappedRoutesChanges is RoutesChanges of lists in any order.
func mappedRoutesChanges(running, desired []HostRoutes) RoutesUpdate {
	old := make(map[string]string, len(running))
	for _, h := range running {
		old[h.Host] = h.Version
	}
	u := RoutesUpdate{Hosts: []HostRoutes{}, Delete: []string{}}
	seen := make(map[string]bool, len(desired))
	for _, h := range desired {
		seen[h.Host] = true
		if v, ok := old[h.Host]; !ok || v != h.Version {
			u.Hosts = append(u.Hosts, h)
		}
	}
	for _, h := range running {
		if !seen[h.Host] {
			u.Delete = append(u.Delete, h.Host)
		}
	}
	sort.Strings(u.Delete)
	return u
}

// sortedRoutesChanges is RoutesChanges of two lists sorted by host (as
// RoutesFromModel makes them), walked in step: no maps of 100,000 hosts
// per sync.
func sortedRoutesChanges(running, desired []HostRoutes) RoutesUpdate {
	u := RoutesUpdate{Hosts: []HostRoutes{}, Delete: []string{}}
	if len(running) == 0 {
		// every host (a start, a preload): one array, not a doubling one
		// (at 100,000 hosts 14 MB, where the appends allocated 30 MB)
		u.Hosts = make([]HostRoutes, 0, len(desired))
	}
	i := 0
	for _, h := range desired {
		for i < len(running) && running[i].Host < h.Host {
			u.Delete = append(u.Delete, running[i].Host)
			i++
		}
		if i < len(running) && running[i].Host == h.Host {
			if running[i].Version != h.Version {
				u.Hosts = append(u.Hosts, h)
			}
			i++
			continue
		}
		u.Hosts = append(u.Hosts, h)
	}
	for ; i < len(running); i++ {
		u.Delete = append(u.Delete, running[i].Host)
	}
	return u
}

// BodyLimit is the client_max_body_size in bytes of a location whose
// proxy-body-size is own ("" inherits global, the ConfigMap's): an nginx
// size, render validated ("1m", "512k", "0"); 0 is no limit.
func BodyLimit(global, own string) int64 {
	v := own
	if v == "" {
		v = global
	}
	return parseSize(v)
}
