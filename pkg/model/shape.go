package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LocationShape is what a location sets that nginx cannot switch per
// request from Lua, so that the Lua router (--routing=lua) serves the
// location in a named location of its own with those directives: the
// error pages (custom-http-errors: proxy_intercept_errors and error_page
// lines), the proxy tuning (buffering, buffers, the HTTP version,
// retries, cookie rewrites, the request body buffer), the external
// authentication, the configuration-snippet and a gRPC backend (grpc_pass
// and its directives). Its zero value is
// the router's own location. Locations with equal shapes share one named
// location, so nginx.conf grows with the distinct shapes, never with the
// hosts.
type LocationShape struct {
	// Errors are the error pages (Codes, Intercept; Backend and Fallback
	// are per route and not part of the shape).
	Errors ErrorPages
	// Proxy holds the tuning fields of the location that the classic
	// writer writes (each differs from the ConfigMap's), the others zero:
	// Buffering, RequestBuffering, BufferSize, BuffersNumber,
	// BusyBuffersSize, MaxTempFileSize, HTTPVersion, NextUpstream,
	// NextUpstreamTries, NextUpstreamTimeout, CookieDomain, CookiePath and
	// ClientBodyBufferSize; the location's ConnectionHeader and Redirect
	// (proxy-redirect-from and -to but "default" and "off"); and BodySize,
	// the location's proxy-body-size (else the ConfigMap's), when the body
	// is streamed (request buffering
	// off, the location's or the ConfigMap's): nginx checks a streamed body
	// against client_max_body_size as it reads it.
	Proxy ProxySettings
	// Auth is the external authentication of the location (auth-url, else
	// global-auth-url: Config.AuthOf), nil for none: an auth_request to an
	// internal location of the router's server per distinct Auth, the
	// sign-in redirect and the auth service's answer headers.
	Auth *ExternalAuth
	// Snippet is the location's configuration-snippet (nil for none) but
	// its rewrite and return lines, which the router runs (Snippet.ShapePart),
	// its directives written in the shape location as in a classic location;
	// one whose ShapeBlocker is not "" keeps its host classic instead.
	Snippet *Snippet
	// Protocol is "GRPC" or "GRPCS" for a gRPC backend (backend-protocol):
	// the location passes with grpc_pass and sets the request headers with
	// grpc_set_header; "HTTPS" for an HTTPS backend with ProxySSL; "FCGI"
	// for a FastCGI backend (fastcgi_pass); "" for
	// proxy_pass (HTTP, or HTTPS through the router's scheme variable).
	Protocol string
	// ProxySSL is the TLS client side of an HTTPS or GRPCS backend
	// (proxy-ssl-*; nil for nginx's defaults): the location's
	// proxy_ssl_* or grpc_ssl_* lines and its own upstream block, as the
	// classic location's.
	ProxySSL *ProxySSL
	// FastCGI are the FastCGI settings of a Protocol "FCGI" shape (nil for
	// none): the location's fastcgi_param lines and fastcgi_pass.
	FastCGI *FastCGI
	// ModSecurity is the location's enable-modsecurity,
	// enable-owasp-core-rules and modsecurity-transaction-id when they
	// write a line beside the ConfigMap's (nil otherwise).
	ModSecurity *LocationModSecurity
	// Mirror is the location's mirror-target (nil for none): the mirror
	// lines, and an internal location of the router's server per distinct
	// target (MirrorPath), shared by the Ingresses that mirror to it.
	Mirror *Mirror
	// Unavailable is ErrorPages.Fallback: the route's Service has no
	// endpoints and its default-backend answers, told X-Code 503,
	// X-Format and the route's Ingress, Service and port in headers, as
	// the classic location's.
	Unavailable bool
	// RelativeRedirects is true for the locations of a server with
	// app-root, whose classic server block has absolute_redirect off: a
	// Location that starts with "/" (nginx's redirects, the backend's) is
	// sent as it is, where nginx otherwise makes it absolute (scheme, host
	// and port). RelativeRedirectsShape is the shape of a route with
	// nothing else.
	RelativeRedirects bool
	// PortInRedirect is the location's use-port-in-redirects where it
	// differs from the ConfigMap's (nil otherwise, and in a server with
	// app-root, whose redirects stay relative): nginx's port_in_redirect
	// takes no variable.
	PortInRedirect *bool
}

// RelativeRedirectsShape is the shape of a route of a server with app-root
// that has no other (the default backend's "/" of a host without one).
var RelativeRedirectsShape = LocationShape{RelativeRedirects: true}

// ShapeOf returns the shape of l, a location of server srv, in c.
func ShapeOf(c *Config, srv *Server, l *Location) LocationShape {
	g := &c.Global
	s := LocationShape{Auth: c.AuthOf(l), Snippet: l.Settings.Snippet.ShapePart(), Errors: ErrorPages{Codes: l.Settings.ErrorPages.Codes, Intercept: l.Settings.ErrorPages.Intercept}}
	s.RelativeRedirects = srv.AppRoot != ""
	if p := l.Settings.UsePortInRedirects; p != nil && *p != g.UsePortInRedirects && !s.RelativeRedirects {
		s.PortInRedirect = p
	}
	if len(s.Errors.Codes) == 0 {
		s.Errors = ErrorPages{}
	}
	switch p := strings.ToUpper(l.Settings.BackendProtocol); p {
	case "GRPC", "GRPCS":
		s.Protocol = p
		if p == "GRPCS" {
			s.ProxySSL = l.Settings.ProxySSL
		}
	case "HTTPS":
		if l.Settings.ProxySSL != nil {
			s.Protocol, s.ProxySSL = p, l.Settings.ProxySSL
		}
	case "FCGI":
		s.Protocol, s.FastCGI = p, l.Settings.FastCGI
	}
	if l.Settings.Denied == "" { // a denied location answers 503 first
		s.Mirror = l.Settings.Mirror
	}
	s.Unavailable = l.Settings.ErrorPages.Fallback
	if m := l.Settings.ModSecurity; m.Writes(g.ModSecurity) {
		s.ModSecurity = m
	}
	p, out := &l.Settings.Proxy, &s.Proxy
	out.Buffering = ownPtr(p.Buffering, g.ProxyBuffering)
	out.RequestBuffering = ownPtr(p.RequestBuffering, g.ProxyRequestBuffering)
	out.BufferSize = own(p.BufferSize, g.ProxyBufferSize)
	out.BuffersNumber = own(p.BuffersNumber, g.ProxyBuffersNumber)
	out.BusyBuffersSize = own(p.BusyBuffersSize, g.ProxyBusyBuffersSize)
	out.MaxTempFileSize = own(p.MaxTempFileSize, g.ProxyMaxTempFileSize)
	out.HTTPVersion = own(p.HTTPVersion, g.ProxyHTTPVersion)
	if p.NextUpstream != nil && !slices.Equal(p.NextUpstream, g.ProxyNextUpstream) {
		out.NextUpstream = p.NextUpstream
	}
	out.NextUpstreamTries = ownPtr(p.NextUpstreamTries, g.ProxyNextUpstreamTries)
	out.NextUpstreamTimeout = ownPtr(p.NextUpstreamTimeout, g.ProxyNextUpstreamTimeout)
	out.CookieDomain = ownPtr(p.CookieDomain, g.ProxyCookieDomain)
	out.CookiePath = ownPtr(p.CookiePath, g.ProxyCookiePath)
	out.ClientBodyBufferSize = own(p.ClientBodyBufferSize, g.ClientBodyBufferSize)
	// written in the location only (neither has an http-level line): the
	// location's whole value
	out.ConnectionHeader = p.ConnectionHeader
	if r := p.Redirect; r != nil && !s.isGRPC() && s.Protocol != "FCGI" {
		// off and default too: a named location of the router proxies
		// through a variable, where nginx has no implicit default and
		// refuses "default" (nginxconf writes what it stands for)
		out.Redirect = r
	}
	if s.StreamsBody(g) {
		// the router's location has the largest limit of all routes
		out.BodySize = g.ProxyBodySize
		if p.BodySize != "" {
			out.BodySize = p.BodySize
		}
	}
	return s
}

// own is a location's value v when it is set (not zero) and differs from
// the ConfigMap's def, else zero: what the classic writer writes.
func own[T comparable](v, def T) T {
	var zero T
	if v != zero && v != def {
		return v
	}
	return zero
}

// ownPtr is own for a setting held by pointer (nil: not set).
func ownPtr[T comparable](v *T, def T) *T {
	if v != nil && *v != def {
		return v
	}
	return nil
}

// StreamsBody says whether a location of this shape sends the request
// body on as it arrives (request buffering off, its own or the
// ConfigMap's; always with grpc_pass, which has no request buffering and
// carries client streams): nginx then checks a chunked body's size while
// it reads it, and the router must not read it first.
func (s LocationShape) StreamsBody(g *Global) bool {
	if s.isGRPC() {
		return true
	}
	if s.Proxy.RequestBuffering != nil {
		return !*s.Proxy.RequestBuffering
	}
	return !g.ProxyRequestBuffering
}

// isGRPC says whether the shape passes with grpc_pass.
func (s LocationShape) isGRPC() bool { return s.Protocol == "GRPC" || s.Protocol == "GRPCS" }

// tuningKey is a canonical text of the proxy tuning ("" for none).
func (s LocationShape) tuningKey() string {
	p := &s.Proxy
	var b strings.Builder
	field := func(name string, v any) { fmt.Fprintf(&b, "%s=%v;", name, v) }
	if p.Buffering != nil {
		field("proxy-buffering", *p.Buffering)
	}
	if p.RequestBuffering != nil {
		field("proxy-request-buffering", *p.RequestBuffering)
	}
	for _, f := range []struct{ name, v string }{
		{"proxy-buffer-size", p.BufferSize}, {"proxy-busy-buffers-size", p.BusyBuffersSize},
		{"proxy-max-temp-file-size", p.MaxTempFileSize}, {"proxy-http-version", p.HTTPVersion},
		{"client-body-buffer-size", p.ClientBodyBufferSize}, {"proxy-body-size", p.BodySize},
	} {
		if f.v != "" {
			field(f.name, f.v)
		}
	}
	if p.BuffersNumber != 0 {
		field("proxy-buffers-number", p.BuffersNumber)
	}
	if p.NextUpstream != nil {
		field("proxy-next-upstream", strings.Join(p.NextUpstream, " "))
	}
	if p.NextUpstreamTries != nil {
		field("proxy-next-upstream-tries", *p.NextUpstreamTries)
	}
	if p.NextUpstreamTimeout != nil {
		field("proxy-next-upstream-timeout", *p.NextUpstreamTimeout)
	}
	if p.CookieDomain != nil {
		field("proxy-cookie-domain", rewriteText(*p.CookieDomain))
	}
	if p.CookiePath != nil {
		field("proxy-cookie-path", rewriteText(*p.CookiePath))
	}
	if p.Redirect != nil {
		field("proxy-redirect", rewriteText(*p.Redirect))
	}
	if p.ConnectionHeader != "" {
		field("connection-proxy-header", p.ConnectionHeader)
	}
	return b.String()
}

// Settings names the settings of the shape, for the reasons of diff
// ("custom-http-errors 404,503", "proxy-buffering off", …).
func (s LocationShape) Settings() []string {
	var out []string
	if len(s.Errors.Codes) > 0 {
		codes := make([]string, len(s.Errors.Codes))
		for i, c := range s.Errors.Codes {
			codes[i] = fmt.Sprint(c)
		}
		out = append(out, "custom-http-errors "+strings.Join(codes, ","))
	}
	for _, kv := range strings.Split(s.tuningKey(), ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, k+" "+v)
		}
	}
	if s.Auth != nil {
		out = append(out, "auth-url "+s.Auth.URL)
	}
	if s.Snippet != nil {
		out = append(out, "configuration-snippet ("+strings.Join(s.Snippet.DirectiveNames(), ", ")+")")
	}
	if s.Protocol != "" {
		out = append(out, "backend-protocol "+s.Protocol)
	}
	if m := s.Mirror; m != nil {
		out = append(out, "mirror-target "+m.Scheme+"://"+m.HostPort+m.URI)
	}
	if s.Unavailable {
		out = append(out, "default-backend for a Service without endpoints")
	}
	if ps := s.ProxySSL; ps != nil {
		out = append(out, "proxy-ssl-secret "+ps.Secret.Namespace+"/"+ps.Secret.Name)
	}
	if s.ModSecurity != nil {
		out = append(out, "enable-modsecurity")
	}
	if s.RelativeRedirects {
		out = append(out, "app-root (relative redirects)")
	}
	if p := s.PortInRedirect; p != nil {
		out = append(out, "use-port-in-redirects "+strconv.FormatBool(*p))
	}
	return out
}

// authKey is a canonical text of the external authentication ("" for
// none).
func (s LocationShape) authKey() string {
	if s.Auth == nil {
		return ""
	}
	return fmt.Sprintf("%#v", *s.Auth)
}

// Hash names the shape in nginx.conf: 16 hex digits of the hash of its
// error pages, tuning, authentication, snippet and protocol ("" for the
// router's own location).
func (s LocationShape) Hash() string {
	return shapeHash(s.Errors.ShapeKey(), s.tuningKey(), s.authKey(), s.Snippet.ShapeKey(), s.Protocol, s.otherKey())
}

// otherKey is a canonical text of the shape's mirror, Unavailable,
// ProxySSL, FastCGI and ModSecurity ("" for none).
func (s LocationShape) otherKey() string {
	k := s.Mirror.key()
	if s.Unavailable {
		k += "\x00unavailable"
	}
	if s.ProxySSL != nil {
		k += fmt.Sprintf("\x00proxy-ssl\x00%+v", *s.ProxySSL)
	}
	if s.FastCGI != nil {
		k += fmt.Sprintf("\x00fastcgi\x00%+v", *s.FastCGI)
	}
	if s.ModSecurity != nil {
		k += fmt.Sprintf("\x00modsecurity\x00%+v", *s.ModSecurity)
	}
	if s.RelativeRedirects {
		k += "\x00relative-redirects"
	}
	if p := s.PortInRedirect; p != nil {
		k += "\x00port-in-redirect\x00" + strconv.FormatBool(*p)
	}
	return k
}

func shapeHash(errors, tuning, auth, snippet, protocol, other string) string {
	if errors == "" && tuning == "" && auth == "" && snippet == "" && protocol == "" && other == "" {
		return ""
	}
	text := errors + "\x00" + tuning + "\x00" + auth
	// the names of the shapes without a snippet, a protocol, a mirror or
	// Unavailable are unchanged
	if snippet != "" || protocol != "" || other != "" {
		text += "\x00" + snippet
	}
	if protocol != "" {
		text += "\x00" + protocol
	}
	if other != "" {
		text += "\x00mirror\x00" + other
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// Location is the named location of the router's server that serves the
// routes of this shape, "" for the router's own location: for error
// pages alone their key ("@kubectl_ingress_errors_i_404_503"), else the
// shape's hash ("@kubectl_ingress_shape_1a2b3c4d5e6f7a8b"). Each key is
// computed once: the route payload asks it of every location at every
// sync.
func (s LocationShape) Location() string {
	errors, tuning, auth, snippet, other := s.Errors.ShapeKey(), s.tuningKey(), s.authKey(), s.Snippet.ShapeKey(), s.otherKey()
	if tuning == "" && auth == "" && snippet == "" && s.Protocol == "" && other == "" {
		if errors != "" {
			return "@kubectl_ingress_errors_" + errors
		}
		return ""
	}
	return "@kubectl_ingress_shape_" + shapeHash(errors, tuning, auth, snippet, s.Protocol, other)
}

// AuthPath is the URI of the internal location that asks the auth
// service for the routes of this shape; AuthSignin the named location of
// its sign-in redirect. Both are in the router's server.
func (s LocationShape) AuthPath() string { return "/_kubectl_ingress_auth_" + s.Hash() }

func (s LocationShape) AuthSignin() string { return "@kubectl_ingress_signin_" + s.Hash() }

// key is a canonical text of the mirror's target, Host and body setting
// ("" for none): equal mirrors of different Ingresses share a location.
func (m *Mirror) key() string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%t", m.Scheme, m.HostPort, m.URI, m.Host, m.RequestBody)
}

// MirrorPath is the URI of the internal location of the router's server
// that sends the copies of the routes of this shape to their mirror-target
// ("" without one): 16 hex digits of the hash of the mirror's key.
func (s LocationShape) MirrorPath() string {
	k := s.Mirror.key()
	if k == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(k))
	return "/_kubectl_ingress_mirror_" + hex.EncodeToString(sum[:8])
}

// rewriteText spells a proxy_cookie_* rewrite as nginx's arguments.
func rewriteText(r TextRewrite) string {
	switch {
	case r.Off:
		return "off"
	case r.Default:
		return "default"
	}
	return r.From + " " + r.To
}
