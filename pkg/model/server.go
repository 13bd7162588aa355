package model

// Server is one nginx server block: a host and its locations.
type Server struct {
	// Hostname is an exact host, a "*." wildcard, or CatchAllHost.
	Hostname string
	// Aliases are extra server_name values (annotation server-alias).
	Aliases []string
	// CertificateID names the Certificate served for this host, "" when the
	// host has no TLS of its own (the default certificate is served then).
	CertificateID string
	// TLS is true when an Ingress lists this host under spec.tls (plain
	// HTTP is redirected), whether or not its entry gives a usable
	// certificate (CertificateID "": the default one is served).
	TLS bool
	// AppRoot is the path that "/" redirects to (annotation app-root).
	AppRoot string
	// SSLCiphers (annotation ssl-ciphers, OpenSSL cipher list) and
	// SSLPreferServerCiphers (ssl-prefer-server-ciphers) override the
	// http-level TLS settings for this host; ""/nil inherit.
	SSLCiphers             string
	SSLPreferServerCiphers *bool
	// Locations are sorted so that nginx matches the longest path first.
	Locations []Location
	// ClientAuth is the client certificate authentication of the host
	// (auth-tls-*); nil for none.
	ClientAuth *ClientAuth
	// Snippet is the translated server-snippet of the Ingress that owns
	// the host (nil for none).
	Snippet *Snippet
}

// PathType is the Ingress path type.
type PathType string

// The Ingress path types.
const (
	PathExact                  PathType = "Exact"
	PathPrefix                 PathType = "Prefix"
	PathImplementationSpecific PathType = "ImplementationSpecific"
)

// ObjectRef names a Kubernetes object.
type ObjectRef struct {
	Kind      string // Ingress, Service, Secret, ConfigMap, IngressClass, EndpointSlice
	Namespace string
	Name      string
}

// String gives "namespace/name" (or "name" for cluster-scoped objects).
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Location is one path of a server and everything that applies to it.
type Location struct {
	// Path is the path as written in the Ingress (a regex when Regex is true).
	Path     string
	PathType PathType
	// Regex is true when the location is matched as a case-insensitive
	// regex anchored at the start (use-regex or rewrite-target on any
	// Ingress of the server in the same namespace; in any namespace when
	// cross-namespace host sharing is allowed, as in ingress-nginx).
	Regex bool
	// Backend is the name of the primary Backend; "" only for locations
	// that never proxy (redirects, app-root).
	Backend string
	// Ingress is the Ingress that owns this host+path.
	Ingress ObjectRef
	// Service and ServicePort say what the path points to ("" for the
	// default backend), for messages and for diff.
	Service     string
	ServicePort string
	// HTTPSRedirect is the effective decision to redirect plain HTTP to
	// HTTPS (force-ssl-redirect, or ssl-redirect on a host with TLS).
	HTTPSRedirect bool
	// Settings are the per-location settings from annotations, never nil
	// in a built Config. The locations of one Ingress share them (at
	// 100,000 Ingresses a copy per location would hold 700 bytes each):
	// read them freely, but change them only through OwnSettings.
	Settings *LocationSettings
}

// OwnSettings gives l settings of its own, a copy of those it shares (zero
// ones when it has none), and returns them to be changed.
func (l *Location) OwnSettings() *LocationSettings {
	own := new(LocationSettings)
	if l.Settings != nil {
		*own = *l.Settings
	}
	l.Settings = own
	return own
}

// LocationSettings are the typed per-route settings that annotations set.
// A nil pointer or zero value means "as in Global", so the writer emits a
// directive only where a location differs.
type LocationSettings struct {
	RewriteTarget    string // rewrite-target; may hold $1..$9 captures
	XForwardedPrefix string // x-forwarded-prefix
	AppRoot          string // app-root: redirect "/" to this path
	SSLRedirect      *bool  // ssl-redirect
	ForceSSLRedirect *bool  // force-ssl-redirect (nil: the ConfigMap's)
	BackendProtocol  string // HTTP (default), HTTPS, GRPC, GRPCS
	UpstreamVhost    string // upstream-vhost: Host header sent upstream

	Proxy    ProxySettings
	Redirect *Redirect     // permanent-redirect / temporal-redirect
	Access   AccessControl // allowlist / denylist source ranges
	CORS     *CORS         // enable-cors and its options
	Limits   RateLimits    // limit-rps, limit-connections
	// CustomDefaultBackend is the backend that answers when the primary
	// backend has no endpoints (annotation default-backend).
	CustomDefaultBackend string
	// ErrorPages are the custom error pages (custom-http-errors) and what
	// the default backend is told (see ErrorPages).
	ErrorPages ErrorPages

	Mirror        *Mirror  // mirror-target, mirror-request-body, mirror-host
	CustomHeaders []Header // custom-headers: response headers, sorted by name
	FastCGI       *FastCGI // backend-protocol FCGI: fastcgi-index, fastcgi-params-configmap
	// Denied, when not empty, says why the location answers 503 instead
	// of proxying: a setting it asked for could not be honoured (a
	// custom-headers ConfigMap missing or not allowed), as ingress-nginx
	// denies such a location.
	Denied string

	// ExternalAuth is the location's own external authentication (auth-url
	// and the other auth-* annotations of ExternalAuth); nil for none.
	ExternalAuth *ExternalAuth
	// GlobalAuthOff opts the location out of the ConfigMap's global-auth-url
	// (enable-global-auth "false").
	GlobalAuthOff bool
	// Satisfy is "any" when either the source range or the authentication
	// lets a request in (satisfy); "" requires both (nginx's "all").
	Satisfy string
	// BasicAuth is auth-type basic (nil: none).
	BasicAuth *BasicAuth
	// ClientAuth is the client certificate authentication of the
	// location's server (a copy of Server.ClientAuth; nil: none).
	ClientAuth *ClientAuth
	// ProxySSL is the TLS client side towards the backend (nil: nginx's
	// defaults).
	ProxySSL *ProxySSL
	// Logs are enable-access-log and enable-rewrite-log.
	Logs LocationLogs
	// PreserveTrailingSlash is preserve-trailing-slash (nil: the ConfigMap's).
	PreserveTrailingSlash *bool
	// UsePortInRedirects is use-port-in-redirects (nil: the ConfigMap's;
	// Config.PortInRedirect resolves it).
	UsePortInRedirects *bool
	// ModSecurity is enable-modsecurity, enable-owasp-core-rules and
	// modsecurity-transaction-id (nil: none given).
	ModSecurity *LocationModSecurity
	// Snippet is the translated configuration-snippet (nil for none).
	Snippet *Snippet
}

// ProxySettings override the Global proxy settings; zero values inherit.
type ProxySettings struct {
	BodySize       string // proxy-body-size
	ConnectTimeout int    // proxy-connect-timeout, seconds
	SendTimeout    int    // proxy-send-timeout, seconds
	ReadTimeout    int    // proxy-read-timeout, seconds
	Buffering      *bool  // proxy-buffering
	BufferSize     string // proxy-buffer-size
	// RequestBuffering is proxy-request-buffering: read the whole request
	// body before sending it to the backend.
	RequestBuffering *bool
	// The settings of proxy.go and proxy_*.go in pkg/annotations (see
	// ProxyGlobals for their meaning); zero values and nil inherit.
	BuffersNumber       int    // proxy-buffers-number
	BusyBuffersSize     string // proxy-busy-buffers-size
	MaxTempFileSize     string // proxy-max-temp-file-size
	NextUpstream        []string
	NextUpstreamTries   *int
	NextUpstreamTimeout *int
	HTTPVersion         string // proxy-http-version
	CookieDomain        *TextRewrite
	CookiePath          *TextRewrite
	// RedirectFrom and RedirectTo are proxy-redirect-from and -to as
	// given ("" inherits the ConfigMap's); Redirect is what they give
	// together with the ConfigMap's (render sets it; nil: off).
	RedirectFrom, RedirectTo string
	Redirect                 *TextRewrite
	ClientBodyBufferSize     string // client-body-buffer-size
	// ConnectionHeader is the Connection header sent to the backend
	// (connection-proxy-header); "" for $connection_upgrade.
	ConnectionHeader string
}

// Redirect is a permanent or temporal redirect of every request of a location.
type Redirect struct {
	URL  string
	Code int // 301/308 for permanent, 302/307 for temporal
}

// AccessControl holds source ranges in CIDR form, sorted.
type AccessControl struct {
	Allow []string // whitelist-source-range / allowlist-source-range
	Deny  []string // denylist-source-range
	// DenyAll is true when an allow or deny list was given but holds an
	// entry that is not an address or network: the location then refuses
	// every request (fail closed, as ingress-nginx denies the location)
	// instead of serving without the restriction the user asked for.
	DenyAll bool
}

// CORS is the enable-cors configuration of a location.
type CORS struct {
	AllowOrigins     []string // cors-allow-origin; "*" for any
	AllowMethods     string   // cors-allow-methods
	AllowHeaders     string   // cors-allow-headers
	ExposeHeaders    string   // cors-expose-headers
	AllowCredentials bool     // cors-allow-credentials
	MaxAge           int      // cors-max-age, seconds
}

// RateLimits are per client address limits (0 means none).
type RateLimits struct {
	RPS             int // limit-rps: requests per second
	Connections     int // limit-connections: concurrent connections
	BurstMultiplier int // limit-burst-multiplier (default 5)
	// Exempt are the client networks (CIDR form, sorted) to which neither
	// limit applies (limit-allowlist / limit-whitelist): their requests get
	// an empty limit key, which nginx does not count, as in ingress-nginx.
	Exempt []string
	// RPM is limit-rpm: requests per minute (0: none).
	RPM int
	// Rate and RateAfter are limit-rate and limit-rate-after in kilobytes;
	// nil inherits the ConfigMap's.
	Rate, RateAfter *int
}
