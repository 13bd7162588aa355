package model

// Groups of Global settings from the controller ConfigMap: logging, the
// client address, TLS, blocking, nginx's tables and workers, redirects,
// compression modules and the annotation policy. Each field names its
// ingress-nginx key; DefaultGlobal holds ingress-nginx's defaults.

// Logging is the access and error logging of nginx.
type Logging struct {
	// FormatUpstream is the access log format (log-format-upstream):
	// literal text and nginx variables, each checked against an allowlist.
	FormatUpstream string
	// EscapeJSON and EscapeNone choose the escaping of variable values in
	// the access log (log-format-escape-json, log-format-escape-none; none
	// wins when both are set, as in ingress-nginx).
	EscapeJSON bool
	EscapeNone bool
	// AccessLogPath (access-log-path) and HTTPAccessLogPath
	// (http-access-log-path, which wins for HTTP when set) name the access
	// log file: absolute, or relative to the nginx prefix.
	AccessLogPath     string
	HTTPAccessLogPath string
	// ErrorLogPath (error-log-path) and ErrorLogLevel (error-log-level).
	ErrorLogPath  string
	ErrorLogLevel string
	// SkipURLs are request URIs not logged (skip-access-log-urls).
	SkipURLs []string
	// DefaultBackend logs the requests the default backend answers
	// (enable-access-log-for-default-backend).
	DefaultBackend bool
	// DisableAccessLog (disable-access-log) and DisableHTTPAccessLog
	// (disable-http-access-log) turn the HTTP access log off.
	DisableAccessLog     bool
	DisableHTTPAccessLog bool
	// AccessLogParams are the buffer, gzip and flush parameters of the
	// access log file (access-log-params), as nginx writes them
	// ("buffer=16k", "gzip=5", "flush=1m").
	AccessLogParams []string
	// Syslog sends the access log to a syslog server (enable-syslog,
	// syslog-host, syslog-port) instead of the file.
	Syslog     bool
	SyslogHost string // an IP address
	SyslogPort int
}

// DefaultLogFormatUpstream is ingress-nginx's access log format.
const DefaultLogFormatUpstream = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`

// RealIP is where the client address comes from and what the backends are
// told about it.
type RealIP struct {
	// EnableRealIP takes the client address from ForwardedForHeader of a
	// peer in ProxyRealIPCIDR (enable-real-ip).
	EnableRealIP bool
	// ForwardedForHeader is the header that holds the client address
	// (forwarded-for-header), "X-Forwarded-For" by default.
	ForwardedForHeader string
	// ProxyRealIPCIDR are the trusted peers (proxy-real-ip-cidr).
	ProxyRealIPCIDR []string
	// UseProxyProtocol makes the HTTP and HTTPS listeners expect a PROXY
	// protocol header (use-proxy-protocol): the client address is its.
	UseProxyProtocol bool
	// ComputeFullForwardedFor appends the client address to the client's
	// X-Forwarded-For instead of replacing it (compute-full-forwarded-for).
	ComputeFullForwardedFor bool
	// GenerateRequestID makes a request ID when the client sends no
	// X-Request-ID (generate-request-id).
	GenerateRequestID bool
}

// TLS are the TLS settings of the HTTPS servers.
type TLS struct {
	Protocols        []string // ssl-protocols
	Ciphers          string   // ssl-ciphers (TLS 1.2 and below)
	SessionCache     bool     // ssl-session-cache
	SessionCacheSize string   // ssl-session-cache-size, nginx size
	SessionTimeout   string   // ssl-session-timeout, nginx time
	SessionTickets   bool     // ssl-session-tickets
	BufferSize       string   // ssl-buffer-size, nginx size
	ECDHCurve        string   // ssl-ecdh-curve: "auto" or curves joined by ":"
	EarlyData        bool     // ssl-early-data
	RejectHandshake  bool     // ssl-reject-handshake: the default server refuses unknown names
	// EnableOCSP staples the OCSP responses of the served certificates
	// (enable-ocsp): Lua fetches and caches them (lua/ocsp_stapling.lua).
	EnableOCSP bool
	// DHParamSecret is the Secret of ssl-dh-param (Namespace "" is the
	// ConfigMap's); render reads its dhparam.pem into DHParamFile, the
	// model.File name of ssl_dhparam ("" when unset or refused).
	DHParamSecret ObjectRef
	DHParamFile   string
	// SessionTicketKey is the decoded ssl-session-ticket-key (48 or 80
	// bytes); render writes it to SessionTicketKeyFile (a private
	// model.File) when SessionTickets is on.
	SessionTicketKey     []byte
	SessionTicketKeyFile string
}

// Blocking refuses clients and hides backend headers.
type Blocking struct {
	// CIDRs are denied everywhere (block-cidrs): 403.
	CIDRs []string
	// UserAgents and Referers answer 403 to a request whose User-Agent or
	// Referer matches an entry (block-user-agents, block-referers): an
	// exact string, or a regex after "~" (case-sensitive) or "~*".
	UserAgents []string
	Referers   []string
	// HideHeaders are backend response headers not passed to clients
	// (hide-headers).
	HideHeaders []string
	// AllowBackendServerHeader passes the backend's Server header
	// (allow-backend-server-header).
	AllowBackendServerHeader bool
}

// Tuning holds nginx's workers, hash tables, listeners and keep-alive to
// backends.
type Tuning struct {
	MaxWorkerConnections  int    // max-worker-connections; 0: MaxWorkerOpenFiles
	MaxWorkerOpenFiles    int    // max-worker-open-files; 0: the writer's default
	WorkerShutdownTimeout int    // worker-shutdown-timeout, seconds
	WorkerCPUAffinity     string // worker-cpu-affinity: "", "auto" or bit masks
	MultiAccept           bool   // enable-multi-accept
	// DebugConnections are the client addresses whose connections nginx
	// logs at debug level (debug-connections): IPs or CIDRs.
	DebugConnections []string
	// Hash tables: a value too small for the names nginx.conf holds is
	// raised by the writer (a warning, never a failing nginx -t).
	ServerNameHashMaxSize     int // server-name-hash-max-size
	ServerNameHashBucketSize  int // server-name-hash-bucket-size; 0: as the names need
	VariablesHashBucketSize   int // variables-hash-bucket-size
	VariablesHashMaxSize      int // variables-hash-max-size
	MapHashBucketSize         int // map-hash-bucket-size
	UseHTTP2                  bool
	HTTP2MaxConcurrentStreams int      // http2-max-concurrent-streams
	ReusePort                 bool     // reuse-port
	DisableIPv6               bool     // disable-ipv6: no [::] listeners even where the pod has IPv6
	BindAddresses             []string // bind-address: IPv4 and IPv6 addresses; nil: all
	DefaultType               string   // default-type
	// Keep-alive to backends (upstream-keepalive-*).
	UpstreamKeepaliveTime     int // seconds
	UpstreamKeepaliveTimeout  int // seconds
	UpstreamKeepaliveRequests int
}

// Redirects are the HTTPS redirect settings of every location.
type Redirects struct {
	// ForceSSLRedirect redirects plain HTTP to HTTPS even for hosts
	// without TLS, unless an Ingress says otherwise (force-ssl-redirect).
	ForceSSLRedirect bool
	// NoTLSRedirectLocations are path prefixes never redirected to HTTPS
	// (no-tls-redirect-locations).
	NoTLSRedirectLocations []string
	// HTTPRedirectCode is the status of the HTTPS redirect
	// (http-redirect-code): 301, 302, 307 or 308.
	HTTPRedirectCode int
}

// Brotli is the brotli compression of answers (Debian's
// libnginx-mod-http-brotli-filter, loaded only when Enable is set).
type Brotli struct {
	Enable    bool     // enable-brotli
	Level     int      // brotli-level
	MinLength int      // brotli-min-length
	Types     []string // brotli-types
}

// ModSecurity is the ModSecurity web application firewall (Debian's
// libnginx-mod-http-modsecurity, loaded only when Enable is set) with the
// controller's fixed rules (DetectionOnly, as ingress-nginx's default) and,
// with OWASPCoreRules, the OWASP Core Rule Set (Debian's modsecurity-crs).
type ModSecurity struct {
	Enable         bool // enable-modsecurity
	OWASPCoreRules bool // enable-owasp-modsecurity-crs (only with Enable)
}

// Policy is the ConfigMap's policy on annotations.
type Policy struct {
	// RiskLevel is the highest risk of annotation accepted
	// (annotations-risk-level): Low, Medium, High or Critical.
	RiskLevel string
	// WordBlocklist are words an annotation value may not contain
	// (annotation-value-word-blocklist).
	WordBlocklist []string
	// DisableSnippets is allow-snippet-annotations: "false": every
	// configuration-snippet and server-snippet is a Problem instead of
	// being translated (pkg/snippet).
	DisableSnippets bool
}

// DefaultNoTLSRedirectLocations is ingress-nginx's no-tls-redirect-locations.
const DefaultNoTLSRedirectLocations = "/.well-known/acme-challenge"

// defaultLogging is ingress-nginx's logging, with the files under the
// nginx prefix.
func defaultLogging() Logging {
	return Logging{
		FormatUpstream: DefaultLogFormatUpstream,
		AccessLogPath:  "logs/access.log",
		ErrorLogPath:   "logs/error.log",
		ErrorLogLevel:  "notice",
		SyslogPort:     514,
	}
}

func defaultRealIP() RealIP {
	return RealIP{
		ForwardedForHeader: "X-Forwarded-For",
		ProxyRealIPCIDR:    []string{"0.0.0.0/0"},
		GenerateRequestID:  true,
	}
}

// DefaultSSLCiphers is ingress-nginx's ssl-ciphers.
const DefaultSSLCiphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384"

func defaultTLS() TLS {
	return TLS{
		Protocols:        []string{"TLSv1.2", "TLSv1.3"},
		Ciphers:          DefaultSSLCiphers,
		SessionCache:     true,
		SessionCacheSize: "10m",
		SessionTimeout:   "10m",
		BufferSize:       "4k",
		ECDHCurve:        "auto",
	}
}

func defaultTuning() Tuning {
	return Tuning{
		MaxWorkerConnections:      16384,
		WorkerShutdownTimeout:     240,
		MultiAccept:               true,
		ServerNameHashMaxSize:     1024,
		VariablesHashBucketSize:   256,
		VariablesHashMaxSize:      2048,
		MapHashBucketSize:         64,
		UseHTTP2:                  true,
		HTTP2MaxConcurrentStreams: 128,
		ReusePort:                 true,
		DefaultType:               "text/html",
		UpstreamKeepaliveTime:     3600,
		UpstreamKeepaliveTimeout:  60,
		UpstreamKeepaliveRequests: 10000,
	}
}

func defaultRedirects() Redirects {
	return Redirects{
		NoTLSRedirectLocations: []string{DefaultNoTLSRedirectLocations},
		HTTPRedirectCode:       308,
	}
}

// defaultBrotli is ingress-nginx's brotli settings (off).
func defaultBrotli() Brotli {
	return Brotli{Level: 4, MinLength: 20, Types: []string{"application/xml+rss", "application/atom+xml", "application/javascript", "application/x-javascript", "application/json", "application/rss+xml", "application/vnd.ms-fontobject", "application/x-font-ttf", "application/x-web-app-manifest+json", "application/xhtml+xml", "application/xml", "font/opentype", "image/svg+xml", "image/x-icon", "text/css", "text/javascript", "text/plain", "text/x-component"}}
}

func defaultPolicy() Policy {
	return Policy{RiskLevel: "Critical"}
}
