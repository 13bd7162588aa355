package luaapi

import (
	"encoding/json"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Backend is one element of the array that POST /configuration/backends
// takes and GET returns: an upstream and how Lua balances over it. The JSON
// names are those of ingress-nginx's ingress.Backend.
type Backend struct {
	// Name is "namespace-service-port".
	Name string `json:"name"`
	// Service is the Service behind the backend; nil for the built-in
	// default backend.
	Service *Service `json:"service,omitempty"`
	// Port is the Service port as the Ingress names it.
	Port           Port       `json:"port"`
	SSLPassthrough bool       `json:"sslPassthrough"`
	Endpoints      []Endpoint `json:"endpoints"`
	// SessionAffinity turns on sticky sessions when its Name is "cookie".
	SessionAffinity SessionAffinityConfig `json:"sessionAffinityConfig"`
	// UpstreamHashBy turns on consistent hashing when its expression is set.
	UpstreamHashBy UpstreamHashByConfig `json:"upstreamHashByConfig"`
	// LoadBalance is round_robin or ewma.
	LoadBalance string `json:"load-balance,omitempty"`
	// NoServer is true for canary backends, which only serve as an
	// alternative of a primary backend.
	NoServer             bool                 `json:"noServer"`
	TrafficShapingPolicy TrafficShapingPolicy `json:"trafficShapingPolicy"`
	// AlternativeBackends are the names of this backend's canary backends.
	AlternativeBackends []string `json:"alternativeBackends"`

	// from and fromLoadBalance, in a backend of FromModel, are the model
	// backend it was made from and its Config's default load-balance: a
	// Client's cache compares those (backends_cache.go). They are not
	// sent, and Equal does not read them.
	from            *model.Backend
	fromLoadBalance string
}

// MarshalJSON writes nil lists as [] so that the same backend always gives
// the same bytes (and Lua always finds an array).
func (b Backend) MarshalJSON() ([]byte, error) {
	type plain Backend // plain has no methods: no recursion
	if b.Endpoints == nil {
		b.Endpoints = []Endpoint{}
	}
	if b.AlternativeBackends == nil {
		b.AlternativeBackends = []string{}
	}
	return json.Marshal(plain(b))
}

// Service is the part of a core/v1 Service that Lua reads: its name and
// whether it is an ExternalName Service (whose endpoint addresses are DNS
// names that Lua resolves).
type Service struct {
	Metadata ServiceMetadata `json:"metadata"`
	Spec     ServiceSpec     `json:"spec"`
}

// ServiceMetadata names a Service.
type ServiceMetadata struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// ServiceSpec holds the Service type ("ExternalName" or empty when it does
// not matter to Lua) and the external DNS name.
type ServiceSpec struct {
	Type         string `json:"type,omitempty"`
	ExternalName string `json:"externalName,omitempty"`
}

// ServiceTypeExternalName is the Service type whose endpoints Lua resolves
// by DNS.
const ServiceTypeExternalName = "ExternalName"

// Endpoint is one address:port of a backend. The port is a string on the
// wire, as in ingress-nginx.
type Endpoint struct {
	Address string `json:"address"`
	Port    string `json:"port"`
}

// SessionAffinityConfig is the sticky session configuration.
type SessionAffinityConfig struct {
	// Name is the affinity type: "cookie" or "".
	Name string `json:"name"`
	// Mode is balanced or persistent.
	Mode                  string                `json:"mode"`
	CookieSessionAffinity CookieSessionAffinity `json:"cookieSessionAffinity"`
}

// CookieSessionAffinity describes the affinity cookie. Empty values are
// left out, as in ingress-nginx: Lua treats a missing path, secure or
// samesite as "use the default", which an empty value would not be.
type CookieSessionAffinity struct {
	Name                    string `json:"name"`
	Expires                 string `json:"expires,omitempty"`
	MaxAge                  string `json:"maxage,omitempty"`
	Path                    string `json:"path,omitempty"`
	Domain                  string `json:"domain,omitempty"`
	Secure                  bool   `json:"secure,omitempty"`
	SameSite                string `json:"samesite,omitempty"`
	ConditionalSameSiteNone bool   `json:"conditional_samesite_none,omitempty"`
	// ChangeOnFailure is "change_on_failure" on the wire, as ingress-nginx's
	// Go type and balancer/sticky.lua spell it.
	ChangeOnFailure bool `json:"change_on_failure,omitempty"`
	// Locations maps a host to the paths ($location_path) of the locations
	// that set the cookie, as ingress-nginx's field: the locations of the
	// Ingresses that asked for affinity. Without it no location sets one.
	Locations map[string][]string `json:"locations,omitempty"`
}

// UpstreamHashByConfig is the consistent hashing configuration. The fields
// are left out when empty, as in ingress-nginx: Lua picks the chash
// balancer whenever "upstream-hash-by" is present, even if empty.
type UpstreamHashByConfig struct {
	UpstreamHashBy           string `json:"upstream-hash-by,omitempty"`
	UpstreamHashBySubset     bool   `json:"upstream-hash-by-subset,omitempty"`
	UpstreamHashBySubsetSize int    `json:"upstream-hash-by-subset-size,omitempty"`
}

// TrafficShapingPolicy says which requests a canary backend takes.
type TrafficShapingPolicy struct {
	Weight        int    `json:"weight"`
	WeightTotal   int    `json:"weightTotal"`
	Header        string `json:"header"`
	HeaderValue   string `json:"headerValue"`
	HeaderPattern string `json:"headerPattern"`
	Cookie        string `json:"cookie"`
	// HeaderPatternInvalid (ours; ingress-nginx hands Lua the invalid
	// pattern instead) sends a request carrying the header to the primary.
	HeaderPatternInvalid bool `json:"headerPatternInvalid,omitempty"`
}
