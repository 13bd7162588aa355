package model

// Config is the whole desired state of one nginx: what goes into nginx.conf
// (Servers, Global, Stream) and what goes to Lua (Backends, Certificates).
// Every slice is sorted so that the same objects give the same bytes.
type Config struct {
	// Global holds the controller-wide settings from the ConfigMap.
	Global Global
	// Servers are sorted by hostname; the catch-all server "_" is always present.
	Servers []Server
	// Backends are sorted by name; they are sent to Lua, not written to nginx.conf.
	Backends []Backend
	// Certificates are sorted by ID; they are sent to Lua.
	Certificates []Certificate
	// DefaultBackend is the name of the backend that answers when nothing
	// else matches and renders the custom error pages of locations without
	// a default-backend annotation: DefaultBackendName (nginx answers 404
	// itself) unless --default-backend-service names a Service.
	DefaultBackend string
	// DefaultCertificate is the ID of the certificate served when no host
	// matches (--default-ssl-certificate); "" for the self-signed one that
	// the nginx edge generates.
	DefaultCertificate string
	// Stream holds the TCP/UDP services and SSL passthrough (nginx's
	// stream module); empty unless the flags ask for them.
	Stream Stream
	// WWWRedirects are the servers of from-to-www-redirect, sorted by From.
	WWWRedirects []WWWRedirect
	// Files are the files nginx reads from disk (htpasswd, CA bundles,
	// backend client certificates), sorted by Name: see File.
	Files []File
}

// DefaultBackendName is the name of the built-in backend that answers 404
// when no rule matches, as in ingress-nginx.
const DefaultBackendName = "upstream-default-backend"

// CatchAllHost is the server name of the default server.
const CatchAllHost = "_"

// HostBefore says whether a server of hostname a comes before one of b in
// Config.Servers: the catch-all first, then by name.
func HostBefore(a, b string) bool {
	if a == CatchAllHost || b == CatchAllHost {
		return a == CatchAllHost && b != CatchAllHost
	}
	return a < b
}

// Server returns the server for hostname, or nil.
func (c *Config) Server(hostname string) *Server {
	for i := range c.Servers {
		if c.Servers[i].Hostname == hostname {
			return &c.Servers[i]
		}
	}
	return nil
}

// Backend returns the backend called name, or nil.
func (c *Config) Backend(name string) *Backend {
	for i := range c.Backends {
		if c.Backends[i].Name == name {
			return &c.Backends[i]
		}
	}
	return nil
}

// Global holds settings that apply to every server and location unless a
// location overrides them. Field names follow the ingress-nginx ConfigMap keys.
type Global struct {
	ProxyBodySize                string   // proxy-body-size, nginx size ("1m")
	ProxyConnectTimeout          int      // proxy-connect-timeout, seconds
	ProxyReadTimeout             int      // proxy-read-timeout, seconds
	ProxySendTimeout             int      // proxy-send-timeout, seconds
	ProxyBuffering               bool     // proxy-buffering on|off
	ProxyBufferSize              string   // proxy-buffer-size, nginx size
	ProxyRequestBuffering        bool     // proxy-request-buffering on|off
	SSLRedirect                  bool     // ssl-redirect
	UseGzip                      bool     // use-gzip
	GzipLevel                    int      // gzip-level
	GzipTypes                    []string // gzip-types
	GzipMinLength                int      // gzip-min-length, bytes
	KeepAlive                    int      // keep-alive, seconds (keepalive_timeout)
	KeepAliveRequests            int      // keep-alive-requests
	WorkerProcesses              string   // worker-processes: "auto" or a number
	LoadBalance                  string   // load-balance: round_robin | ewma
	UpstreamKeepaliveConnections int      // upstream-keepalive-connections
	ServerTokens                 bool     // server-tokens
	HSTS                         bool     // hsts
	HSTSMaxAge                   int      // hsts-max-age, seconds
	HSTSIncludeSubdomains        bool     // hsts-include-subdomains
	HSTSPreload                  bool     // hsts-preload
	UseForwardedHeaders          bool     // use-forwarded-headers
	// CustomHTTPErrors are the codes (sorted, unique, 300 to 599) whose
	// answers the default backend renders in every location without the
	// annotation of the same name (custom-http-errors); nil for none.
	CustomHTTPErrors []int
	// AllowCrossNamespaceResources lets an annotation name a Secret of
	// another namespace than its Ingress's (allow-cross-namespace-resources,
	// off by default as in ingress-nginx since v1.12).
	AllowCrossNamespaceResources bool
	// AddHeaders (add-headers) and ProxySetHeaders (proxy-set-headers)
	// name a ConfigMap ("namespace/name"); render resolves them into
	// ResponseHeaders (added to every answer) and BackendHeaders (sent to
	// every backend), sorted by name.
	AddHeaders      string
	ProxySetHeaders string
	ResponseHeaders []Header
	BackendHeaders  []Header
	// ProxyAddOriginalURIHeader sends backends the request's URI as sent
	// ($request_uri) in X-Original-URI (proxy-add-original-uri-header; off
	// by default, as in ingress-nginx since v1.0). The requests for error
	// pages and for the default backend get it always.
	ProxyAddOriginalURIHeader bool
	// AllowedResponseHeaders (global-allowed-response-headers) are the
	// header names a custom-headers ConfigMap may set.
	AllowedResponseHeaders []string
	// GlobalAuth is the external authentication of every location that has
	// none of its own and does not opt out (global-auth-url and the other
	// global-auth-* keys); its URL is "" for none.
	GlobalAuth ExternalAuth
	// NoAuthLocations are path prefixes whose locations skip external
	// authentication, their own and the global one (no-auth-locations).
	NoAuthLocations []string
	// ProxyGlobals are the proxy-*, client-* and limit-* keys of proxy.go
	// and configmap_client.go in pkg/annotations (see proxy.go here).
	ProxyGlobals

	// The groups of global_settings.go.
	Logging     Logging     // log-format-upstream, access-log-path, error-log-level, …
	RealIP      RealIP      // enable-real-ip, forwarded-for-header, use-proxy-protocol, …
	TLS         TLS         // ssl-protocols, ssl-ciphers, ssl-session-*, …
	Block       Blocking    // block-cidrs, block-user-agents, block-referers, hide-headers
	Tuning      Tuning      // max-worker-connections, *-hash-*, use-http2, reuse-port, …
	Redirects   Redirects   // force-ssl-redirect, no-tls-redirect-locations, http-redirect-code
	Brotli      Brotli      // enable-brotli, brotli-*
	ModSecurity ModSecurity // enable-modsecurity, enable-owasp-modsecurity-crs
	GeoIP2      GeoIP2      // use-geoip2, geoip2-autoreload-in-minutes (geoip2.go)
	Policy      Policy      // annotations-risk-level, annotation-value-word-blocklist
}

// DefaultGlobal returns the ingress-nginx defaults for every ConfigMap key
// that this controller understands.
func DefaultGlobal() Global {
	return Global{
		ProxyBodySize:                "1m",
		ProxyConnectTimeout:          5,
		ProxyReadTimeout:             60,
		ProxySendTimeout:             60,
		ProxyBuffering:               false,
		ProxyBufferSize:              "4k",
		ProxyRequestBuffering:        true,
		SSLRedirect:                  true,
		UseGzip:                      false,
		GzipLevel:                    1,
		GzipMinLength:                256,
		GzipTypes:                    []string{"application/atom+xml", "application/javascript", "application/x-javascript", "application/json", "application/rss+xml", "application/vnd.ms-fontobject", "application/x-font-ttf", "application/x-web-app-manifest+json", "application/xhtml+xml", "application/xml", "font/opentype", "image/svg+xml", "image/x-icon", "text/css", "text/javascript", "text/plain", "text/x-component"},
		KeepAlive:                    75,
		KeepAliveRequests:            1000,
		WorkerProcesses:              "auto",
		LoadBalance:                  "round_robin",
		UpstreamKeepaliveConnections: 320,
		ServerTokens:                 false,
		HSTS:                         true,
		HSTSMaxAge:                   31536000,
		HSTSIncludeSubdomains:        true,
		HSTSPreload:                  false,
		UseForwardedHeaders:          false,
		GlobalAuth:                   ExternalAuth{CacheDuration: []string{DefaultAuthCacheDuration}},
		NoAuthLocations:              []string{DefaultNoAuthLocations},
		ProxyGlobals:                 DefaultProxyGlobals(),
		Logging:                      defaultLogging(),
		RealIP:                       defaultRealIP(),
		TLS:                          defaultTLS(),
		Tuning:                       defaultTuning(),
		Redirects:                    defaultRedirects(),
		Brotli:                       defaultBrotli(),
		Policy:                       defaultPolicy(),
	}
}

// PortInRedirect says whether nginx names the client's port in the
// redirects it makes absolute for a location with settings st:
// use-port-in-redirects, else the ConfigMap's.
func (c *Config) PortInRedirect(st *LocationSettings) bool {
	if st != nil && st.UsePortInRedirects != nil {
		return *st.UsePortInRedirects
	}
	return c.Global.UsePortInRedirects
}
