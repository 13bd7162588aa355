package annotations

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// External authentication (auth-url and the other auth-* annotations of
// ingress-nginx's "External Authentication", enable-global-auth, satisfy)
// and the global-auth-* and no-auth-locations ConfigMap keys.
//
// The URLs (auth-url, auth-signin, global-auth-url, global-auth-signin)
// are the values of the CVE-2025-24514 class: ingress-nginx wrote them into
// nginx.conf as they came. Here each is parsed as an absolute http or https
// URL with a host that is a DNS name, an IP address or one of the host
// variables; no quote, ";", "{", "}", backslash, space or control character
// is accepted anywhere, and a "$" must start a variable of authURLVars.

// authURLVars are the nginx variables the auth URLs, auth-request-redirect
// and the header values of auth-proxy-set-headers may hold: the request's
// host, scheme, URI and method, what the oauth2-proxy and Authelia setups
// of the corpus use ($escaped_request_uri is the request URI escaped as a
// query parameter, which kubectl-ingress computes as ingress-nginx does).
// $uri and $args are not in it: $uri is decoded and could put a line break
// into a redirect.
var authURLVars = varList{names: []string{
	"best_http_host", "escaped_request_uri", "host", "http_host", "pass_access_scheme",
	"remote_addr", "request_method", "request_uri", "scheme", "server_name", "server_port",
}}

// authHostVars are the variables that may stand for the whole host of an
// auth URL.
var authHostVars = []string{"best_http_host", "host", "http_host", "server_name"}

// authCacheKeyVars are the variables an auth-cache-key may hold: those of
// authURLVars, the user name, and any request header, cookie or query
// argument (the credentials the auth service decides on).
var authCacheKeyVars = varList{
	names: []string{
		"best_http_host", "escaped_request_uri", "host", "http_host", "pass_access_scheme",
		"remote_addr", "remote_user", "request_method", "request_uri", "scheme", "server_name", "server_port",
	},
	prefixes: []string{"arg_", "cookie_", "http_"},
}

// authHeaderVars are the variables a header value of auth-proxy-set-headers
// may hold: those of authURLVars and any request header.
var authHeaderVars = varList{
	names:    authURLVars.names,
	prefixes: []string{"http_"},
}

// The kinds of values of this family.
const (
	kindAuthHeaders       valueKind = "comma separated header names"
	kindAuthCacheDuration valueKind = `comma separated "codes… times…"`
)

// authVarsDoc lists authURLVars for the documentation.
const authVarsDoc = "$host, $http_host, $best_http_host, $server_name, $server_port, $scheme, $pass_access_scheme, $request_uri, $escaped_request_uri, $request_method, $remote_addr"

// authMethods are the methods auth-method accepts, as ingress-nginx.
var authMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

// authHeaderNameRE is ingress-nginx's header name grammar for
// auth-response-headers and auth-proxy-set-headers: the name also becomes
// part of an nginx variable name ($upstream_http_x_auth_request_user). At
// most 46 bytes: a longer name does not fit nginx's proxy_headers_hash
// bucket (64 bytes: 8 + the name + 2, aligned to 8, + 8) and nginx -t
// fails.
var authHeaderNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,46}$`)

// authParamRE is the grammar of auth-signin-redirect-param: a query
// parameter name.
var authParamRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,64}$`)

var (
	authStatusRE   = regexp.MustCompile(`^[1-5][0-9][0-9]$`)
	authDurationRE = regexp.MustCompile(`^[0-9]{1,9}(s|m|h|d|w|M|y)$`)
	// authDurationRank orders nginx's time units: in one time ("1h 30m")
	// each unit must be smaller than the one before, as ngx_parse_time
	// requires; "ms" it refuses for seconds.
	authDurationRank = map[byte]int{'y': 7, 'M': 6, 'w': 5, 'd': 4, 'h': 3, 'm': 2, 's': 1}
)

// authExternalState stages the auth-* annotations until finishAuthExternal.
type authExternalState struct {
	auth       model.ExternalAuth
	urlGiven   bool
	urlInvalid bool
	// others are the other auth-* annotations given, which mean nothing
	// without auth-url.
	others []string
}

func newAuthExternalState() authExternalState {
	return authExternalState{auth: model.ExternalAuth{
		CacheDuration:     []string{model.DefaultAuthCacheDuration},
		KeepaliveRequests: 1000,
		KeepaliveTimeout:  60,
	}}
}

// finishAuthExternal sets the location's external authentication. An
// auth-url that is invalid fails closed: the location answers 503, as
// ingress-nginx denies it, instead of serving without the authentication
// the user asked for.
func (s *annotationState) finishAuthExternal(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	a := &s.authExternalState
	switch {
	case a.urlInvalid:
		if s.out.Location.Denied == "" {
			s.out.Location.Denied = "invalid auth-url"
		}
	case a.urlGiven:
		auth := a.auth
		if ref := auth.ProxySetHeadersConfigMap; ref != "" {
			ns, name, found := strings.Cut(ref, "/")
			if !found {
				ns, name = ing.Namespace, ref
			}
			if ns != ing.Namespace {
				problems = append(problems, model.Problemf(ing, Field("auth-proxy-set-headers"),
					"invalid value %s: the ConfigMap must be in the Ingress's namespace %q, as in ingress-nginx; every request to the Ingress's paths answers 503 until it is fixed (fail closed)", ValueQuote(ref), ing.Namespace))
				if s.out.Location.Denied == "" {
					s.out.Location.Denied = "auth-proxy-set-headers names a ConfigMap of another namespace"
				}
				auth.ProxySetHeadersConfigMap = ""
			} else {
				auth.ProxySetHeadersConfigMap = ns + "/" + name
			}
		}
		s.out.Location.ExternalAuth = &auth
	default:
		for _, name := range a.others {
			problems = append(problems, model.Problemf(ing, Field(name), "ignored: auth-url is not set"))
		}
	}
	return problems
}

// annAuth returns a setter of an auth-* annotation other than auth-url:
// it runs set on the staged settings and records that the annotation was
// given with a value other than its default, which without auth-url is a
// Problem saying it is ignored (an invalid value is a Problem of its own;
// the default changes nothing either way).
func annAuth(name, def string, set func(a *model.ExternalAuth, v string) error) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		if err := set(&s.authExternalState.auth, v); err != nil {
			return err
		}
		if v != def {
			s.authExternalState.others = append(s.authExternalState.others, name)
		}
		return nil
	}
}

// authExternalAnnotations are the annotations of this family, sorted by name.
var authExternalAnnotations = []annotationSpec{
	{Name: "auth-always-set-cookie", Kind: kindBool, Default: "false",
		Description: "Send the auth service's Set-Cookie with every answer, not only successful ones.",
		set: annAuth("auth-always-set-cookie", "false", func(a *model.ExternalAuth, v string) error {
			b, err := valueBool(v)
			a.AlwaysSetCookie = b
			return err
		})},
	{Name: "auth-cache-duration", Kind: kindAuthCacheDuration, Default: model.DefaultAuthCacheDuration,
		Description: `How long answers of the auth service are cached, by status: comma separated entries of status codes then times ("200 202 30m, 401 1m").`,
		set: annAuth("auth-cache-duration", model.DefaultAuthCacheDuration, func(a *model.ExternalAuth, v string) error {
			d, err := valueAuthCacheDuration(v)
			if err == nil {
				a.CacheDuration = d
			}
			return err
		})},
	{Name: "auth-cache-key", Kind: kindHashBy,
		Description: "Cache the auth service's answers under this key (e.g. \"$remote_user$http_authorization\"); variables from an allowlist.",
		set: annAuth("auth-cache-key", "", func(a *model.ExternalAuth, v string) error {
			k, err := valueAuthCacheKey(v)
			a.CacheKey = k
			return err
		})},
	{Name: "auth-keepalive", Kind: kindInt, Default: "0",
		Description: "Keepalive connections to the auth service: validated; as ingress-nginx with HTTP/2 on (use-http2, the default) the auth request does not use them. With use-http2 \"false\" a Problem says that kubectl-ingress does not keep them either (ingress-nginx does).",
		set: annAuth("auth-keepalive", "0", func(a *model.ExternalAuth, v string) error {
			n, err := valueInt(v, 0, MaxInt32)
			a.Keepalive = n
			return err
		})},
	{Name: "auth-keepalive-requests", Kind: kindInt, Default: "1000",
		Description: "Requests per keepalive connection to the auth service (see auth-keepalive): validated only.",
		set: annAuth("auth-keepalive-requests", "1000", func(a *model.ExternalAuth, v string) error {
			n, err := valueInt(v, 1, MaxInt32)
			if err == nil {
				a.KeepaliveRequests = n
			}
			return err
		})},
	{Name: "auth-keepalive-share-vars", Kind: kindBool, Default: "false",
		Description: "Share variables between the request and the auth request with keepalive (see auth-keepalive): validated only.",
		set: annAuth("auth-keepalive-share-vars", "false", func(a *model.ExternalAuth, v string) error {
			b, err := valueBool(v)
			a.KeepaliveShareVars = b
			return err
		})},
	{Name: "auth-keepalive-timeout", Kind: kindSeconds, Default: "60",
		Description: "Idle timeout of keepalive connections to the auth service (see auth-keepalive): validated only.",
		set: annAuth("auth-keepalive-timeout", "60", func(a *model.ExternalAuth, v string) error {
			n, err := valueInt(v, 1, ValueMaxSeconds)
			if err == nil {
				a.KeepaliveTimeout = n
			}
			return err
		})},
	{Name: "auth-method", Kind: kindEnum, Default: "GET",
		Description: "Method of the auth request: GET, HEAD, POST, PUT, PATCH, DELETE, CONNECT, OPTIONS or TRACE.",
		set: annAuth("auth-method", "GET", func(a *model.ExternalAuth, v string) error {
			m, err := valueOneOf(v, false, authMethods...)
			a.Method = m
			return err
		})},
	{Name: "auth-proxy-set-headers", Kind: kindConfigMapRef,
		Description: "A ConfigMap (`name` or `namespace/name`, the Ingress's namespace) whose data are headers sent to the auth service; values may hold variables from an allowlist.",
		set: annAuth("auth-proxy-set-headers", "", func(a *model.ExternalAuth, v string) error {
			ref, err := valueConfigMapRef(v)
			a.ProxySetHeadersConfigMap = ref
			return err
		})},
	{Name: "auth-request-redirect", Kind: kindHeaderValue,
		Description: "The X-Auth-Request-Redirect header sent to the auth service (default: the request URI); variables from an allowlist.",
		set: annAuth("auth-request-redirect", "", func(a *model.ExternalAuth, v string) error {
			r, err := valueAuthText(v)
			a.RequestRedirect = r
			return err
		})},
	{Name: "auth-response-headers", Kind: kindAuthHeaders,
		Description: "Comma separated headers of the auth service's answer sent on to the backend.",
		set: annAuth("auth-response-headers", "", func(a *model.ExternalAuth, v string) error {
			h, err := valueAuthHeaderNames(v)
			a.ResponseHeaders = h
			return err
		})},
	{Name: "auth-signin", Kind: kindURL,
		Description: "Where a 401 of the auth service redirects (302), with the original URL in the redirect parameter unless the URL sets it; variables from an allowlist (e.g. \"https://$host/oauth2/start?rd=$escaped_request_uri\").",
		set: annAuth("auth-signin", "", func(a *model.ExternalAuth, v string) error {
			u, _, err := valueAuthURL(v)
			a.SigninURL = u
			return err
		})},
	{Name: "auth-signin-redirect-param", Kind: kindToken, Default: "rd",
		Description: "The query parameter of auth-signin that gets the original URL.",
		set: annAuth("auth-signin-redirect-param", "rd", func(a *model.ExternalAuth, v string) error {
			p, err := valueAuthParam(v)
			a.SigninRedirectParam = p
			return err
		})},
	{Name: "auth-url", Kind: kindURL,
		Description: "Authenticate every request with this URL first (nginx auth_request, the request's headers without its body): 2xx lets it through, 401 answers 401 (or redirects to auth-signin), 403 answers 403, anything else 500. An absolute http(s) URL whose host is a DNS name, an IP address or one of $host, $http_host, $best_http_host, $server_name; the only variables allowed in the auth URLs, auth-request-redirect and auth-proxy-set-headers values are " + authVarsDoc + " (e.g. \"https://$host/oauth2/auth\"); no quote, ;, braces or spaces.",
		OnInvalid:   "every request to the Ingress's paths answers 503 until it is fixed (fail closed, as in ingress-nginx)",
		set: func(s *annotationState, v string) error {
			a := &s.authExternalState
			a.urlGiven = true
			u, host, err := valueAuthURL(v)
			if err != nil {
				a.urlInvalid = true
				return err
			}
			a.auth.URL, a.auth.Host = u, host
			return nil
		}},
	{Name: "enable-global-auth", Kind: kindBool, Default: "true",
		Description: "\"false\" opts the Ingress's paths out of the ConfigMap's global-auth-url.",
		set: func(s *annotationState, v string) error {
			b, err := valueBool(v)
			if err == nil {
				s.out.Location.GlobalAuthOff = !b
			}
			return err
		}},
	{Name: "satisfy", Kind: kindEnum, Default: "all",
		Description: "\"any\": a request passes when either the source ranges or the authentication let it in; \"all\": both must.",
		set: func(s *annotationState, v string) error {
			r, err := valueOneOf(v, false, "any", "all")
			if err == nil && r == "any" {
				s.out.Location.Satisfy = r
			}
			return err
		}},
}

// valueAuthURL checks an auth URL (auth-url, auth-signin and their global
// keys) and returns it with the host to send as Host (without the port).
func valueAuthURL(v string) (u, host string, err error) {
	if err := valueCheckChars(v, "$"); err != nil {
		return "", "", err
	}
	if err := checkVars(v, authURLVars, false); err != nil {
		return "", "", varsError(err)
	}
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return "", "", errors.New(`must be an absolute http or https URL (e.g. "https://auth.example.com/oauth2/auth")`)
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
		if rest[i] == '#' || strings.IndexByte(rest[i:], '#') >= 0 {
			return "", "", errors.New("must not contain a fragment (#)")
		}
	}
	if strings.IndexByte(authority, '@') >= 0 {
		return "", "", errors.New("must not contain user information (user@ or user:password@)")
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", "", fmt.Errorf("must have a host that is a DNS name, an IP address or one of $%s", strings.Join(authHostVars, ", $"))
		}
		host, port = authority[:end+1], strings.TrimPrefix(authority[end+1:], ":")
		if port == "" && len(authority) > end+1 {
			return "", "", errors.New("must have a port from 1 to 65535 after the host")
		}
	} else if h, p, found := strings.Cut(authority, ":"); found {
		host, port = h, p
		if port == "" {
			return "", "", errors.New("must have a port from 1 to 65535 after the host")
		}
	}
	if port != "" {
		if _, err := ValuePort(port); err != nil {
			return "", "", fmt.Errorf("must have a port from 1 to 65535 (found %q)", port)
		}
	}
	if err := checkAuthHost(host); err != nil {
		return "", "", err
	}
	return v, host, nil
}

// checkAuthHost checks the host of an auth URL: one host variable, a DNS
// name, or an IP address that is not link-local or unspecified (a cloud
// metadata service or this host).
func checkAuthHost(host string) error {
	bad := fmt.Errorf("must have a host that is a DNS name, an IP address or one of $%s (found %q)", strings.Join(authHostVars, ", $"), host)
	if name, ok := strings.CutPrefix(host, "$"); ok {
		if i := sort.SearchStrings(authHostVars, name); i < len(authHostVars) && authHostVars[i] == name {
			return nil
		}
		return bad
	}
	if strings.IndexByte(host, '$') >= 0 {
		return bad
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(addr); err == nil {
		switch {
		case a.Zone() != "":
			return fmt.Errorf("must not have an IPv6 address with a zone (found %q)", host)
		case a.IsLinkLocalUnicast() || a.IsUnspecified() || a.IsMulticast():
			return fmt.Errorf("must not have a link-local, unspecified or multicast address (found %q): refused", host)
		case strings.HasPrefix(host, "[") != a.Is6():
			return bad
		}
		return nil
	}
	if strings.HasPrefix(host, "[") || !valueIsDNSName(host) || strings.Trim(host, "0123456789.") == "" {
		return bad
	}
	switch strings.ToLower(strings.TrimSuffix(host, ".")) {
	case "metadata", "metadata.google.internal", "metadata.goog", "instance-data":
		return fmt.Errorf("must not name a cloud metadata service (found %q): refused", host)
	}
	return nil
}

// varsError says that a value must keep to its variable allowlist.
func varsError(err error) error {
	return fmt.Errorf("must use only allowed variables: it %v", err)
}

// valueAuthText checks auth-request-redirect: visible ASCII without the
// characters nginx interprets; variables from authURLVars.
func valueAuthText(v string) (string, error) {
	if err := valueCheckChars(v, "$"); err != nil {
		return "", err
	}
	if err := checkVars(v, authURLVars, false); err != nil {
		return "", varsError(err)
	}
	return v, nil
}

// valueAuthCacheKey checks auth-cache-key: letters, digits, "-._:/" and
// variables of authCacheKeyVars.
func valueAuthCacheKey(v string) (string, error) {
	if len(v) > 256 {
		return "", errors.New("is longer than 256 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(varNameChar(c) || strings.IndexByte("$-.:/", c) >= 0) {
			return "", fmt.Errorf("must be letters, digits, -._:/ and variables (found %q)", c)
		}
	}
	if err := checkVars(v, authCacheKeyVars, false); err != nil {
		return "", varsError(err)
	}
	return v, nil
}

// valueAuthCacheDuration checks auth-cache-duration: comma separated
// entries, each status codes (optional) followed by one or more times, as
// nginx's proxy_cache_valid takes them.
func valueAuthCacheDuration(v string) ([]string, error) {
	var out []string
	for _, e := range valueList(v) {
		fields := strings.Fields(e)
		times, rank := 0, 8
		for _, f := range fields {
			switch {
			case authStatusRE.MatchString(f) && times == 0:
			case authDurationRE.MatchString(f) && authDurationRank[f[len(f)-1]] < rank:
				times++
				rank = authDurationRank[f[len(f)-1]]
			default:
				return nil, fmt.Errorf("entry %s must be status codes followed by a time, its units from the largest (e.g. \"200 202 401 5m\", \"200 1h 30m\"; found %q)", ValueQuote(e), f)
			}
		}
		if times == 0 {
			return nil, fmt.Errorf("entry %s has no time (e.g. \"5m\")", ValueQuote(e))
		}
		out = append(out, strings.Join(fields, " "))
	}
	if len(out) == 0 {
		return nil, errors.New("holds no entry")
	}
	return out, nil
}

// valueAuthHeaderNames checks a comma separated list of header names,
// keeping the first of names that differ in case only.
func valueAuthHeaderNames(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, h := range valueList(v) {
		if !authHeaderNameRE.MatchString(h) {
			return nil, fmt.Errorf("entry %s must be a header name (letters, digits, - and _; at most 46)", ValueQuote(h))
		}
		if k := strings.ToLower(h); !seen[k] {
			seen[k] = true
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("holds no header name")
	}
	return out, nil
}

// valueAuthParam checks auth-signin-redirect-param.
func valueAuthParam(v string) (string, error) {
	if !authParamRE.MatchString(v) {
		return "", errors.New("must be a query parameter name (letters, digits and -._~)")
	}
	return v, nil
}

// AuthProxySetHeaders checks the data of an auth-proxy-set-headers
// ConfigMap and returns the headers sorted by name, or the reason the
// ConfigMap cannot be used.
func AuthProxySetHeaders(data map[string]string) ([]model.Header, error) {
	names := slices.Sorted(maps.Keys(data))
	out := make([]model.Header, 0, len(names))
	for _, k := range names {
		if !authHeaderNameRE.MatchString(k) {
			return nil, fmt.Errorf("key %s must be a header name (letters, digits, - and _; at most 46)", ValueQuote(k))
		}
		v := data[k]
		if v == "" {
			return nil, fmt.Errorf("header %s has an empty value", k)
		}
		if err := valueCheckChars(strings.ReplaceAll(v, " ", "_"), "$"); err != nil {
			return nil, fmt.Errorf("header %s: value %s %v", k, ValueQuote(v), err)
		}
		if err := checkVars(v, authHeaderVars, false); err != nil {
			return nil, fmt.Errorf("header %s: value %s %v", k, ValueQuote(v), varsError(err))
		}
		out = append(out, model.Header{Name: k, Value: v, Vars: strings.IndexByte(v, '$') >= 0})
	}
	return out, nil
}

// authExternalConfigKeys are the ConfigMap keys of this family, sorted.
var authExternalConfigKeys = []configKeySpec{
	{Key: "global-auth-always-set-cookie", Kind: kindBool, Default: "false",
		Description: "global-auth-url: send the auth service's Set-Cookie with every answer.",
		set:         configBool(func(g *model.Global) *bool { return &g.GlobalAuth.AlwaysSetCookie })},
	{Key: "global-auth-cache-duration", Kind: kindAuthCacheDuration, Default: model.DefaultAuthCacheDuration,
		Description: "global-auth-url: how long answers are cached, by status (see auth-cache-duration).",
		set: func(g *model.Global, v string) error {
			d, err := valueAuthCacheDuration(v)
			if err == nil {
				g.GlobalAuth.CacheDuration = d
			}
			return err
		}},
	{Key: "global-auth-cache-key", Kind: kindHashBy, NoDefault: true,
		Description: "global-auth-url: cache the auth service's answers under this key (see auth-cache-key).",
		set: func(g *model.Global, v string) error {
			k, err := valueAuthCacheKey(v)
			if err == nil {
				g.GlobalAuth.CacheKey = k
			}
			return err
		}},
	{Key: "global-auth-method", Kind: kindEnum, NoDefault: true,
		Description: "global-auth-url: method of the auth request (see auth-method).",
		set: func(g *model.Global, v string) error {
			m, err := valueOneOf(v, false, authMethods...)
			if err == nil {
				g.GlobalAuth.Method = m
			}
			return err
		}},
	{Key: "global-auth-request-redirect", Kind: kindHeaderValue, NoDefault: true,
		Description: "global-auth-url: the X-Auth-Request-Redirect header (see auth-request-redirect).",
		set: func(g *model.Global, v string) error {
			r, err := valueAuthText(v)
			if err == nil {
				g.GlobalAuth.RequestRedirect = r
			}
			return err
		}},
	{Key: "global-auth-response-headers", Kind: kindAuthHeaders, NoDefault: true,
		Description: "global-auth-url: headers of the auth service's answer sent on to the backend (see auth-response-headers).",
		set: func(g *model.Global, v string) error {
			h, err := valueAuthHeaderNames(v)
			if err == nil {
				g.GlobalAuth.ResponseHeaders = h
			}
			return err
		}},
	{Key: "global-auth-signin", Kind: kindURL, NoDefault: true,
		Description: "global-auth-url: where a 401 redirects (see auth-signin).",
		set: func(g *model.Global, v string) error {
			u, _, err := valueAuthURL(v)
			if err == nil {
				g.GlobalAuth.SigninURL = u
			}
			return err
		}},
	{Key: "global-auth-signin-redirect-param", Kind: kindToken, Default: "rd",
		Description: "global-auth-url: the query parameter of global-auth-signin that gets the original URL.",
		set: func(g *model.Global, v string) error {
			p, err := valueAuthParam(v)
			if err == nil {
				if p == "rd" {
					p = ""
				}
				g.GlobalAuth.SigninRedirectParam = p
			}
			return err
		}},
	{Key: "global-auth-url", Kind: kindURL, NoDefault: true,
		Description: "External authentication of every location that has no auth-url and does not opt out with enable-global-auth \"false\" (see auth-url); an invalid URL leaves it off, as in ingress-nginx.",
		set: func(g *model.Global, v string) error {
			u, host, err := valueAuthURL(v)
			if err == nil {
				g.GlobalAuth.URL, g.GlobalAuth.Host = u, host
			}
			return err
		}},
	{Key: "no-auth-locations", Kind: kindPath, Default: model.DefaultNoAuthLocations,
		Description: "Comma separated path prefixes whose locations skip external authentication (their own and the global one).",
		set: func(g *model.Global, v string) error {
			var out []string
			for _, p := range valueList(v) {
				q, err := valuePath(p, true)
				if err != nil {
					return fmt.Errorf("entry %s %v", ValueQuote(p), err)
				}
				out = append(out, q)
			}
			if len(out) == 0 {
				return errors.New("holds no path")
			}
			g.NoAuthLocations = out
			return nil
		}},
}
