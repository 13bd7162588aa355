package nginxconf

import (
	"slices"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ConfOptions say where nginx listens and where its files are. Every file
// path in nginx.conf is relative to the nginx prefix (see lua/CONTRACT.md),
// so the same text runs in a container and under a temp dir in tests.
type ConfOptions struct {
	// ListenAddress is the address of the HTTP and HTTPS listeners; "" for all.
	ListenAddress string
	// IPv6 adds, when ListenAddress is "" (every IPv4 address), the same
	// listeners on [::] (the ConfigMap's disable-ipv6 "true" drops them):
	// the controller sets it when its pod has an IPv6 address, as
	// ingress-nginx does. render and diff leave it off.
	IPv6      bool
	HTTPPort  int
	HTTPSPort int
	// StatusAddress is the loopback address of the status server that
	// serves /configuration/*, /healthz and /nginx_status.
	StatusAddress string
	// ModulesDir holds ndk_http_module.so, ngx_http_lua_module.so and
	// ngx_http_headers_more_filter_module.so.
	ModulesDir string
	// BuiltinModules are the module files (e.g. "ngx_http_lua_module.so")
	// that nginx has compiled in, as OpenResty has Lua: no load_module.
	BuiltinModules []string
	// User is the worker user ("" leaves nginx's default).
	User string
	// WorkerProcesses overrides the ConfigMap's worker-processes when set.
	WorkerProcesses string
	// SSLPassthroughProxyPort is the loopback port of the HTTPS servers
	// behind the SNI router with SSL passthrough
	// (--ssl-passthrough-proxy-port); SSLPassthroughHopPort is the
	// loopback port of the passthrough hop (see nginxconf_stream.go).
	SSLPassthroughProxyPort int
	SSLPassthroughHopPort   int
	// LuaDicts size the shared dicts of the Lua payloads (zero: defaults).
	LuaDicts LuaDicts
	// Routing is RoutingNginx ("" too) or RoutingLua (routing.go);
	// LuaRouting sizes the Lua router of RoutingLua.
	Routing    string
	LuaRouting LuaRouting
	// Resolvers are the DNS servers (IP addresses) nginx asks for the
	// host names it resolves per request, those of auth-url
	// (nginxconf_auth.go); the controller reads them from
	// /etc/resolv.conf, as ingress-nginx. None: no resolver line, and
	// such a host cannot be resolved (its requests answer 500).
	Resolvers []string

	// TestRefusal is a test seam: only tests set it; no flag, ConfigMap
	// key or object reaches it (TestTestRefusalIsTestOnly checks that no
	// other code names it). When it is not empty, each location the classic
	// writer makes for an Ingress path equal to it gets one more line,
	// TestRefusalDirective, which nginx -t refuses on that line ("unknown
	// directive"): a writer bug on one Ingress's line, as if render had
	// accepted a value nginx refuses. The quarantine and --strict webhook
	// tests need such a culprit, and render refuses every real one it knows
	// (internal/nginxrefuses).
	TestRefusal string

	// RequestMetricBuckets turns lua/monitor.lua on with these histogram
	// buckets (ingress-nginx's request metrics; nginxconf_monitor.go);
	// nil leaves it off.
	RequestMetricBuckets map[string][]float64

	// GeoIP2Dir is the directory of the MaxMind databases that use-geoip2
	// reads, <dir>/<edition>.mmdb (--maxmind-db-dir; "" for
	// model.DefaultGeoIP2Dir).
	GeoIP2Dir string
}

// TestRefusalDirective is the line ConfOptions.TestRefusal adds.
const TestRefusalDirective = "kubectl_ingress_test_refusal"

// DefaultConfOptions are the settings of a controller pod.
func DefaultConfOptions() ConfOptions {
	return ConfOptions{
		HTTPPort:      80,
		HTTPSPort:     443,
		StatusAddress: "127.0.0.1:10246",
		ModulesDir:    "/usr/lib/nginx/modules",
		GeoIP2Dir:     model.DefaultGeoIP2Dir,

		SSLPassthroughProxyPort: 442,
		SSLPassthroughHopPort:   441,
	}
}

// NGINXConf writes the nginx.conf for c. The output depends only on c and
// o. An error means a value reached the writer that Build should have
// refused; nothing is written then.
func NGINXConf(c *model.Config, o ConfOptions) ([]byte, error) {
	if o.LuaRouted() {
		return NGINXConfLua(c, o, o.LuaRouting)
	}
	return writeNGINXConf(&confWriter{}, c, o)
}

func writeNGINXConf(w *confWriter, c *model.Config, o ConfOptions) ([]byte, error) {
	return writeConfServers(w, c, o, func() {
		for i := range c.Servers {
			writeServer(w, c, &c.Servers[i], o)
		}
	})
}

// writeConfServers writes the whole nginx.conf of c; servers writes the server
// blocks of the hosts (the classic writer's one per host, or the Lua
// writer's, nginxconf_lua.go).
func writeConfServers(w *confWriter, c *model.Config, o ConfOptions, servers func()) ([]byte, error) {
	w.b.Grow(4096 + 400*countLocations(c))
	w.g = &c.Global
	w.monitor = monitorOn(o)
	writeMain(w, c, o)
	w.open("http")
	writeRealIP(w, c, o)
	writeGeoIP2(w, &c.Global, o)
	writeHTTPSettings(w, c.Global, serverHTTPSPort(c, o))
	writeServerNamesHash(w, c)
	writeLua(w, c, o)
	writeMonitorVars(w, c.Global, o)
	writeProxySSLUpstreams(w, c)
	writeZones(w, c)
	writeAuthCache(w, c)
	writeResolver(w, o)
	writeRedirectURIMap(w, c)
	writeHeaderGlobals(w, c, o)
	servers()
	writeWWWRedirects(w, c, o)
	writeStatusServer(w, o)
	writeGeoIP2Fallbacks(w)
	w.close()
	writeStream(w, c, o)
	if w.err != nil {
		return nil, w.err
	}
	return w.b.Bytes(), nil
}

func countLocations(c *model.Config) int {
	n := 0
	for i := range c.Servers {
		n += len(c.Servers[i].Locations)
	}
	return n
}

func writeMain(w *confWriter, c *model.Config, o ConfOptions) {
	w.comment("Generated by kubectl-ingress; do not edit.")
	loadModule(w, o, "ndk_http_module.so")
	loadModule(w, o, "ngx_http_lua_module.so")
	// headers-more (Debian's libnginx-mod-http-headers-more-filter), as in
	// ingress-nginx's image: more_set_headers replaces a header the backend
	// sent where add_header would send two, and more_clear_headers drops
	// one (Server with server-tokens off).
	loadModule(w, o, "ngx_http_headers_more_filter_module.so")
	writeStreamModules(w, c, o)
	writeGlobalModules(w, c.Global, o)
	if modSecurityLoaded(c, w.shapes) {
		loadModule(w, o, modSecurityModule)
	}
	writeGeoIP2Module(w, &c.Global, o)
	if o.User != "" {
		w.line("user", w.q(o.User))
	}
	workers := c.Global.WorkerProcesses
	if o.WorkerProcesses != "" {
		workers = o.WorkerProcesses
	}
	w.line("worker_processes", w.q(workers))
	w.line("pid", "nginx.pid")
	writeMainGlobal(w, c, workers, len(listenAddresses(w, o)))
}

// writeServerNamesHash sizes nginx's server name hash for the hosts: a
// bucket must hold the longest name (serverNamesBucketSize), and the table
// grows with the number of names (nginx tries table sizes up to max_size;
// one that is too small is a warning, not a failure). A wildcard host is
// written as a regex name (serverName), which nginx keeps out of the hash.
func writeServerNamesHash(w *confWriter, c *model.Config) {
	longest, names := 0, 0
	for _, s := range c.Servers {
		for _, n := range append([]string{s.Hostname}, s.Aliases...) {
			if isRegexName(n) {
				continue
			}
			longest = max(longest, len(n))
			names++
		}
	}
	// A ConfigMap value (server-name-hash-*) counts where it is larger.
	t := w.global().Tuning
	w.line("server_names_hash_bucket_size", strconv.Itoa(max(t.ServerNameHashBucketSize, serverNamesBucketSize(longest))))
	w.line("server_names_hash_max_size", strconv.Itoa(max(t.ServerNameHashMaxSize, nextPowerOfTwo(2*names))))
}

// serverNamesBucketSize is the smallest bucket size nginx accepts for a
// name of n bytes, as a power of two of at least 64 (nginx rounds it up to
// its 64-byte cache line anyway). ngx_hash_init refuses a bucket smaller
// than an element, NGX_HASH_ELT_SIZE = pointer + align(n + 2, pointer),
// plus the pointer that ends the bucket: 16 + align8(n + 2) on 64-bit.
// Checked with nginx 1.22.1: a 47-byte name fails with 64 and passes with
// 128, a 111-byte one fails with 128.
func serverNamesBucketSize(n int) int {
	const ptr = 8
	elt := ptr + (n+2+ptr-1)/ptr*ptr
	return max(64, nextPowerOfTwo(elt+ptr))
}

func nextPowerOfTwo(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

func writeHTTPSettings(w *confWriter, g model.Global, httpsPort int) {
	for _, p := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		w.line(p+"_temp_path", "tmp/"+p)
	}
	w.line("default_type", w.q(g.Tuning.DefaultType))
	writeHashSizes(w, g)
	writeAccessLog(w, g)
	w.line("server_tokens", onOff(g.ServerTokens))
	if !g.ServerTokens {
		// ingress-nginx drops the Server header with server-tokens
		// "false" (its e2e test settings/server_tokens.go), not only the
		// version in it.
		w.line("more_clear_headers", "Server")
	}
	// ingress-nginx's default (use-port-in-redirects "false"): a redirect
	// nginx makes absolute names no port; a location that differs says so
	// (writeLocationClient)
	w.line("port_in_redirect", onOff(g.UsePortInRedirects))
	// as ingress-nginx: a connection that timed out (or a 444) is reset,
	// its memory freed at once rather than after FIN_WAIT
	w.line("reset_timedout_connection", "on")
	w.line("keepalive_timeout", strconv.Itoa(g.KeepAlive)+"s")
	w.line("keepalive_requests", strconv.Itoa(g.KeepAliveRequests))
	w.line("client_max_body_size", w.q(g.ProxyBodySize))
	w.line("proxy_connect_timeout", strconv.Itoa(g.ProxyConnectTimeout)+"s")
	w.line("proxy_send_timeout", strconv.Itoa(g.ProxySendTimeout)+"s")
	w.line("proxy_read_timeout", strconv.Itoa(g.ProxyReadTimeout)+"s")
	w.line("proxy_buffering", onOff(g.ProxyBuffering))
	if !g.ProxyRequestBuffering {
		// nginx's default is on, as ingress-nginx's.
		w.line("proxy_request_buffering", "off")
	}
	writeProxyBuffers(w, g.ProxyBuffersNumber, g.ProxyBufferSize)
	w.line("proxy_http_version", g.ProxyHTTPVersion)
	w.line(nextUpstreamArgs(g.ProxyNextUpstream, g.RetryNonIdempotent)...)
	w.line("proxy_next_upstream_tries", strconv.Itoa(g.ProxyNextUpstreamTries))
	writeHTTPProxySettings(w, g)
	if g.UseGzip {
		w.line("gzip", "on")
		w.line("gzip_comp_level", strconv.Itoa(g.GzipLevel))
		w.line("gzip_min_length", strconv.Itoa(g.GzipMinLength))
		w.line("gzip_proxied", "any")
		w.line("gzip_vary", "on")
		types := []string{"gzip_types"}
		for _, t := range g.GzipTypes {
			types = append(types, w.q(t))
		}
		w.line(types...)
	}
	writeBrotli(w, g)
	writeModSecurity(w, g)
	writeForwardedVariables(w, g, httpsPort)
	writeFullForwardedFor(w, g)
	writeBlocking(w, g)
	w.open("map", "$http_upgrade", "$connection_upgrade")
	w.line("default", "upgrade")
	w.line(`""`, `""`)
	w.close()
	writeProxyHeaders(w, "")
	writeBackendHeaders(w, g.BackendHeaders)
	writeHSTS(w, g)
	writeTLSSettings(w, g)
	// The certificate of every handshake comes from Lua
	// (lua/certificate.lua: the host's, else the default one from these
	// files). Naming the files through a variable keeps nginx from loading
	// them once per server block at every nginx -t and reload (18.7 s of
	// the nginx -t of 10,000 servers); nginx's own per-handshake loader is
	// replaced by Lua's.
	w.open("map", `""`, "$kubectl_ingress_default_certificate")
	w.line("default", "certs/default.crt")
	w.close()
	w.open("map", `""`, "$kubectl_ingress_default_certificate_key")
	w.line("default", "certs/default.key")
	w.close()
	w.line("ssl_certificate", "$kubectl_ingress_default_certificate")
	w.line("ssl_certificate_key", "$kubectl_ingress_default_certificate_key")
}

// writeProxyBuffers sizes the first buffer and the body buffers alike, as
// ingress-nginx does (proxy-buffers-number, 4 by default): with nginx's
// default "proxy_buffers 8 4k", a proxy_buffer_size above 8k makes the
// default proxy_busy_buffers_size too large and nginx -t fails.
func writeProxyBuffers(w *confWriter, number int, size string) {
	w.line("proxy_buffer_size", w.q(size))
	w.line("proxy_buffers", strconv.Itoa(number), w.q(size))
}

func writeLua(w *confWriter, c *model.Config, o ConfOptions) {
	g := c.Global
	w.line("lua_package_path", `"$prefix/lua/?.lua;;"`)
	writeLuaDicts(w, o.LuaDicts)
	writeRouterHTTP(w)
	writeOCSPDict(w, g)
	writeMonitorDict(w, o)
	w.open("init_by_lua_block")
	w.raw(`require("resty.core")`)
	w.raw(`configuration = require("configuration")`)
	w.raw(`balancer = require("balancer")`)
	w.raw(`certificate = require("certificate")`)
	w.raw(`tls_session = require("tls_session")`)
	w.raw(`tls_session.init("` + classicClientAuthDigest(w, c) + `")`)
	writeRouterInit(w)
	w.raw(certificateInit(g))
	writeMonitorInit(w, o)
	w.raw(`configuration.init()`)
	w.close()
	w.open("init_worker_by_lua_block")
	w.raw(`balancer.init_worker()`)
	writeRouterWorker(w)
	writeMonitorWorker(w, o)
	w.close()
	// ewma learns each endpoint's response time after the answer
	w.open("log_by_lua_block")
	w.raw(`balancer.log()`)
	// the metrics read what router.rewrite() left, which router.log() drops
	writeMonitorLog(w, o)
	writeRouterLog(w)
	w.close()
	w.open("upstream", "upstream_balancer")
	// A placeholder that balancer.balance() always replaces. Not "down": nginx
	// counts only usable servers as tries, and with none a failed try could
	// never be retried on another endpoint.
	w.line("server", "0.0.0.1")
	w.open("balancer_by_lua_block")
	w.raw(`balancer.balance()`)
	w.close()
	if g.UpstreamKeepaliveConnections > 0 {
		w.line("keepalive", strconv.Itoa(g.UpstreamKeepaliveConnections))
		writeUpstreamKeepalive(w, g)
	}
	w.close()
	w.open("ssl_certificate_by_lua_block")
	w.raw(`certificate.call()`)
	w.close()
	// before OpenSSL looks up the session a client offers: a session
	// resumes only under the server name it was made for
	w.open("ssl_client_hello_by_lua_block")
	w.raw(`tls_session.client_hello()`)
	w.close()
}

func writeStatusServer(w *confWriter, o ConfOptions) {
	w.comment("status server: loopback only, it serves private keys")
	w.open("server")
	w.line("listen", w.q(o.StatusAddress))
	w.line("access_log", "off")
	if w.global().ModSecurity.Enable {
		// The payloads hold private keys: never inspected nor audit-logged.
		w.line("modsecurity", "off")
	}
	w.line("client_max_body_size", statusBodyLimit(o.LuaDicts))
	w.line("client_body_buffer_size", "64m")
	w.open("location", "=", "/healthz")
	w.line("return", "200")
	w.close()
	w.open("location", "=", "/nginx_status")
	w.line("stub_status", "on")
	w.close()
	writeMonitorLocation(w, o)
	w.open("location", "/configuration")
	w.open("content_by_lua_block")
	w.raw(`configuration.call()`)
	w.close()
	w.close()
	w.open("location", "/")
	w.line("return", "404")
	w.close()
	w.close()
}

// loadModule writes the load_module of a module file of o.ModulesDir,
// unless nginx has it built in.
func loadModule(w *confWriter, o ConfOptions, file string) {
	if slices.Contains(o.BuiltinModules, file) {
		return
	}
	w.line("load_module", w.q(o.ModulesDir+"/"+file))
}
