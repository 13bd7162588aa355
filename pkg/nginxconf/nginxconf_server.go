package nginxconf

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeListen writes a listen line for port with params on each of
// listenAddresses: the listen address (or every IPv4 address) and, where
// nginx listens on every address of a pod with IPv6, the same on [::].
func writeListen(w *confWriter, o ConfOptions, port int, params ...string) {
	for _, a := range listenAddresses(w, o) {
		w.line(append([]string{"listen", w.q(a + strconv.Itoa(port))}, params...)...)
	}
}

// listenAddresses are the address prefixes of the public listeners: the
// listen address and ":" (nothing for every IPv4 address), and "[::]:"
// with IPv6 (ConfOptions.IPv6, the ConfigMap's disable-ipv6 not "true"),
// as ingress-nginx listens.
func listenAddresses(w *confWriter, o ConfOptions) []string {
	if o.ListenAddress != "" {
		return []string{o.ListenAddress + ":"}
	}
	if o.IPv6 && !w.global().Tuning.DisableIPv6 {
		return []string{"", "[::]:"}
	}
	return []string{""}
}

func writeServer(w *confWriter, c *model.Config, s *model.Server, o ConfOptions) {
	w.comment("start server " + s.Hostname)
	beginServerSnippet(w, s)
	var owners []model.ObjectRef
	if w.recordsOwners() {
		owners = serverIngresses(s)
	}
	server := w.beginOwned(s.Hostname, "", owners)
	w.open("server")
	names := []string{"server_name", w.q(serverName(s.Hostname))}
	for _, a := range s.Aliases {
		names = append(names, w.q(serverName(a)))
	}
	w.line(names...)
	if s.Hostname == model.CatchAllHost {
		writeDefaultListen(w, c, o)
		if c.Global.TLS.RejectHandshake {
			w.line("ssl_reject_handshake", "on")
		}
	} else {
		writeListen(w, o, o.HTTPPort, w.listenOptions()...)
		writeHTTPSListen(w, c, o)
	}
	writeServerBlocking(w, &c.Global)
	writeServerTLS(w, s)
	writeServerClientAuth(w, s.ClientAuth)
	w.line("set", "$proxy_upstream_name", `"-"`)
	w.open("rewrite_by_lua_block")
	w.raw(`balancer.rewrite()`)
	w.close()
	writeErrorPageLocations(w, s)
	if s.AppRoot != "" {
		// A relative Location: the client resolves it against the URL it
		// asked for. "$scheme://$http_host" would send an absolute-form
		// request for this server with "Host: evil.example" to evil.example.
		w.line("absolute_redirect", "off")
		w.open("if", "($uri", "=", "/)")
		w.line("return", "302", w.q(s.AppRoot))
		w.close()
	}
	exact := map[string]bool{}
	hasRoot := false
	for i := range s.Locations {
		l := &s.Locations[i]
		if l.PathType == model.PathExact {
			exact[l.Path] = true
		}
		if l.PathType != model.PathExact && (l.Path == "/" || (l.Regex && l.Path == "/")) {
			hasRoot = true
		}
	}
	for _, i := range model.LocationOrder(s.Locations) {
		l := &s.Locations[i]
		writeAuthLocations(w, c, s, l)
		for _, m := range model.LocationMatchers(l, exact) {
			args := quoteAll(w, exactSlashMatcher(l, m))
			block := w.beginOwned(s.Hostname, strings.Join(args, " "), []model.ObjectRef{l.Ingress})
			w.open(append([]string{"location"}, args...)...)
			if o.TestRefusal != "" && l.Path == o.TestRefusal {
				w.line(TestRefusalDirective, "on")
			}
			writeLocationBody(w, c, l)
			w.close()
			w.endOwned(block)
		}
	}
	if !hasRoot && !snippetHasRoot(s) {
		// The fallback answers like the host's own paths: a TLS host
		// redirects plain HTTP first, as ingress-nginx does.
		w.open("location", `"/"`)
		if s.Hostname == model.CatchAllHost && !c.Global.Logging.DefaultBackend {
			// enable-access-log-for-default-backend
			w.line("access_log", "off")
		}
		if (s.TLS && c.Global.SSLRedirect) || (c.Global.Redirects.ForceSSLRedirect && s.Hostname != model.CatchAllHost) {
			writeHTTPSRedirect(w, c.Global.PreserveTrailingSlash)
		}
		if body := locationBodySize(w, &c.Global, ""); body != "" {
			w.line("client_max_body_size", w.q(body))
		}
		writeDefaultBackend(w, c)
		w.close()
	}
	writeHealthzLocation(w, s)
	writeMirrorLocations(w, s)
	writeServerSnippet(w, c, s)
	w.close()
	w.endOwned(server)
	w.comment("end server " + s.Hostname)
}

// writeDefaultListen writes the listeners of the default server (the
// catch-all's, or the Lua router's).
func writeDefaultListen(w *confWriter, c *model.Config, o ConfOptions) {
	defaults := []string{"default_server", "reuseport", "backlog=4096"}
	if !c.Global.Tuning.ReusePort {
		defaults = []string{"default_server", "backlog=4096"}
	}
	writeListen(w, o, o.HTTPPort, append(w.listenOptions(), defaults...)...)
	writeHTTPSListen(w, c, o, defaults...)
}

func quoteAll(w *confWriter, m model.Matcher) []string {
	if m.Modifier == "" {
		return []string{w.q(m.Path)}
	}
	return []string{m.Modifier, w.q(m.Path)}
}

// writeHTTPSRedirect redirects plain HTTP to HTTPS; without preserve
// (preserve-trailing-slash) the URI loses its trailing "/", as in
// ingress-nginx (see writeRedirectURIMap).
func writeHTTPSRedirect(w *confWriter, preserve bool) {
	w.open("if", "($pass_access_scheme", "=", "http)")
	// ingress-nginx redirects to the host the backend would get
	// ($best_http_host, without a port): see nginxconf_headers.go.
	w.line("return", w.httpRedirectCode(), "https://$kubectl_ingress_redirect_host"+httpsRedirectURI(preserve))
	w.close()
}

func writeDefaultBackend(w *confWriter, c *model.Config) {
	if c.DefaultBackend == "" || c.DefaultBackend == model.DefaultBackendName {
		w.line("return", "404")
		return
	}
	w.line("set", "$proxy_upstream_name", w.q(c.DefaultBackend))
	writeNoRuleHeaders(w)
	w.line("proxy_pass", "http://upstream_balancer")
}

func writeLocationBody(w *confWriter, c *model.Config, l *model.Location) {
	st := l.Settings
	g := &c.Global
	defer beginLocationSnippet(w, l)()
	writeLogLocationVars(w, g, l)
	writeErrorPageVars(w, l)
	// nginx checks it once it chose the location, before any answer of
	// it: a denied or redirecting location has its own too
	if body := locationBodySize(w, g, st.Proxy.BodySize); body != "" {
		w.line("client_max_body_size", w.q(body))
	}
	if st.Access.DenyAll {
		// An invalid source range fails closed: no entry lets anyone in.
		w.line("deny", "all")
	} else {
		for _, cidr := range st.Access.Deny {
			w.line("deny", w.q(cidr))
		}
		for _, cidr := range st.Access.Allow {
			w.line("allow", w.q(cidr))
		}
		if len(st.Access.Allow) > 0 {
			w.line("deny", "all")
		}
	}
	writeAuthRequest(w, c, l)
	writeErrorPages(w, l) // after auth's error_page 401: nginx takes the first
	if st.Limits.RPS > 0 {
		burst := st.Limits.RPS * max(st.Limits.BurstMultiplier, 1)
		w.line("limit_req", w.q("zone="+zoneName(l.Ingress, "rps")), "burst="+strconv.Itoa(burst), "nodelay")
	}
	if st.Limits.RPM > 0 {
		burst := st.Limits.RPM * max(st.Limits.BurstMultiplier, 1)
		w.line("limit_req", w.q("zone="+zoneName(l.Ingress, "rpm")), "burst="+strconv.Itoa(burst), "nodelay")
	}
	if st.Limits.Connections > 0 {
		w.line("limit_conn", w.q(zoneName(l.Ingress, "conn")), strconv.Itoa(st.Limits.Connections))
	}
	writeLocationClient(w, g, st)
	if l.HTTPSRedirect {
		writeHTTPSRedirect(w, preserveTrailingSlash(g, st))
	}
	if st.Denied != "" {
		// A setting the location needs could not be honoured
		// (custom-headers, fastcgi-params-configmap): 503, as
		// ingress-nginx denies the location.
		w.line("return", "503")
		return
	}
	writeClientAuthCheck(w, st.ClientAuth)
	writeBasicAuth(w, st.BasicAuth)
	writeResponseHeaders(w, st.CustomHeaders)
	if st.Redirect != nil {
		w.line("return", strconv.Itoa(st.Redirect.Code), w.q(st.Redirect.URL))
		writeLocationSnippet(w, c, l)
		return
	}
	if st.CORS != nil {
		writeCORS(w, st.CORS)
	}
	if l.Backend == "" {
		writeLocationSnippet(w, c, l)
		writeDefaultBackend(w, c)
		return
	}
	w.line("set", "$proxy_upstream_name", w.q(l.Backend))
	writeLocationPath(w, l)
	p := &st.Proxy
	if p.ConnectTimeout > 0 && p.ConnectTimeout != g.ProxyConnectTimeout {
		w.line("proxy_connect_timeout", strconv.Itoa(p.ConnectTimeout)+"s")
	}
	if p.SendTimeout > 0 && p.SendTimeout != g.ProxySendTimeout {
		w.line("proxy_send_timeout", strconv.Itoa(p.SendTimeout)+"s")
	}
	if p.ReadTimeout > 0 && p.ReadTimeout != g.ProxyReadTimeout {
		w.line("proxy_read_timeout", strconv.Itoa(p.ReadTimeout)+"s")
	}
	grpc := isGRPC(st.BackendProtocol)
	if grpc {
		writeGRPCTimeouts(w, g, p)
	}
	writeProxyTuning(w, g, p)
	// grpc_pass inherits no proxy_set_header: a gRPC location sets the
	// whole set with grpc_set_header, as ingress-nginx's location does
	if grpc || st.UpstreamVhost != "" || st.XForwardedPrefix != "" || st.ErrorPages.Fallback || authProxyHeaders(st) || authRequestHeaders(c, l) || p.ConnectionHeader != "" || snippetProxyHeaders(w, l) {
		directive := upstreamHeaderDirective(st.BackendProtocol)
		writeUpstreamHeaders(w, directive, st.UpstreamVhost, connectionHeader(w, p), g.ProxyAddOriginalURIHeader)
		writeBackendHeadersWith(w, directive, g.BackendHeaders)
		if st.XForwardedPrefix != "" {
			w.line(directive, "X-Forwarded-Prefix", w.q(st.XForwardedPrefix))
		}
		writeErrorPageHeaders(w, l)
		writeAuthProxyHeaders(w, st)
		writeAuthRequestHeaders(w, c, l)
	}
	writeLocationSnippet(w, c, l)
	if st.RewriteTarget != "" && l.Regex {
		w.line("rewrite", w.q("(?i)^"+l.Path), w.q(st.RewriteTarget), "break")
	}
	writeMirror(w, st.Mirror)
	writeProxySSL(w, st.ProxySSL, st.BackendProtocol)
	switch strings.ToUpper(st.BackendProtocol) {
	case "FCGI":
		writeFastCGI(w, st.FastCGI)
	case "HTTPS":
		w.line("proxy_pass", "https://"+balancerUpstream(st.ProxySSL, st.BackendProtocol))
	case "GRPC":
		w.line("grpc_pass", "grpc://upstream_balancer")
	case "GRPCS":
		w.line("grpc_pass", "grpcs://"+balancerUpstream(st.ProxySSL, st.BackendProtocol))
	default:
		w.line("proxy_pass", "http://upstream_balancer")
	}
	writeProxyRedirect(w, st, strings.ToUpper(st.BackendProtocol))
}

// zoneName names the rate limit zone of an Ingress. Kubernetes names never
// hold "_", so the name is unique per Ingress and kind.
func zoneName(ing model.ObjectRef, kind string) string {
	return ing.Namespace + "_" + ing.Name + "_" + kind
}

// writeZones declares the rate limit zones used by the locations, once each.
// An Ingress with exempt networks (limit-allowlist) keys its zones on a
// map that gives those clients an empty key, which nginx does not count,
// as ingress-nginx's geo and map do.
func writeZones(w *confWriter, c *model.Config) {
	seen := map[string]bool{}
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			l := &c.Servers[i].Locations[j]
			lim := &l.Settings.Limits
			if lim.RPS <= 0 && lim.RPM <= 0 && lim.Connections <= 0 {
				continue
			}
			// zone writes the zone of the Ingress called suffix once, owned
			// by the Ingress.
			zone := func(suffix string, write func(name string)) {
				name := zoneName(l.Ingress, suffix)
				if seen[name] {
					return
				}
				seen[name] = true
				owned := w.beginOwned("", "", []model.ObjectRef{l.Ingress})
				write(name)
				w.endOwned(owned)
			}
			key := "$binary_remote_addr"
			if len(lim.Exempt) > 0 {
				key = limitKeyVar(l.Ingress)
				zone("exempt", func(string) { writeLimitExempt(w, l.Ingress, lim.Exempt) })
			}
			if lim.RPS > 0 {
				zone("rps", func(name string) {
					w.line("limit_req_zone", key, w.q("zone="+name+":5m"), "rate="+strconv.Itoa(lim.RPS)+"r/s")
				})
			}
			if lim.RPM > 0 {
				zone("rpm", func(name string) {
					w.line("limit_req_zone", key, w.q("zone="+name+":5m"), "rate="+strconv.Itoa(lim.RPM)+"r/m")
				})
			}
			if lim.Connections > 0 {
				zone("conn", func(name string) { w.line("limit_conn_zone", key, w.q("zone="+name+":5m")) })
			}
		}
	}
	if len(seen) > 0 {
		w.line("limit_req_status", strconv.Itoa(c.Global.LimitReqStatusCode))
		w.line("limit_conn_status", strconv.Itoa(c.Global.LimitConnStatusCode))
	}
}

// limitVarSuffix names the nginx variables of an Ingress's exempt
// networks: a hash of its namespace and name, since Kubernetes names hold
// "-" and "." that nginx variable names cannot.
func limitVarSuffix(ing model.ObjectRef) string {
	sum := sha256.Sum256([]byte(ing.Namespace + "/" + ing.Name))
	return hex.EncodeToString(sum[:8])
}

// limitKeyVar is the limit key of an Ingress with exempt networks.
func limitKeyVar(ing model.ObjectRef) string {
	return "$kubectl_ingress_limit_" + limitVarSuffix(ing)
}

// writeLimitExempt writes the geo that marks the exempt client networks
// of an Ingress and the map that turns the mark into its limit key: the
// client address, or "" for an exempt client.
func writeLimitExempt(w *confWriter, ing model.ObjectRef, exempt []string) {
	mark := "$kubectl_ingress_limit_exempt_" + limitVarSuffix(ing)
	w.open("geo", "$remote_addr", mark)
	w.line("default", "0")
	for _, cidr := range exempt {
		w.line(w.q(cidr), "1")
	}
	w.close()
	w.open("map", mark, limitKeyVar(ing))
	w.line("0", "$binary_remote_addr")
	w.line("1", `""`)
	w.close()
}

// writeHealthzLocation writes the catch-all's model.HealthzPath location,
// which answers 200 with no body and no log line, as ingress-nginx's.
func writeHealthzLocation(w *confWriter, s *model.Server) {
	if !model.ServesHealthz(s) {
		return
	}
	w.open("location", w.q(model.HealthzPath))
	w.line("access_log", "off")
	w.line("return", "200")
	w.close()
}

// locationBodySize is the client_max_body_size line a location with
// proxy-body-size own ("" for none) writes, "" for none: the location's
// limit (own, else the ConfigMap's) where the server block's differs
// (the http level's, or its server-snippet's: as in ingress-nginx, whose
// every location writes its own, a server-snippet's client_max_body_size
// limits the snippet's locations only).
func locationBodySize(w *confWriter, g *model.Global, own string) string {
	limit := own
	if limit == "" {
		limit = g.ProxyBodySize
	}
	server := g.ProxyBodySize
	if s := w.snippet.server; s != nil {
		server = s.BodySize(g)
	}
	if limit == server {
		return ""
	}
	return limit
}
