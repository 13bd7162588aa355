package model

// The proxy and client settings of the ConfigMap that pkg/annotations'
// proxy*.go and configmap_client.go read, and the typed values of their
// annotations. Sizes are nginx sizes as validated there ("8k", "1m", bytes
// without a suffix); each is written only where it differs from what nginx
// would use anyway.

// ProxyGlobals are the ConfigMap keys of the proxy and client families
// added with issue 12 (embedded in Global).
type ProxyGlobals struct {
	ProxyBuffersNumber int // proxy-buffers-number (proxy_buffers N size)
	// ProxyBusyBuffersSize is proxy-busy-buffers-size; "" for nginx's
	// default (twice the buffer size).
	ProxyBusyBuffersSize string
	// ProxyMaxTempFileSize is proxy-max-temp-file-size ("0": no temporary
	// files).
	ProxyMaxTempFileSize string
	// ProxyNextUpstream are the cases of proxy-next-upstream ("error",
	// "timeout", "http_502", …, or "off" alone), in the order given;
	// RetryNonIdempotent (retry-non-idempotent) adds non_idempotent.
	ProxyNextUpstream        []string
	RetryNonIdempotent       bool
	ProxyNextUpstreamTries   int    // proxy-next-upstream-tries (0: no limit)
	ProxyNextUpstreamTimeout int    // proxy-next-upstream-timeout, seconds (0: no limit)
	ProxyHTTPVersion         string // proxy-http-version: "1.0" or "1.1"
	// ProxyCookieDomain and ProxyCookiePath are proxy-cookie-domain and
	// proxy-cookie-path (off by default).
	ProxyCookieDomain TextRewrite
	ProxyCookiePath   TextRewrite
	// ProxyRedirectFrom and ProxyRedirectTo are proxy-redirect-from and
	// -to as given ("off" by default); render combines them with a
	// location's (ProxySettings.Redirect).
	ProxyRedirectFrom, ProxyRedirectTo string
	// PreserveTrailingSlash keeps the trailing "/" of the URI in the HTTPS
	// redirect (preserve-trailing-slash; ingress-nginx drops it by default).
	PreserveTrailingSlash bool
	// UsePortInRedirects is use-port-in-redirects: when nginx makes a
	// redirect absolute (a Location that starts with "/", its own 301 to
	// a directory), it names the port the client connected to unless it
	// is the scheme's own (nginx's port_in_redirect on). ingress-nginx
	// writes port_in_redirect off by default: no port, whatever it is.
	UsePortInRedirects bool

	ClientBodyBufferSize       string // client-body-buffer-size
	ClientBodyTimeout          int    // client-body-timeout, seconds
	ClientHeaderBufferSize     string // client-header-buffer-size
	ClientHeaderTimeout        int    // client-header-timeout, seconds
	LargeClientHeaderBuffers   Buffers
	EnableUnderscoresInHeaders bool // enable-underscores-in-headers
	IgnoreInvalidHeaders       bool // ignore-invalid-headers

	LimitReqStatusCode  int // limit-req-status-code
	LimitConnStatusCode int // limit-conn-status-code
	// LimitRate and LimitRateAfter are limit-rate and limit-rate-after in
	// kilobytes (per second for the rate): the default of the annotations
	// of the same names (0: no limit).
	LimitRate      int
	LimitRateAfter int
	// ProxyStreamResponses is proxy-stream-responses: the answers a UDP
	// service's backend sends per datagram (proxy_responses).
	ProxyStreamResponses int
}

// DefaultProxyGlobals are ingress-nginx's defaults of ProxyGlobals.
func DefaultProxyGlobals() ProxyGlobals {
	return ProxyGlobals{
		ProxyBuffersNumber:       4,
		ProxyMaxTempFileSize:     "1024m",
		ProxyNextUpstream:        []string{"error", "timeout"},
		ProxyNextUpstreamTries:   3,
		ProxyHTTPVersion:         "1.1",
		ProxyCookieDomain:        TextRewrite{Off: true},
		ProxyCookiePath:          TextRewrite{Off: true},
		ProxyRedirectFrom:        "off",
		ProxyRedirectTo:          "off",
		ClientBodyBufferSize:     "8k",
		ClientBodyTimeout:        60,
		ClientHeaderBufferSize:   "1k",
		ClientHeaderTimeout:      60,
		LargeClientHeaderBuffers: Buffers{Number: 4, Size: "8k"},
		IgnoreInvalidHeaders:     true,
		LimitReqStatusCode:       503,
		LimitConnStatusCode:      503,
		ProxyStreamResponses:     1,
	}
}

// TextRewrite is a rewrite of a response header's text by nginx
// (proxy_cookie_domain, proxy_cookie_path, proxy_redirect): Off, Default
// (proxy_redirect's "default": the proxy_pass URL to the location), or
// From replaced by To. Both are literal text (no regex, no variable).
type TextRewrite struct {
	Off      bool
	Default  bool
	From, To string
}

// Buffers is a number of buffers of one size (large_client_header_buffers).
type Buffers struct {
	Number int
	Size   string
}

// LocationLogs are the logging settings of a location.
type LocationLogs struct {
	// AccessOff turns the access log off (enable-access-log "false").
	AccessOff bool
	// Rewrite logs the rewrites at notice level to the error log
	// (enable-rewrite-log).
	Rewrite bool
}
