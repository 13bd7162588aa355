package nginxconf

import (
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Hybrid routing by host (--routing=lua): a host is routed by lua/router.lua
// when every setting of its server and locations is one the router
// applies, and keeps a classic server block of its own otherwise.
//
// The router applies itself: the matching of every path type and regex,
// the backend with its canaries and affinity, HTTPS and
// permanent/temporal redirects, app-root, rewrite-target (as the classic
// writer, on regex locations only; with enable-rewrite-log's notices),
// upstream-vhost, x-forwarded-prefix, the proxy timeouts, source ranges, a
// denied location, enable-access-log, enable-cors, custom-headers,
// limit-rate, limit-rate-after, limit-rps, limit-rpm, limit-connections
// with limit-allowlist, auth-type basic, satisfy any between the source
// ranges and one authentication (basic or external), the auth-tls-*
// client certificates (with a ca.crl, and an auth-tls-error-page URL or
// path), ssl-ciphers and ssl-prefer-server-ciphers (set on the connection
// in the handshake of the host's name), proxy-body-size and server-alias (an entry per alias that names the
// host's).
//
// It serves in a named location per distinct model.LocationShape:
// custom-http-errors, proxy-buffering, proxy-request-buffering,
// proxy-buffer-size, proxy-buffers-number, proxy-busy-buffers-size,
// proxy-max-temp-file-size, proxy-http-version, proxy-next-upstream(-tries,
// -timeout), proxy-cookie-domain, proxy-cookie-path,
// client-body-buffer-size, connection-proxy-header, proxy-redirect-from
// and -to, mirror-target (an internal location per
// distinct mirror), a default-backend answering for a Service without
// endpoints, proxy-ssl-* (the TLS lines and an upstream block per distinct
// setting, as the classic writer's), auth-url, backend-protocol GRPC, GRPCS
// (grpc_pass, grpc_set_header) and FCGI (fastcgi_pass and its params),
// enable-modsecurity, enable-owasp-core-rules, modsecurity-transaction-id,
// a configuration-snippet but for the directives
// model.Snippet.ShapeBlocker names, and a server-snippet of server_tokens
// and locations that only answer (model.Snippet.ServerLuaBlocker: their
// routes follow the host's paths).
//
// Each setting that keeps a host classic is a row of
// classicServerSettings or classicLocationSettings (or, for a
// server-snippet, what ServerLuaBlocker names): the test is exactly
// the condition under which the classic writer writes a line for it, so a
// location that inherits the ConfigMap's value stays Lua-routed. Add to
// the tables as lua/router.lua learns to apply a setting (remove its row).

// ClassicReason is one setting that keeps a host in a classic server
// block: Setting names the annotation (or ConfigMap key) and Ingress the
// Ingress that set it (zero for the ConfigMap or the server as a whole).
type ClassicReason struct {
	Setting string
	Ingress model.ObjectRef
}

func (r ClassicReason) String() string {
	if r.Ingress.Name == "" {
		return r.Setting
	}
	return r.Setting + " on Ingress " + r.Ingress.String()
}

// classicServerSettings are the server settings the Lua router does not
// apply.
var classicServerSettings = []struct {
	setting string
	classic func(s *model.Server) bool
}{}

// classicLocationSettings are the location settings the Lua router does
// not apply, each with the condition under which the classic writer
// writes it (writeLocationBody and the functions it calls).
var classicLocationSettings = []struct {
	setting string
	classic func(c *model.Config, l *model.Location) bool
}{
	{"configuration-snippet", func(_ *model.Config, l *model.Location) bool { return snippetBlocker(l) != "" }},
	{"satisfy", func(c *model.Config, l *model.Location) bool {
		// the router applies satisfy any between its source ranges and
		// one authentication (model.Config.SatisfyAnyOf); the shape location
		// would ask both of two, and its snippet's allow/deny lines
		// beside the authentication
		st := l.Settings
		if st.Satisfy != "any" || st.Access.DenyAll {
			return false
		}
		if st.Snippet != nil && len(st.Snippet.Access) > 0 {
			return true
		}
		return st.BasicAuth != nil && c.AuthOf(l) != nil
	}},
}

// classicDetails name, for a row of classicLocationSettings, what of the
// setting keeps the host classic ("configuration-snippet (proxy_read_timeout)").
var classicDetails = map[string]func(l *model.Location) string{
	"configuration-snippet": snippetBlocker,
}

// snippetBlocker names what keeps l's configuration-snippet out of a
// shape location ("" for nothing, or no snippet): its ShapeBlocker, a
// header of the location's custom-headers that the snippet names but does
// not always replace (model.Snippet.NamesResponseHeader), or allow/deny
// lines beside the location's source ranges, which the router
// checks after nginx's access module has taken the snippet's first
// matching line (the classic location writes the ranges first).
func snippetBlocker(l *model.Location) string {
	sn := l.Settings.Snippet
	if sn == nil {
		return ""
	}
	if b := sn.ShapeBlocker(); b != "" {
		return b
	}
	if l.Settings.Denied == "" {
		for _, h := range l.Settings.CustomHeaders {
			if named, always := sn.NamesResponseHeader(h.Name); named && !always {
				return "a header of custom-headers in add_header or for some answers only"
			}
		}
	}
	a := &l.Settings.Access
	if len(sn.Access) > 0 && (len(a.Allow) > 0 || len(a.Deny) > 0 || a.DenyAll) {
		return "allow/deny beside a source range"
	}
	return ""
}

// LuaRoutable returns the reasons why server s of c must keep a classic
// server block, sorted and without repeats; none means lua/router.lua
// routes it. The catch-all server is routed by Lua or the whole config is
// classic (see LuaHosts).
func LuaRoutable(c *model.Config, s *model.Server) []ClassicReason {
	var out []ClassicReason
	owner := model.ObjectRef{}
	if len(s.Locations) > 0 {
		owner = s.Locations[0].Ingress
	}
	for _, row := range classicServerSettings {
		if row.classic(s) {
			by := owner
			if strings.HasPrefix(row.setting, "auth-tls-") {
				by = s.ClientAuth.Ingress // the Ingress that decides it for the host
			}
			out = append(out, ClassicReason{Setting: row.setting, Ingress: by})
		}
	}
	if b := s.Snippet.ServerLuaBlocker(&c.Global); b != "" {
		// the router serves server_tokens at the ConfigMap's value,
		// rewrites, hidden headers and locations that only answer
		// (model.Snippet.ServerLuaBlocker)
		out = append(out, ClassicReason{Setting: "server-snippet (" + b + ")", Ingress: s.Snippet.Ingress})
	} else if name, by := hiddenAndSet(c, s); name != "" {
		out = append(out, ClassicReason{Setting: "server-snippet (proxy_hide_header " + name + ", which " + by + " sets)", Ingress: s.Snippet.Ingress})
	} else if s.AppRoot != "" && s.Snippet != nil && len(s.Snippet.RewritePhase) > 0 {
		// the router's app-root answer and its relative redirects come
		// from the named location it enters, after the server's rewrites
		out = append(out, ClassicReason{Setting: "server-snippet (rewrite/return beside app-root)", Ingress: s.Snippet.Ingress})
	}
	if s.AppRoot != "" {
		// a route found again after a snippet's rewrite may be entered in
		// another named location, where the router would check app-root
		// again (nginx's server rewrite phase runs once)
		for i := range s.Locations {
			if l := &s.Locations[i]; l.Settings.Snippet != nil && len(l.Settings.Snippet.RewritePhase) > 0 {
				out = append(out, ClassicReason{Setting: "configuration-snippet (rewrite/return beside app-root)", Ingress: l.Ingress})
				break
			}
		}
	}
	for i := range s.Locations {
		l := &s.Locations[i]
		for _, row := range classicLocationSettings {
			if row.classic(c, l) {
				setting := row.setting
				if detail := classicDetails[setting]; detail != nil {
					setting += " (" + detail(l) + ")"
				}
				out = append(out, ClassicReason{Setting: setting, Ingress: l.Ingress})
			}
		}
	}
	return sortReasons(out)
}

// hiddenAndSet names a header that s's server-snippet hides and that
// something besides the backend sets on an answer of the host ("" for
// none), and what sets it: the router hides the server-snippet's headers
// in its header filter, which runs after the other filters' lines (a
// configuration-snippet's, the ConfigMap's add-headers) and removes what
// the router itself sets (the affinity cookie, its redirects), where
// nginx's proxy_hide_header hides the backend's header alone.
func hiddenAndSet(c *model.Config, s *model.Server) (name, by string) {
	if s.Snippet == nil {
		return "", ""
	}
	for _, name := range s.Snippet.HideHeaders {
		switch strings.ToLower(name) {
		case "set-cookie", "location":
			return name, "the router"
		}
		for _, h := range c.Global.ResponseHeaders {
			if strings.EqualFold(h.Name, name) {
				return name, "the ConfigMap's add-headers"
			}
		}
		for i := range s.Locations {
			if named, _ := s.Locations[i].Settings.Snippet.NamesResponseHeader(name); named {
				return name, "a configuration-snippet"
			}
		}
	}
	return "", ""
}

func sortReasons(rs []ClassicReason) []ClassicReason {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Setting != rs[j].Setting {
			return rs[i].Setting < rs[j].Setting
		}
		return compareRefs(rs[i].Ingress, rs[j].Ingress) < 0
	})
	return slices.Compact(rs)
}

// CatchAllClassic is the reason of every host when the catch-all server
// is not Lua-routable: the default server of a Lua config is the router's.
const CatchAllClassic = "catch-all server is classic"

// WildcardClassic is the reason of a host that a classic wildcard server
// (or wildcard server-alias of a classic server) covers: nginx would give
// the request to that server_name before the router's default server
// sees it.
const WildcardClassic = "covered by the classic wildcard host "

// LuaHosts splits the servers of c: the hostnames that lua/router.lua
// routes (sorted as c.Servers) and, for each other host, why it keeps a
// classic server block. When the catch-all server ("_") is not
// Lua-routable, no host is: every host gets the reason CatchAllClassic
// besides its own (the catch-all's own reasons are under "_"). A host of
// one label under a classic wildcard is classic too (WildcardClassic).
func LuaHosts(c *model.Config) (lua []string, classic map[string][]ClassicReason) {
	split := LuaSplitOf(c)
	return split.Lua, split.Classic
}

// coversOneLabel says whether wildcard "*.rest" matches host as the
// classic server_name regex does (serverName): one label of letters,
// digits, "_" and "-" before ".rest".
func coversOneLabel(wildcard, host string) bool {
	rest := strings.TrimPrefix(wildcard, "*")
	label, ok := strings.CutSuffix(host, rest)
	if !ok || label == "" {
		return false
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
