package nginxconf

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The writer of --routing=lua: the classic writer's main and http levels
// (the same functions), a classic server block for each host that
// LuaRoutable keeps classic, and one default server (HTTP and HTTPS
// listeners, as the classic catch-all) whose only location sends every
// request through lua/router.lua, which routes it by the per-host entries
// of POST /configuration/routes (luaapi.RoutesFromModel). Nothing of a
// Lua-routed host reaches nginx.conf: its size does not depend on them.

// LuaRouting sizes the Lua router (zero: the defaults).
type LuaRouting struct {
	// RoutesDict is the size in bytes of the shared dict routes_data that
	// holds the host entries (default 8 MiB; luaapi.SizeRoutesDict).
	RoutesDict int64
	// RouteCache is the number of compiled host entries each worker keeps
	// (default 10,000).
	RouteCache int
	// RegexCache is lua_regex_cache_max_entries: the compiled path
	// regexes each worker keeps (default 1024; luaapi.RegexCacheSize).
	RegexCache int
}

func (r LuaRouting) withDefaults() LuaRouting {
	if r.RoutesDict <= 0 {
		r.RoutesDict = 8 << 20
	}
	if r.RouteCache <= 0 {
		r.RouteCache = 10000
	}
	if r.RegexCache <= 0 {
		r.RegexCache = 1024
	}
	return r
}

// DictRoutes is the shared dict of the route entries (lua/CONTRACT.md).
const DictRoutes = "routes_data"

// DictRouteLimits is the shared dict of the Lua router's rate and
// connection limits: one leaky bucket or counter per Ingress, kind and
// client address, as nginx's limit_req and limit_conn zones (5 MiB per
// Ingress in the classic writer); its size does not depend on the
// cluster: an idle client's bucket expires after 60 s, and the least
// recently used is evicted when it is full, as in nginx's zones.
const DictRouteLimits = "route_limits"

// NGINXConfLua writes the nginx.conf of --routing=lua for c. The hosts that
// LuaHosts gives as Lua-routed get no server block: their routes go to
// Lua. When the catch-all server is not Lua-routable every host is
// written as the classic writer writes it (the Lua router is still
// declared, with no server using it). An error means a value reached the
// writer that Build should have refused.
func NGINXConfLua(c *model.Config, o ConfOptions, r LuaRouting) ([]byte, error) {
	return writeNGINXConfLua(&confWriter{}, c, o, r, LuaSplitOf(c))
}

// NGINXConfSplit is NGINXConf of c with o, where split is c's LuaSplit
// (LuaSplitOf(c), or a LuaSplitCache's Split(c)) when o routes in Lua:
// the caller that needs the split for the route payloads too computes it
// once.
func NGINXConfSplit(c *model.Config, o ConfOptions, split *LuaSplit) ([]byte, error) {
	if o.LuaRouted() {
		return writeNGINXConfLua(&confWriter{}, c, o, o.LuaRouting, split)
	}
	return writeNGINXConf(&confWriter{}, c, o)
}

// writeNGINXConfLua is NGINXConfLua through w (a writer that records the
// owners of its lines, for NGINXConfWithOwners), with c's split.
func writeNGINXConfLua(w *confWriter, c *model.Config, o ConfOptions, r LuaRouting, split *LuaSplit) ([]byte, error) {
	r = r.withDefaults()
	classic := split.Classic
	w.router = &r
	if len(classic[model.CatchAllHost]) > 0 {
		return writeNGINXConf(w, c, o)
	}
	// The http-level writers see the classic hosts and the catch-all (which
	// holds nothing they write: it is Lua-routable).
	cc := *c
	cc.Servers = make([]model.Server, 0, len(classic)+1)
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Hostname == model.CatchAllHost || len(classic[s.Hostname]) > 0 {
			cc.Servers = append(cc.Servers, *s)
		}
	}
	bodyMax, shapes := split.bodyMax, split.shapes
	w.shapes = shapes
	w.routerBodyMax = &bodyMax
	return writeConfServers(w, &cc, o, func() {
		for i := range cc.Servers {
			if cc.Servers[i].Hostname != model.CatchAllHost {
				writeServer(w, &cc, &cc.Servers[i], o)
			}
		}
		writeLuaServer(w, &cc, o, bodyMax, shapes)
	})
}

// sizeOf is an nginx size in bytes (render validated it; 0 for "0").
func sizeOf(v string) int64 {
	n, unit, _ := splitSize(v)
	return n * unitBytes(unit)
}

// writeRouterHTTP writes the router's dict and regex cache at http level.
func writeRouterHTTP(w *confWriter) {
	if w.router == nil {
		return
	}
	w.line("lua_shared_dict", DictRoutes, nginxSize(w.router.RoutesDict))
	w.line("lua_shared_dict", DictRouteLimits, "16m")
	w.line("lua_regex_cache_max_entries", strconv.Itoa(w.router.RegexCache))
}

func writeRouterInit(w *confWriter) {
	if w.router != nil {
		w.raw(`router = require("router")`)
	}
}

// writeRouterLog ends, in the http level's log phase, the request the
// router counted for limit-connections ($kubectl_ingress_conn_key, which
// outlives an internal redirect, unlike ngx.ctx).
func writeRouterLog(w *confWriter) {
	if w.router != nil {
		w.raw(`router.log()`)
	}
}

func writeRouterWorker(w *confWriter) {
	if w.router != nil {
		w.raw(`router.init_worker(` + routerWorkerOptions(w) + `)`)
	}
}

// routerWorkerOptions is the table router.init_worker reads: the route
// cache's size; whether to set $kubectl_ingress_server_name; whether every
// route sets the log and metric labels; whether every request leaves its
// host entry and route for the log phase (the request metrics read them);
// the client_max_body_size
// of the router's location in bytes, which nginx checks itself (-1: the
// router's server is not written); the named location with
// absolute_redirect off that answers a host's app-root redirect; the
// shape locations (luaShapeNames).
func routerWorkerOptions(w *confWriter) string {
	bodyLimit := int64(-1)
	if w.routerBodyMax != nil {
		v := *w.routerBodyMax
		if v == "" {
			v = w.global().ProxyBodySize
		}
		bodyLimit = sizeOf(v)
	}
	return "{ cache = " + strconv.Itoa(w.router.RouteCache) +
		", server_name = " + strconv.FormatBool(w.routerServerName(w.global().Logging.FormatUpstream)) +
		", labels = " + strconv.FormatBool(w.routerLabels()) +
		", keep_route = " + strconv.FormatBool(w.monitor) +
		", body_limit = " + strconv.FormatInt(bodyLimit, 10) +
		", relative_redirects = " + strconv.Quote(model.RelativeRedirectsShape.Location()) +
		", shapes = " + luaShapeNames(w.shapes) + " }"
}

// luaShapeNames is the Lua list of the shape locations nginx.conf has
// (sorted, as shapes come): the router serves a host entry that names
// another as not there yet, since ngx.exec to it would answer 500 (an
// entry posted for the nginx.conf of a reload that a worker of the
// previous one, or one before the post, sees).
func luaShapeNames(shapes []model.LocationShape) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range shapes {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + strconv.Quote(shapes[i].Location()))
	}
	b.WriteString(" }")
	return b.String()
}

// routerLabels says whether every route must set luaLocationVars: the
// access log reads one of them. Otherwise only the routes of a shape
// location set them (their error pages and snippets may read them), as
// the classic writer sets them only where something reads them
// (writeLogLocationVars); the sticky balancer and the request metrics
// take them from the request's route (ngx.ctx).
func (w *confWriter) routerLabels() bool {
	for _, v := range logIngressVars {
		if logFormatReads(w.global().Logging.FormatUpstream, v) {
			return true
		}
	}
	return false
}

// luaLocationVars are the variables the router may set per request,
// declared empty in its location: the log and metric labels
// (writeLogLocationVars) and $location_path (writeLocationPath).
var luaLocationVars = []string{"$location_path", "$namespace", "$ingress_name", "$service_name", "$service_port"}

// The request headers the router sets on the routes that have them
// (lua/util.lua's set_request_header): X-Forwarded-Prefix, the X-Code,
// X-Format and X-Original-URI of the default backend (writeNoRuleHeaders),
// the ssl-client-* headers of a client certificate verification
// (writeClientCertHeaders). A route without them passes the client's on,
// as a classic location without them does. They have no proxy_set_header
// line with a variable in the router's locations: that would cost every
// request its evaluation (a map, a scan of the request's headers), about
// 900 instructions a header (BenchmarkLuaBalancersInstructions).

// writeRouterVarMaps declares, at http level, the variables the router
// writes per request, each with the value it has where the router writes
// none. A map is evaluated only when read, and once the router wrote the
// variable never (nginx keeps the value written), where a "set" in the
// location would cost every request its evaluation. A value written
// before an ngx.exec stays in the named location, which the router enters
// before writing any.
func writeRouterVarMaps(w *confWriter, c *model.Config, shapes []model.LocationShape) {
	var names strings.Builder
	declare := func(name, value string) {
		names.WriteString(name)
		w.open("map", `""`, name)
		w.line("default", value)
		w.close()
	}
	for _, v := range luaLocationVars {
		if logFormatReads(c.Global.Logging.FormatUpstream, v[1:]) { // writeAccessLog's
			names.WriteString(v)
		} else {
			declare(v, `""`)
		}
	}
	declare("$kubectl_ingress_upstream_host", "$best_http_host")
	// The scheme towards the backend: "https" for a route with
	// backend-protocol HTTPS (and no proxy-ssl-*, whose hosts are
	// classic). A variable in proxy_pass names the same upstream block,
	// so the URI sent is the one proxy_pass without a URI sends.
	declare("$kubectl_ingress_upstream_scheme", `"http"`)
	// the limit-connections counter of the request (router.log)
	declare("$kubectl_ingress_conn_key", `""`)
	// custom-http-errors: the route's default backend, which the error
	// pages ask
	declare("$kubectl_ingress_error_backend", `""`)
	declare("$kubectl_ingress_loggable", loggableDefault(c.Global.Logging))
	declare("$kubectl_ingress_limit_rate_after", `"0"`)
	if slices.ContainsFunc(shapes, func(s model.LocationShape) bool { return s.Auth != nil }) {
		// satisfy any: "1" when the source ranges let the client in, so
		// that the auth subrequest answers at once (writeAuthSubrequest)
		declare(authPassedVar, `""`)
	}
	// Lua writes a variable only if nginx gave it an index, which a
	// directive that reads it does; one that nothing else reads (the
	// labels where the log format has none) gets it from this map's
	// source, compiled once and never evaluated (nothing reads the map).
	w.open("map", w.q(names.String()), "$kubectl_ingress_router_vars")
	w.line("default", `""`)
	w.close()
}

// writeLuaServer writes the default server of the Lua router. Its
// redirects are absolute as the classic server's (nginx's absolute_redirect
// on), but in the shape locations with RelativeRedirects, which serve the
// hosts with app-root (their classic server has it off).
// Besides the router's location it has, for the routes with
// custom-http-errors, one named location per distinct set of codes (the
// router's location with the set's error_page lines, which the router
// enters by ngx.exec) and one named location per code that asks the
// route's default backend, as the classic server's @custom_ locations:
// their number depends on the distinct code sets, never on the hosts.
func writeLuaServer(w *confWriter, c *model.Config, o ConfOptions, bodyMax string, shapes []model.LocationShape) {
	writeRouterVarMaps(w, c, shapes)
	w.comment("start server _ (Lua routing: lua/router.lua)")
	w.open("server")
	w.line("server_name", w.q(serverName(model.CatchAllHost)))
	writeDefaultListen(w, c, o)
	// The handshakes of the Lua-routed hosts' names: the certificate
	// handler asks for a client certificate where the name's host entry
	// has auth-tls (lua/client_auth.lua). With ssl-reject-handshake
	// (nginx's ssl_reject_handshake here would refuse every Lua-routed
	// host, which this server serves) it refuses the names no host entry
	// has. A classic host's name never reaches this server.
	w.open("ssl_certificate_by_lua_block")
	w.raw(`certificate.call(` + strconv.FormatBool(c.Global.TLS.RejectHandshake) + `, true)`)
	w.close()
	writeServerBlocking(w, &c.Global)
	// $proxy_upstream_name is "-" in each router location, not in the
	// server: an auth subrequest shares the request's variables and runs
	// the server's rewrite phase, which would reset it
	writeRouterLocation(w, c, bodyMax, routerLocation{})
	// always there, so that the first route that needs it reloads nothing
	writeRouterLocation(w, c, bodyMax, routerLocation{everyPhase: true})
	codes := map[int]bool{}
	for i := range shapes {
		writeRouterLocation(w, c, bodyMax, routerLocation{shape: &shapes[i]})
		for _, code := range shapes[i].Errors.Codes {
			codes[code] = true
		}
	}
	for i := range shapes {
		a := shapes[i].Auth
		if a == nil {
			continue
		}
		// the cache key: where the answer may be used (the router sets
		// the route's host and path), then auth-cache-key
		writeAuthSubrequest(w, a, shapes[i].AuthPath(), shapes[i].AuthPath()+"${kubectl_ingress_auth_scope}", "", authPassedVar)
		if a.SigninURL != "" {
			writeAuthSignin(w, a, shapes[i].AuthSignin())
		}
	}
	mirrors := map[string]bool{}
	for i := range shapes {
		path := shapes[i].MirrorPath()
		if path == "" || mirrors[path] {
			continue
		}
		mirrors[path] = true
		writeMirrorLocation(w, path, shapes[i].Mirror)
	}
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		writeLuaErrorPageLocation(w, code)
	}
	w.close()
	w.comment("end server _")
}

// luaErrorPageLocation is the named location of the router's server that
// asks a route's default backend for a page of code.
func luaErrorPageLocation(code int) string { return "@kubectl_ingress_error_" + strconv.Itoa(code) }

// luaEveryPhaseLocation is the named location of the routes with
// auth-type basic, enable-cors or custom-headers and no shape
// (router.lua's EVERY_PHASE_LOCATION).
const luaEveryPhaseLocation = "@kubectl_ingress_every_phase"

// routerLocation is one location of the router's server: the router's
// own ("/", the zero value), the every-phase location, or a shape's.
type routerLocation struct {
	shape      *model.LocationShape
	everyPhase bool
}

// name is the location's name, "" for the router's own.
func (l routerLocation) name() string {
	switch {
	case l.shape != nil:
		return l.shape.Location()
	case l.everyPhase:
		return luaEveryPhaseLocation
	}
	return ""
}

// writeRouterLocation writes the router's location ("/"), or a named
// location the router enters (ngx.exec, once) for a route that needs it:
// the every-phase one (auth-type basic, enable-cors, custom-headers), or
// the one of a shape. Each has the same directives,
// $kubectl_ingress_error_shape naming it; a shape's has its error_page
// lines and its proxy tuning, as the classic writer writes them in a
// location. Only the named locations have nginx's auth_basic and the
// router's access_by_lua and header_filter_by_lua: each Lua phase
// handler costs every request of its location (an access handler about a
// microsecond of a worker's CPU), and the router's own location serves
// the routes that need none.
func writeRouterLocation(w *confWriter, c *model.Config, bodyMax string, loc routerLocation) {
	shape := loc.shape
	if loc.name() == "" {
		w.open("location", `"/"`)
	} else {
		w.open("location", w.q(loc.name()))
	}
	if shape != nil && shape.Snippet != nil {
		// the lines of the location that the snippet overrides are left
		// out, as in a classic location (beginLocationSnippet)
		w.snippet.drop = newSnippetDrop(w.depth, nil, shape.Snippet)
		defer func() { w.snippet.drop = nil }()
	}
	w.line("set", "$proxy_upstream_name", `"-"`)
	// custom-http-errors: the named location the router is in ("" here);
	// the other variables the router writes start from their maps
	// (writeRouterVarMaps)
	w.line("set", "$kubectl_ingress_error_shape", w.q(loc.name()))
	writeLuaAccessLog(w, c.Global.Logging)
	// limit-rate-after through a variable (nginx 1.17+; read only when a
	// rate limit applies), which the router sets to the route's (the
	// ConfigMap's where it has none), as writeLocationClient writes it in
	// an Ingress's location; the router sets the rate itself ($limit_rate).
	w.line("limit_rate_after", "$kubectl_ingress_limit_rate_after")
	if shape != nil && shape.RelativeRedirects {
		w.line("absolute_redirect", "off")
	}
	if shape != nil && shape.PortInRedirect != nil {
		w.line("port_in_redirect", onOff(*shape.PortInRedirect))
	}
	switch {
	case shape != nil && shape.Proxy.BodySize != "":
		// a streamed body: nginx checks the route's limit as it reads it
		w.line("client_max_body_size", w.q(shape.Proxy.BodySize))
	case bodyMax != "":
		w.line("client_max_body_size", w.q(bodyMax))
	}
	protocol := ""
	if shape != nil {
		protocol = shape.Protocol
		writeLocationModSecurity(w, &c.Global, shape.ModSecurity)
		if b := shape.Proxy.ClientBodyBufferSize; b != "" {
			w.line("client_body_buffer_size", w.q(b))
		}
		if isGRPC(protocol) {
			// the ConfigMap's; a route's own through the balancer
			writeGRPCTimeouts(w, &c.Global, nil)
		}
		writeProxyTuning(w, &c.Global, &shape.Proxy)
	}
	directive := upstreamHeaderDirective(protocol)
	named := loc.name() != ""
	if named {
		// auth-type basic: nginx checks the credentials against the
		// route's htpasswd file (both values set by the router; "off",
		// which render never lets a realm be, turns the check off for
		// the other routes)
		w.line("set", "$kubectl_ingress_auth_basic", `"off"`)
		w.line("set", "$kubectl_ingress_auth_basic_user_file", `""`)
		w.line("auth_basic", "$kubectl_ingress_auth_basic")
		w.line("auth_basic_user_file", "$kubectl_ingress_auth_basic_user_file")
	}
	if shape != nil && shape.Auth != nil {
		// auth-url, global-auth-url: the auth request (its error_page
		// 401 before those of custom-http-errors: nginx takes the first)
		w.line("set", "$kubectl_ingress_auth_scope", `""`)
		signin := ""
		if shape.Auth.SigninURL != "" {
			signin = shape.AuthSignin()
		}
		writeAuthRequestOf(w, shape.Auth, shape.AuthPath(), signin)
	}
	if shape != nil {
		if shape.Errors.Intercept {
			w.line(interceptErrorsDirective(protocol), "on")
		}
		for _, code := range shape.Errors.Codes {
			w.line("error_page", strconv.Itoa(code), "=", w.q(luaErrorPageLocation(code)))
		}
		if shape.Mirror != nil {
			writeMirrorTo(w, shape.MirrorPath(), shape.Mirror)
		}
	}
	w.open("rewrite_by_lua_block")
	w.raw(`router.rewrite()`)
	w.close()
	if named {
		w.open("access_by_lua_block")
		w.raw(`router.access()`)
		w.close()
		w.open("header_filter_by_lua_block")
		w.raw(`router.header_filter()`)
		w.close()
	}
	connection := "$connection_upgrade"
	if shape != nil {
		connection = connectionHeader(w, &shape.Proxy)
	}
	// X-Original-URI with proxy-add-original-uri-header (its one value);
	// the router sets the other headers of a classic location itself
	writeUpstreamHeaders(w, directive, "$kubectl_ingress_upstream_host", connection, c.Global.ProxyAddOriginalURIHeader)
	writeBackendHeadersWith(w, directive, c.Global.BackendHeaders)
	if shape != nil && shape.Unavailable {
		// the route's labels, which the router sets in a shape location
		writeUnavailableHeaders(w, directive)
	}
	if shape != nil && shape.Auth != nil {
		writeAuthHeadersOf(w, shape.Auth, directive)
	}
	if shape != nil && shape.Snippet != nil {
		writeShapeSnippet(w, c, shape)
	}
	var ps *model.ProxySSL
	if shape != nil {
		ps = shape.ProxySSL
	}
	// proxy-ssl-*: the lines and the upstream block of the classic
	// location's (nginx's defaults without them)
	writeProxySSL(w, ps, protocol)
	switch protocol {
	case "GRPC":
		w.line("grpc_pass", "grpc://upstream_balancer")
	case "GRPCS":
		w.line("grpc_pass", "grpcs://"+balancerUpstream(ps, protocol))
	case "FCGI":
		writeFastCGIServer(w, shape.FastCGI, "$"+luaServerNameVar)
	case "HTTPS":
		w.line("proxy_pass", "https://"+balancerUpstream(ps, protocol))
	default:
		if named {
			w.line("proxy_pass", luaSchemeUpstream)
			writeVariablePassRedirect(w, shape)
		} else {
			// A variable in proxy_pass costs every request its evaluation
			// and a search of the upstream blocks by name: a route with
			// backend-protocol HTTPS (and no shape) is served by the
			// every-phase location (router.lua).
			w.line("proxy_pass", "http://upstream_balancer")
			// its routes have no proxy-redirect-from (that is a shape):
			// ingress-nginx's default, as writeProxyRedirect
			w.line("proxy_redirect", "off")
		}
	}
	if protocol == "HTTPS" {
		// after proxy_pass, which has no variable here ("default" works
		// as in a classic location); model.ShapeOf sets it for proxy_pass
		// only, and writeVariablePassRedirect writes the others'
		r := model.TextRewrite{Off: true}
		if shape.Proxy.Redirect != nil {
			r = *shape.Proxy.Redirect
		}
		writeTextRewrite(w, "proxy_redirect", r)
	}
	w.close()
}

// luaSchemeUpstream is the proxy_pass of the router's named locations:
// the scheme the router chose towards the upstream balancer.
const luaSchemeUpstream = "$kubectl_ingress_upstream_scheme://upstream_balancer"

// writeVariablePassRedirect writes the proxy_redirect of a named location
// whose proxy_pass is luaSchemeUpstream as a classic location's behaves:
// nginx refuses "default" beside a proxy_pass with variables (and gives it
// no implicit one), so "default" is written as what it stands for (its URL
// and "/" → "/"); a from/to pair as it is; none as ingress-nginx's default,
// "off" (writeProxyRedirect).
func writeVariablePassRedirect(w *confWriter, shape *model.LocationShape) {
	r := model.TextRewrite{Off: true}
	if shape != nil && shape.Proxy.Redirect != nil {
		r = *shape.Proxy.Redirect
	}
	if r.Default {
		w.line("proxy_redirect", luaSchemeUpstream+"/", "/")
		return
	}
	writeTextRewrite(w, "proxy_redirect", r)
}

// writeShapeSnippet writes the configuration-snippet of a shape location
// where a classic location has it, after its own settings and before the
// proxying (writeLocationSnippet): the location has written its whole
// proxy_set_header set, which the snippet's headers join or replace. The
// variables a snippet may read ($namespace, $ingress_name, $service_name,
// $service_port) are the route's, set by the router (set_labels). A
// snippet of a Lua-routed host has no server-snippet around it (that keeps
// the host classic) and no directive that ShapeBlocker names.
func writeShapeSnippet(w *confWriter, c *model.Config, shape *model.LocationShape) {
	w.snippet.drop = nil
	num, maxTemp := blockBuffers(&c.Global, &shape.Proxy)
	writeSnippetDirectives(w, shape.Snippet, snippetScope{g: &c.Global, proxies: true, authHSTS: shape.Auth != nil, buffersNumber: num, maxTemp: maxTemp})
}

// writeLuaErrorPageLocation writes the named location that asks the
// route's default backend ($kubectl_ingress_error_backend, which the
// router set) for the page of code, as writeErrorPageLocation does for a
// classic server; the built-in default backend ("") answers 404.
func writeLuaErrorPageLocation(w *confWriter, code int) {
	w.open("location", w.q(luaErrorPageLocation(code)))
	w.open("if", "($kubectl_ingress_error_backend", "=", `""`, ")")
	w.line("return", "404")
	w.close()
	w.line("set", "$proxy_upstream_name", "$kubectl_ingress_error_backend")
	w.line("rewrite", `"(.*)"`, `"/"`, "break")
	w.open("rewrite_by_lua_block")
	w.raw(`balancer.rewrite()`)
	w.close()
	writeErrorPageRequest(w, code)
	w.close()
}

// writeLuaAccessLog writes the access log of the router's location: the
// http level's, on the condition $kubectl_ingress_loggable, which the
// router sets to "0" for a route whose classic location turns the access
// log off (enable-access-log "false", the catch-all's default backend
// without enable-access-log-for-default-backend) and which otherwise
// follows skip-access-log-urls (writeRouterVarMaps).
func writeLuaAccessLog(w *confWriter, l model.Logging) {
	if !(l.DisableAccessLog || l.DisableHTTPAccessLog) { // else off at http level
		w.line(append(accessLogArgs(w, l), "if=$kubectl_ingress_loggable")...)
	}
}

// loggableDefault is $kubectl_ingress_loggable where the router writes
// none (writeLuaAccessLog).
func loggableDefault(l model.Logging) string {
	if len(l.SkipURLs) > 0 && !(l.DisableAccessLog || l.DisableHTTPAccessLog) {
		return "$loggable"
	}
	return `"1"`
}
