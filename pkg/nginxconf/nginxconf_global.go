package nginxconf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The global settings of the ConfigMap (model.Global's groups of
// global_settings.go): workers, logging, the client address, TLS,
// blocking, hash tables and brotli, written as ingress-nginx's nginx.tmpl
// writes them. Every user value is validated by pkg/annotations and goes
// through q; a value that could fail nginx -t for the names of this config
// (a hash bucket too small) is raised here to what the config needs.

// global returns the Global the writer writes (its defaults for a writer
// of a test that set none).
func (w *confWriter) global() *model.Global {
	if w.g == nil {
		g := model.DefaultGlobal()
		w.g = &g
	}
	return w.g
}

// writeMainGlobal writes the main and events settings after pid. A worker
// needs a connection for each listening socket, and nginx -t fails when
// worker_connections are fewer: the ConfigMap's value is raised to at least
// 1024 and, with a number of workers, to four sockets per worker (the
// reuseport listeners are cloned per worker) and one per stream service,
// twice with IPv6 listeners.
func writeMainGlobal(w *confWriter, c *model.Config, workers string, families int) {
	g := c.Global
	writeErrorLog(w, g)
	t := g.Tuning
	if t.WorkerCPUAffinity != "" {
		w.line(append([]string{"worker_cpu_affinity"}, quoteAll2(w, strings.Fields(t.WorkerCPUAffinity))...)...)
	}
	openFiles := t.MaxWorkerOpenFiles
	if openFiles == 0 {
		openFiles = 65535
	}
	w.line("worker_rlimit_nofile", strconv.Itoa(openFiles))
	w.line("worker_shutdown_timeout", strconv.Itoa(t.WorkerShutdownTimeout)+"s")
	w.open("events")
	conns := t.MaxWorkerConnections
	if conns == 0 {
		conns = openFiles
	}
	need := 1024
	if n, err := strconv.Atoi(workers); err == nil {
		need = max(need, families*(4*n+len(c.Stream.Services))+64)
	}
	conns = max(conns, need)
	w.line("worker_connections", strconv.Itoa(conns))
	w.line("multi_accept", onOff(t.MultiAccept))
	for _, a := range t.DebugConnections {
		w.line("debug_connection", w.q(a))
	}
	w.close()
}

func quoteAll2(w *confWriter, vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = w.q(v)
	}
	return out
}

// writeErrorLog writes error_log: to syslog with enable-syslog, as
// ingress-nginx, else to error-log-path.
func writeErrorLog(w *confWriter, g model.Global) {
	l := g.Logging
	if l.Syslog && l.SyslogHost != "" {
		w.line("error_log", w.q(syslogTarget(l)), l.ErrorLogLevel)
		return
	}
	w.line("error_log", w.q(l.ErrorLogPath), l.ErrorLogLevel)
}

func syslogTarget(l model.Logging) string {
	host := l.SyslogHost
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "syslog:server=" + host + ":" + strconv.Itoa(l.SyslogPort)
}

// writeGlobalModules loads the modules that a ConfigMap key turns on:
// brotli (Debian's libnginx-mod-http-brotli-filter) only with
// enable-brotli, so that a config without it needs no brotli package
// (ModSecurity: modSecurityLoaded).
func writeGlobalModules(w *confWriter, g model.Global, o ConfOptions) {
	if g.Brotli.Enable {
		loadModule(w, o, "ngx_http_brotli_filter_module.so")
	}
}

// logIngressVars are ingress-nginx's per-location variables that a log
// format may read: each is declared (empty) at http level and set by every
// location of an Ingress when the format reads it.
var logIngressVars = []string{"ingress_name", "location_path", "namespace", "service_name", "service_port"}

// logFormatReads says whether format reads the variable name ($name or
// ${name}).
func logFormatReads(format, name string) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			continue
		}
		rest := format[i+1:]
		if strings.HasPrefix(rest, "{"+name+"}") {
			return true
		}
		if strings.HasPrefix(rest, name) {
			end := len(name)
			if end == len(rest) || !isVarChar(rest[end]) {
				return true
			}
		}
	}
	return false
}

// luaServerNameVar stands for $server_name in the access log of the Lua
// router (logFormatOf).
const luaServerNameVar = "kubectl_ingress_server_name"

// routerServerName tells whether the Lua router must set luaServerNameVar:
// it routes, and the log format prints $server_name.
func (w *confWriter) routerServerName(format string) bool {
	return w.router != nil && logFormatReads(format, "server_name")
}

// logFormatOf is the log format as nginx.conf writes it: with the Lua
// router, $server_name (always "_" in the router's server) is
// luaServerNameVar, the host entry the router chose.
func logFormatOf(w *confWriter, format string) string {
	if !w.routerServerName(format) {
		return format
	}
	return replaceVar(format, "server_name", luaServerNameVar)
}

// replaceVar replaces the variable name (as $name or ${name}) in format
// with the variable to.
func replaceVar(format, name, to string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '$' {
			rest := format[i+1:]
			if strings.HasPrefix(rest, "{"+name+"}") {
				b.WriteString("${" + to + "}")
				i += len(name) + 2
				continue
			}
			if strings.HasPrefix(rest, name) && (len(rest) == len(name) || !isVarChar(rest[len(name)])) {
				b.WriteString("$" + to)
				i += len(name)
				continue
			}
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

func isVarChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// writeAccessLog writes the access log format and where it goes, at http
// level: log-format-upstream (with escape=none or escape=json),
// skip-access-log-urls, access-log-path, http-access-log-path,
// enable-syslog, disable-access-log and disable-http-access-log.
func writeAccessLog(w *confWriter, g model.Global) {
	l := g.Logging
	format := []string{"log_format", "upstreaminfo"}
	switch {
	case l.EscapeNone:
		format = append(format, "escape=none")
	case l.EscapeJSON:
		format = append(format, "escape=json")
	}
	// The format is one quoted token: nginx reads its variables (each
	// checked against the allowlist of pkg/annotations), and q escapes its
	// quotes and backslashes.
	w.line(append(format, w.q(logFormatOf(w, l.FormatUpstream)))...)
	if w.router != nil {
		// The Lua router's server is "_": the router sets the host entry
		// that classic nginx's $server_name would be (router.lua), for the
		// access log and the shape locations (a FastCGI backend's
		// SERVER_NAME).
		w.open("map", `""`, "$"+luaServerNameVar)
		w.line("default", "$server_name")
		w.close()
	}
	// Variables of ingress-nginx that nginx does not have.
	if logFormatReads(l.FormatUpstream, "proxy_alternative_upstream_name") {
		w.open("map", `""`, "$proxy_alternative_upstream_name")
		w.line("default", `""`)
		w.close()
	}
	for _, v := range logIngressVars {
		if logFormatReads(l.FormatUpstream, v) {
			w.open("map", `""`, "$"+v)
			w.line("default", `""`)
			w.close()
		}
	}
	if l.DisableAccessLog || l.DisableHTTPAccessLog {
		w.line("access_log", "off")
		return
	}
	access := accessLogArgs(w, l)
	if len(l.SkipURLs) > 0 {
		w.open("map", "$request_uri", "$loggable")
		for _, u := range l.SkipURLs {
			w.line(w.q(mapKey(u)), "0")
		}
		w.line("default", "1")
		w.close()
		access = append(access, "if=$loggable")
	}
	w.line(access...)
}

// accessLogArgs are the access_log directive of writeAccessLog without
// its if= condition (access logging on).
func accessLogArgs(w *confWriter, l model.Logging) []string {
	target := l.AccessLogPath
	if l.HTTPAccessLogPath != "" {
		target = l.HTTPAccessLogPath
	}
	if l.Syslog && l.SyslogHost != "" {
		target = syslogTarget(l)
	}
	access := []string{"access_log", w.q(target), "upstreaminfo"}
	if !(l.Syslog && l.SyslogHost != "") {
		access = append(access, quoteAll2(w, l.AccessLogParams)...)
	}
	return access
}

// writeLogLocationVars sets, in a location of an Ingress, ingress-nginx's
// per-location variables that the log format reads.
func writeLogLocationVars(w *confWriter, g *model.Global, l *model.Location) {
	for _, v := range logIngressVars {
		if (!logFormatReads(g.Logging.FormatUpstream, v) && !(w.monitor && slices.Contains(monitorVars, v))) || v == "location_path" {
			// $location_path: every location sets it (writeLocationPath)
			continue
		}
		var value string
		switch v {
		case "namespace":
			value = l.Ingress.Namespace
		case "ingress_name":
			value = l.Ingress.Name
		case "service_name":
			value = l.Service
		case "service_port":
			value = l.ServicePort
		case "location_path":
			value = l.Path
		}
		w.line("set", "$"+v, w.q(noVars(value)))
	}
}

// noVars makes a value safe as a literal of set, which interpolates
// variables: a "$" (the end anchor of a regex path) is dropped. Names,
// namespaces and ports never hold one.
func noVars(v string) string {
	return strings.ReplaceAll(v, "$", "")
}

// mapKey is an exact source value of a map: one that nginx would read as a
// special word or a regex gets a leading "\", which map removes.
func mapKey(v string) string {
	switch v {
	case "default", "hostnames", "include", "volatile":
		return `\` + v
	}
	if strings.HasPrefix(v, "~") || strings.HasPrefix(v, `\`) {
		return `\` + v
	}
	return v
}

// writeRealIP sets where the client address comes from, as ingress-nginx:
// with use-forwarded-headers, enable-real-ip or use-proxy-protocol the
// realip module trusts proxy-real-ip-cidr to say it, in
// forwarded-for-header (or the PROXY protocol header). With SSL
// passthrough the HTTPS servers behind the SNI router read it from the
// router's PROXY protocol header (from loopback) unless the headers decide.
func writeRealIP(w *confWriter, c *model.Config, o ConfOptions) {
	g := c.Global
	r := g.RealIP
	headers := g.UseForwardedHeaders || r.EnableRealIP
	switch {
	case r.UseProxyProtocol:
		w.line("real_ip_header", "proxy_protocol")
	case headers:
		w.line("real_ip_header", w.q(r.ForwardedForHeader))
	case c.Stream.Passthrough:
		w.line("real_ip_header", "proxy_protocol")
		w.line("set_real_ip_from", passthroughLoopback)
		return
	default:
		return
	}
	w.line("real_ip_recursive", "on")
	for _, cidr := range r.ProxyRealIPCIDR {
		w.line("set_real_ip_from", w.q(cidr))
	}
	if c.Stream.Passthrough && r.UseProxyProtocol {
		// the SNI router's header, which carries the client address
		// the router read from the load balancer's
		w.line("set_real_ip_from", passthroughLoopback)
	}
}

// forwardedForValue is the X-Forwarded-For sent upstream: the client
// address, or with use-forwarded-headers and compute-full-forwarded-for
// the client's list with the address appended ($full_x_forwarded_for).
func forwardedForValue(g *model.Global) string {
	if g.UseForwardedHeaders && g.RealIP.ComputeFullForwardedFor {
		return "$full_x_forwarded_for"
	}
	return "$remote_addr"
}

// writeFullForwardedFor declares $full_x_forwarded_for when it is used:
// the client's X-Forwarded-For and the address of the peer (before realip
// replaced it, or from the PROXY protocol), as ingress-nginx.
func writeFullForwardedFor(w *confWriter, g model.Global) {
	if forwardedForValue(&g) != "$full_x_forwarded_for" {
		return
	}
	peer := "$realip_remote_addr"
	if g.RealIP.UseProxyProtocol {
		peer = "$proxy_protocol_addr"
	}
	w.open("map", "$http_x_forwarded_for", "$full_x_forwarded_for")
	w.line("default", `"$http_x_forwarded_for, `+peer+`"`)
	w.line(`""`, `"`+peer+`"`)
	w.close()
}

// writeTLSSettings writes the TLS settings of every HTTPS server.
func writeTLSSettings(w *confWriter, g model.Global) {
	t := g.TLS
	w.line(append([]string{"ssl_protocols"}, t.Protocols...)...)
	if t.EarlyData {
		w.line("ssl_early_data", "on")
	}
	if t.SessionCache {
		w.line("ssl_session_cache", w.q("shared:SSL:"+t.SessionCacheSize))
		w.line("ssl_session_timeout", w.q(t.SessionTimeout))
	}
	w.line("ssl_session_tickets", onOff(t.SessionTickets))
	if t.SessionTicketKeyFile != "" {
		w.line("ssl_session_ticket_key", w.q(model.FilePath(t.SessionTicketKeyFile)))
	}
	if t.DHParamFile != "" {
		w.line("ssl_dhparam", w.q(model.FilePath(t.DHParamFile)))
	}
	w.line("ssl_buffer_size", w.q(t.BufferSize))
	if t.Ciphers != "" {
		w.line("ssl_ciphers", w.q(t.Ciphers))
		w.line("ssl_prefer_server_ciphers", "on")
	}
	w.line("ssl_ecdh_curve", w.q(t.ECDHCurve))
	if g.Tuning.UseHTTP2 {
		w.line("http2_max_concurrent_streams", strconv.Itoa(g.Tuning.HTTP2MaxConcurrentStreams))
	}
}

// writeBlocking declares the variables of block-cidrs, block-user-agents
// and block-referers (each server answers 403 on them: writeServerBlocking),
// and hides the backend headers of hide-headers.
func writeBlocking(w *confWriter, g model.Global) {
	b := g.Block
	if len(b.CIDRs) > 0 {
		w.open("geo", "$remote_addr", "$kubectl_ingress_block_cidr")
		w.line("default", "0")
		for _, cidr := range b.CIDRs {
			w.line(w.q(cidr), "1")
		}
		w.close()
	}
	writeBlockMap(w, "$http_user_agent", "$block_ua", b.UserAgents)
	writeBlockMap(w, "$http_referer", "$block_ref", b.Referers)
	if b.AllowBackendServerHeader {
		w.line("proxy_pass_header", "Server")
	}
	for _, h := range b.HideHeaders {
		w.line("proxy_hide_header", w.q(h))
	}
}

func writeBlockMap(w *confWriter, source, variable string, entries []string) {
	if len(entries) == 0 {
		return
	}
	w.open("map", source, variable)
	w.line("default", "0")
	for _, e := range entries {
		if strings.HasPrefix(e, "~") {
			w.line(w.q(e), "1")
		} else {
			w.line(w.q(mapKey(e)), "1")
		}
	}
	w.close()
}

// writeServerBlocking answers 403 in a server to the blocked clients.
func writeServerBlocking(w *confWriter, g *model.Global) {
	for _, b := range []struct {
		on bool
		v  string
	}{{len(g.Block.CIDRs) > 0, "$kubectl_ingress_block_cidr"}, {len(g.Block.UserAgents) > 0, "$block_ua"}, {len(g.Block.Referers) > 0, "$block_ref"}} {
		if b.on {
			w.open("if", "("+b.v+")")
			w.line("return", "403")
			w.close()
		}
	}
}

// writeHashSizes sizes the variables and map hash tables: the ConfigMap's
// values, a bucket raised to what the longest map key of this writer
// needs (a bucket too small for a key fails nginx -t).
func writeHashSizes(w *confWriter, g model.Global) {
	t := g.Tuning
	w.line("variables_hash_bucket_size", strconv.Itoa(t.VariablesHashBucketSize))
	w.line("variables_hash_max_size", strconv.Itoa(t.VariablesHashMaxSize))
	longest := 0
	for _, list := range [][]string{g.Block.UserAgents, g.Block.Referers, g.Logging.SkipURLs} {
		for _, e := range list {
			if !strings.HasPrefix(e, "~") {
				longest = max(longest, len(mapKey(e)))
			}
		}
	}
	w.line("map_hash_bucket_size", strconv.Itoa(max(t.MapHashBucketSize, serverNamesBucketSize(longest))))
}

// writeBrotli compresses answers with brotli (enable-brotli).
func writeBrotli(w *confWriter, g model.Global) {
	b := g.Brotli
	if !b.Enable {
		return
	}
	w.line("brotli", "on")
	w.line("brotli_comp_level", strconv.Itoa(b.Level))
	w.line("brotli_min_length", strconv.Itoa(b.MinLength))
	w.line(append([]string{"brotli_types"}, quoteAll2(w, b.Types)...)...)
}

// httpRedirectCode is the status of the HTTPS redirect.
func (w *confWriter) httpRedirectCode() string {
	if c := w.global().Redirects.HTTPRedirectCode; c != 0 {
		return strconv.Itoa(c)
	}
	return "308"
}

// listenOptions are the options of the HTTP and HTTPS listeners that the
// ConfigMap sets: proxy_protocol with use-proxy-protocol.
func (w *confWriter) listenOptions() []string {
	if w.global().RealIP.UseProxyProtocol {
		return []string{"proxy_protocol"}
	}
	return nil
}

// writeUpstreamKeepalive writes how long and for how many requests an idle
// connection to a backend is kept (upstream-keepalive-*), in the upstream
// of the kept connections.
func writeUpstreamKeepalive(w *confWriter, g model.Global) {
	t := g.Tuning
	w.line("keepalive_time", strconv.Itoa(t.UpstreamKeepaliveTime)+"s")
	w.line("keepalive_timeout", strconv.Itoa(t.UpstreamKeepaliveTimeout)+"s")
	w.line("keepalive_requests", strconv.Itoa(t.UpstreamKeepaliveRequests))
}
