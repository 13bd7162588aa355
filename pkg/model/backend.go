package model

import "strings"

// Backend is one upstream that Lua balances over: a Service port and its
// endpoints, with the balancing settings of the Ingresses that use it.
type Backend struct {
	// Name is "namespace-service-port" as in ingress-nginx.
	Name string
	// Service names the Service; empty for the built-in default backend.
	Service ObjectRef
	// Port is the Service port as written in the Ingress (number or name).
	Port string
	// Endpoints are sorted by address and port.
	Endpoints []Endpoint
	// Protocol is the backend protocol (HTTP, HTTPS, GRPC, GRPCS).
	Protocol string
	// LoadBalance is round_robin or ewma; "" means Global.LoadBalance.
	LoadBalance string
	// UpstreamHashBy selects consistent hashing when Expression is set.
	UpstreamHashBy UpstreamHashBy
	// SessionAffinity selects sticky sessions when Type is "cookie".
	SessionAffinity SessionAffinity
	// NoServer is true for canary backends: they serve no location of their
	// own, only as an alternative of a primary backend.
	NoServer bool
	// TrafficShaping says which requests a canary backend takes.
	TrafficShaping TrafficShaping
	// AlternativeBackends are the canary backends of this backend, sorted.
	AlternativeBackends []string
	// ExternalName is the DNS name of an ExternalName Service.
	ExternalName string
}

// Endpoint is one address:port that a backend sends traffic to.
type Endpoint struct {
	Address string // an IP, or a DNS name for ExternalName Services
	Port    int
}

// UpstreamHashBy is the consistent hashing configuration.
type UpstreamHashBy struct {
	Expression string // an nginx variable expression, e.g. "$request_uri"
	Subset     bool
	SubsetSize int
}

// SessionAffinity is the sticky session configuration.
type SessionAffinity struct {
	Type   string // "" or "cookie"
	Mode   string // balanced | persistent
	Cookie SessionCookie
	// Locations lists, per host, the paths (LocationPathValue of each) of
	// the locations whose Ingress asked for cookie affinity: only they set
	// the cookie, though the backend is sticky wherever it is used, as
	// ingress-nginx's cookieSessionAffinity.locations. nil when none.
	Locations map[string][]string
}

// LocationPathValue is a location's path as nginx.conf gives it to Lua in
// $location_path (the affinity cookie's default Path, and the key of
// SessionAffinity.Locations): the Ingress path without "$", which only a
// use-regex path holds and nginx would read as a variable.
func LocationPathValue(path string) string {
	return strings.ReplaceAll(path, "$", "")
}

// SessionCookie describes the affinity cookie.
type SessionCookie struct {
	Name                    string
	Path                    string
	Domain                  string
	Expires                 string // seconds, as in the annotation
	MaxAge                  string // seconds, as in the annotation
	Secure                  bool
	SameSite                string // None | Lax | Strict
	ConditionalSameSiteNone bool
	ChangeOnFailure         bool
}

// TrafficShaping is the canary policy of an alternative backend.
type TrafficShaping struct {
	Weight        int
	WeightTotal   int
	Header        string
	HeaderValue   string
	HeaderPattern string
	Cookie        string
	// HeaderPatternInvalid is true when canary-by-header-pattern was given
	// and is no valid regex: a request carrying the header then goes to
	// the primary, whatever its cookie (ingress-nginx hands the pattern to
	// Lua, whose failed match sends the request to the primary).
	HeaderPatternInvalid bool
}
