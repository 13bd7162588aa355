package model

import "strings"

// ExternalAuth is external authentication as ingress-nginx does it with
// nginx's auth_request: every request of a location is first sent (without
// its body) to URL; a 2xx answer lets it through, with ResponseHeaders of
// that answer copied to the request sent to the backend; 401 answers 401,
// or redirects to SigninURL when one is set; 403 answers 403; anything
// else answers 500. A location's own settings come from the auth-*
// annotations; Global.GlobalAuth from the global-auth-* ConfigMap keys.
//
// URL, SigninURL, RequestRedirect, CacheKey and the values of
// ProxySetHeaders may hold nginx variables, only those of the allowlists
// in pkg/annotations (authexternal.go); everything else is literal text
// that was validated.
type ExternalAuth struct {
	// URL is the absolute http or https URL of the auth service ("" for
	// none).
	URL string
	// Host is the host of URL without its port: the Host header the auth
	// service gets (it may be a variable such as $host).
	Host string
	// Method is the method of the auth request (auth-method); "" keeps
	// nginx's, GET.
	Method string
	// SigninURL is where a 401 of the auth service redirects (auth-signin);
	// "" answers the 401.
	SigninURL string
	// SigninRedirectParam names the query parameter of SigninURL that gets
	// the URL of the original request (auth-signin-redirect-param); ""
	// means "rd". It is added only when SigninURL does not set it already.
	SigninRedirectParam string
	// ResponseHeaders are the headers of the auth service's answer sent to
	// the backend (auth-response-headers), in the order given.
	ResponseHeaders []string
	// RequestRedirect is the X-Auth-Request-Redirect header sent to the
	// auth service (auth-request-redirect); "" sends the request URI.
	RequestRedirect string
	// CacheKey turns caching of the auth service's answers on
	// (auth-cache-key); CacheDuration are the proxy_cache_valid entries
	// ("200 202 401 5m" by default), each codes then times.
	CacheKey      string
	CacheDuration []string
	// AlwaysSetCookie sends the auth service's Set-Cookie with every
	// answer, not only successful ones (auth-always-set-cookie).
	AlwaysSetCookie bool
	// ProxySetHeadersConfigMap is the auth-proxy-set-headers reference
	// ("namespace/name", the Ingress's namespace); render resolves it into
	// ProxySetHeaders, the headers sent to the auth service, sorted by name.
	ProxySetHeadersConfigMap string
	ProxySetHeaders          []Header
	// Keepalive (auth-keepalive), KeepaliveRequests, KeepaliveTimeout
	// (seconds) and KeepaliveShareVars are validated and kept; like
	// ingress-nginx with HTTP/2 on (use-http2, the default) the auth
	// request does not use them (with use-http2 "false" render says that
	// it does not either).
	Keepalive          int
	KeepaliveRequests  int
	KeepaliveTimeout   int
	KeepaliveShareVars bool
}

// DefaultAuthCacheDuration is ingress-nginx's auth-cache-duration default.
const DefaultAuthCacheDuration = "200 202 401 5m"

// DefaultNoAuthLocations is ingress-nginx's no-auth-locations default.
const DefaultNoAuthLocations = "/.well-known/acme-challenge"

// SatisfyAnyOf tells whether satisfy any lets a request into l otherwise
// than satisfy all: l has source ranges and an authentication (basic, or
// external: its own or the global one), either of which is then enough.
// Without both there is one check, and "any" asks what "all" does; a
// location that refuses every client (deny all, an invalid range) never
// has it (nginxconf writes no satisfy line there).
func (c *Config) SatisfyAnyOf(l *Location) bool {
	st := l.Settings
	if st.Satisfy != "any" || st.Access.DenyAll {
		return false
	}
	if len(st.Access.Allow) == 0 && len(st.Access.Deny) == 0 {
		return false
	}
	return st.BasicAuth != nil || c.AuthOf(l) != nil
}

// AuthOf returns the external authentication of l in c: its own, else the
// ConfigMap's global one unless l opts out; nil when it has none, when its
// path starts with one of no-auth-locations, or when it never proxies
// (denied, redirect).
func (c *Config) AuthOf(l *Location) *ExternalAuth {
	st := l.Settings
	if st.Denied != "" || st.Redirect != nil {
		return nil
	}
	a := st.ExternalAuth
	if a == nil {
		if st.GlobalAuthOff || c.Global.GlobalAuth.URL == "" {
			return nil
		}
		a = &c.Global.GlobalAuth
	}
	for _, p := range c.Global.NoAuthLocations {
		if strings.HasPrefix(l.Path, p) {
			return nil
		}
	}
	return a
}
