package nginxconf

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// External authentication, as ingress-nginx's nginx.tmpl does it with the
// auth_request module: a location that uses it asks an internal location
// of its server, "= /_external-auth-<id>", which sends the request's
// headers (not its body) to the auth service. nginx lets the request on
// after a 2xx, answers 401 or 403 as the auth service did, and 500 for
// anything else. A 401 goes to the named location "@kubectl_ingress_signin_<id>"
// when a sign-in URL is set, which redirects (302) there with the URL of
// the original request in the redirect parameter.
//
// Every user value here (URLs, header names and values, the cache key)
// was validated in pkg/annotations: no quote, ";", brace, space or control
// character, and nginx variables only from its allowlists; it reaches
// nginx.conf through q. $escaped_request_uri, which nginx does not have,
// is computed by Lua from $request_uri in the location that reads it.

// authID names the internal locations of l: a hash of its path and type,
// unique in its server.
func authID(l *model.Location) string {
	sum := sha256.Sum256([]byte(string(l.PathType) + "\x00" + l.Path))
	return hex.EncodeToString(sum[:8])
}

func authPath(l *model.Location) string { return "/_external-auth-" + authID(l) }

func authSigninName(l *model.Location) string { return "@kubectl_ingress_signin_" + authID(l) }

// escapedRequestURI is the variable ingress-nginx offers to sign-in URLs:
// $request_uri escaped as a query parameter value.
const escapedRequestURI = "$escaped_request_uri"

// writeEscapedRequestURI computes $escaped_request_uri in the current
// location (Lua; no user byte in the code).
func writeEscapedRequestURI(w *confWriter) {
	w.open("set_by_lua_block", escapedRequestURI)
	w.raw("return ngx.escape_uri(ngx.var.request_uri)")
	w.close()
}

// authCacheZone is the keys zone of cached auth answers.
const authCacheZone = "auth_cache"

// writeAuthCache declares the cache of auth answers at http level when a
// location caches them (auth-cache-key), as ingress-nginx's auth_cache.
func writeAuthCache(w *confWriter, c *model.Config) {
	for _, shape := range w.shapes {
		if shape.Auth != nil && shape.Auth.CacheKey != "" {
			writeAuthCachePath(w)
			return
		}
	}
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			if a := c.AuthOf(&c.Servers[i].Locations[j]); a != nil && a.CacheKey != "" {
				writeAuthCachePath(w)
				return
			}
		}
	}
}

func writeAuthCachePath(w *confWriter) {
	w.line("proxy_cache_path", "tmp/auth_cache", "levels=1:2", "keys_zone="+authCacheZone+":10m",
		"max_size=128m", "inactive=30m", "use_temp_path=off")
}

// writeResolver names the DNS servers of ConfOptions.Resolvers: nginx
// resolves the host of an auth URL per request (the URL is a variable), and
// needs them for any host that is not an IP address. An entry that is not
// an IP address is left out.
func writeResolver(w *confWriter, o ConfOptions) {
	args := []string{"resolver"}
	for _, r := range o.Resolvers {
		a, err := netip.ParseAddr(r)
		switch {
		case err != nil || a.Zone() != "":
			continue
		case a.Is6() && !a.Is4In6():
			args = append(args, w.q("["+a.String()+"]"))
		default:
			args = append(args, w.q(a.Unmap().String()))
		}
	}
	if len(args) == 1 {
		return
	}
	w.line(append(args, "valid=30s")...)
}

// writeAuthLocations writes the internal locations that the location l of
// server s asks when it uses external authentication: the auth request
// and, with a sign-in URL, the redirect of a 401.
func writeAuthLocations(w *confWriter, c *model.Config, s *model.Server, l *model.Location) {
	a := c.AuthOf(l)
	if a == nil {
		return
	}
	path := authPath(l)
	block := w.beginOwned(s.Hostname, "= "+path, []model.ObjectRef{l.Ingress})
	// The cache key names the server and location, so that an answer
	// cached for one path never lets a request in elsewhere.
	writeAuthSubrequest(w, a, path, s.Hostname+path, l.Backend, "")
	w.endOwned(block)

	if a.SigninURL == "" {
		return
	}
	name := authSigninName(l)
	block = w.beginOwned(s.Hostname, name, []model.ObjectRef{l.Ingress})
	writeAuthSignin(w, a, name)
	w.endOwned(block)
}

// authPassedVar is the variable the Lua router sets to "1" for a route
// with satisfy any whose source ranges let the client in: its shape's auth
// subrequest then answers 204 without asking the auth service, as a
// classic location with satisfy any never asks it then (nginx's access
// phase stops at the first check that lets the request in).
const authPassedVar = "$kubectl_ingress_auth_passed"

// writeAuthSubrequest writes the internal location path that sends the
// request's headers to the auth service of a; scope starts the key of
// cached answers (it names where they may be used), backend is the
// $proxy_upstream_name to set again ("" to leave it), passed a variable
// that, when not empty, lets the request in without asking ("" for none).
func writeAuthSubrequest(w *confWriter, a *model.ExternalAuth, path, scope, backend, passed string) {
	w.open("location", "=", path)
	w.line("internal")
	w.line("access_log", "off")
	if passed != "" {
		w.open("if", "("+passed+")")
		w.line("return", "204")
		w.close()
	}
	uses := a.URL + a.RequestRedirect
	for _, h := range a.ProxySetHeaders {
		uses += h.Value
	}
	if strings.Contains(uses, escapedRequestURI) {
		writeEscapedRequestURI(w)
	}
	if a.CacheKey != "" {
		w.line("proxy_cache", authCacheZone)
		w.line("proxy_cache_key", w.q(scope+a.CacheKey))
		for _, d := range a.CacheDuration {
			// Status codes, then one time ("1h 30m" is one parameter).
			args := []string{"proxy_cache_valid"}
			fields := strings.Fields(d)
			i := 0
			for i < len(fields) && len(fields[i]) == 3 && strings.Trim(fields[i], "0123456789") == "" {
				args = append(args, w.q(fields[i]))
				i++
			}
			w.line(append(args, w.q(strings.Join(fields[i:], " ")))...)
		}
		w.line("proxy_buffering", "on")
	}
	// The auth request shares the variables of the request it checks, and
	// the server's rewrite phase sets $proxy_upstream_name again in it.
	if backend != "" {
		w.line("set", "$proxy_upstream_name", w.q(backend))
	}
	w.line("proxy_pass_request_body", "off")
	w.line("proxy_set_header", "Content-Length", `""`)
	w.line("proxy_set_header", "X-Forwarded-Proto", `""`)
	w.line("proxy_set_header", "X-Request-ID", "$req_id")
	if a.Method != "" {
		w.line("proxy_method", w.q(a.Method))
		w.line("proxy_set_header", "X-Original-URI", "$request_uri")
		w.line("proxy_set_header", "X-Scheme", "$pass_access_scheme")
	}
	w.line("proxy_set_header", "Host", w.q(a.Host))
	w.line("proxy_set_header", "X-Original-URL", "$scheme://$http_host$request_uri")
	w.line("proxy_set_header", "X-Original-Method", "$request_method")
	w.line("proxy_set_header", "X-Sent-From", `"nginx-ingress-controller"`)
	w.line("proxy_set_header", "X-Real-IP", "$remote_addr")
	w.line("proxy_set_header", "X-Forwarded-For", "$remote_addr")
	if a.RequestRedirect != "" {
		w.line("proxy_set_header", "X-Auth-Request-Redirect", w.q(a.RequestRedirect))
	} else {
		w.line("proxy_set_header", "X-Auth-Request-Redirect", "$request_uri")
	}
	for _, h := range a.ProxySetHeaders {
		w.line("proxy_set_header", w.q(h.Name), w.q(h.Value))
	}
	w.line("proxy_ssl_server_name", "on")
	w.line("proxy_pass_request_headers", "on")
	// A variable makes nginx resolve the host per request (and parse the
	// URL then), as ingress-nginx's $target.
	w.line("set", "$kubectl_ingress_auth_target", w.q(a.URL))
	w.line("proxy_pass", "$kubectl_ingress_auth_target")
	w.close()
}

// writeAuthSignin writes the named location name that redirects a 401 of
// the auth service of a to its sign-in URL.
func writeAuthSignin(w *confWriter, a *model.ExternalAuth, name string) {
	w.open("location", name)
	w.line("internal")
	w.line("add_header", "Set-Cookie", "$auth_cookie")
	w.line("add_header", "Strict-Transport-Security", "$hsts_header", "always")
	writeEscapedRequestURI(w)
	w.line("return", "302", w.q(authSigninURL(a.SigninURL, a.SigninRedirectParam)))
	w.close()
}

// authSigninURL adds the redirect parameter (rd by default) with the URL
// of the original request to the sign-in URL, unless the URL sets that
// parameter itself, as ingress-nginx's buildAuthSignURL.
func authSigninURL(signin, param string) string {
	if param == "" {
		param = "rd"
	}
	_, query, hasQuery := strings.Cut(signin, "?")
	q, _ := url.ParseQuery(query)
	if q.Get(param) != "" {
		return signin
	}
	sep := "?"
	switch {
	case hasQuery && query == "":
		sep = "" // "…/start?" ends with its separator
	case hasQuery:
		sep = "&"
	}
	return signin + sep + param + "=$pass_access_scheme://$http_host" + escapedRequestURI
}

// writeAuthRequest writes the lines of the location l itself that use
// external authentication: the auth request, the auth service's cookie,
// the answer headers to copy and the sign-in redirect of a 401; and
// satisfy any. writeAuthRequestHeaders writes the headers sent upstream,
// after the location's other proxy_set_header lines.
func writeAuthRequest(w *confWriter, c *model.Config, l *model.Location) {
	st := l.Settings
	if st.Satisfy == "any" && !st.Access.DenyAll {
		// With an invalid source range the location fails closed: satisfy
		// any would let the authentication open it.
		w.line("satisfy", "any")
	}
	a := c.AuthOf(l)
	if a == nil {
		return
	}
	signin := ""
	if a.SigninURL != "" {
		signin = authSigninName(l)
	}
	writeAuthRequestOf(w, a, authPath(l), signin)
}

// writeAuthRequestOf writes the lines of a location that asks the auth
// service of a through the internal location path, redirecting a 401 to
// the named location signin ("" for none).
func writeAuthRequestOf(w *confWriter, a *model.ExternalAuth, path, signin string) {
	w.line("auth_request", path)
	w.line("auth_request_set", "$auth_cookie", "$upstream_http_set_cookie")
	if a.AlwaysSetCookie {
		w.line("add_header", "Set-Cookie", "$auth_cookie", "always")
	} else {
		w.line("add_header", "Set-Cookie", "$auth_cookie")
	}
	// add_header here hides the http-level one.
	w.line("add_header", "Strict-Transport-Security", "$hsts_header", "always")
	for i, h := range a.ResponseHeaders {
		w.line("auth_request_set", authHeaderVar(i), "$upstream_http_"+strings.ReplaceAll(strings.ToLower(h), "-", "_"))
	}
	if signin != "" {
		w.line("error_page", "401", "=", signin)
	}
}

func authHeaderVar(i int) string { return "$authHeader" + strconv.Itoa(i) }

// authRequestHeaders says whether l sends headers of the auth service's
// answer upstream (so the location writes its proxy_set_header lines).
func authRequestHeaders(c *model.Config, l *model.Location) bool {
	a := c.AuthOf(l)
	return a != nil && len(a.ResponseHeaders) > 0
}

// writeAuthRequestHeaders sends the headers of the auth service's answer
// upstream; an absent header is sent empty, which nginx leaves out.
func writeAuthRequestHeaders(w *confWriter, c *model.Config, l *model.Location) {
	a := c.AuthOf(l)
	if a == nil {
		return
	}
	writeAuthHeadersOf(w, a, upstreamHeaderDirective(l.Settings.BackendProtocol))
}

// writeAuthHeadersOf sends the headers of the auth service's answer
// upstream with directive (proxy_set_header or grpc_set_header).
func writeAuthHeadersOf(w *confWriter, a *model.ExternalAuth, directive string) {
	for i, h := range a.ResponseHeaders {
		w.line(directive, w.q(h), authHeaderVar(i))
	}
}
