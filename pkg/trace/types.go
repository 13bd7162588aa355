package trace

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// Request is one HTTP request as a client sends it to nginx.
type Request struct {
	// Method is the request method ("" is GET).
	Method string
	// Scheme is "http" or "https" ("" is http): the listener reached.
	Scheme string
	// Host is the Host header as sent, port included ("" for none).
	Host string
	// Port is the port the client connected to (0: 80 for http, 443
	// for https); redirects that name a port use it.
	Port int
	// Target is the request target as sent: path and query, not decoded
	// ("/a%2Fb?x=1"); "" is "/".
	Target string
	// Headers are the request headers in the order sent (Host and Cookie
	// excluded: see Host and Cookies).
	Headers []Header
	// Cookies are the cookies of the Cookie header, in order.
	Cookies []Cookie
	// ClientIP is the address nginx sees the client at ("" is 127.0.0.1).
	ClientIP string
}

// Header is a request header.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Cookie is a request cookie.
type Cookie struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HostKind says how nginx picked the server.
type HostKind string

// The kinds of server entry.
const (
	HostExact       HostKind = "exact"    // server_name of an Ingress host
	HostWildcard    HostKind = "wildcard" // a "*." host, one label
	HostAlias       HostKind = "alias"    // server-alias
	HostAliasWild   HostKind = "alias-wildcard"
	HostWWWRedirect HostKind = "www-redirect" // from-to-www-redirect
	HostDefault     HostKind = "default"      // the catch-all default server
	HostInvalid     HostKind = "invalid"      // nginx refuses the request (400)
)

// HostMatch is the server entry that serves a request.
type HostMatch struct {
	// Host is the host nginx looked up: lower case, without port or
	// trailing dot.
	Host string   `json:"host"`
	Kind HostKind `json:"kind"`
	// Server is the Hostname of the model.Server ("_" for the default
	// server; the From name of a www redirect).
	Server string `json:"server"`
	// Name is the server_name entry that matched ("" for the default
	// server).
	Name string `json:"name,omitempty"`
}

// MatchKind says how the location was chosen.
type MatchKind string

// The ways nginx picks a location.
const (
	MatchExact        MatchKind = "exact"         // "= /p"
	MatchPrefix       MatchKind = "prefix"        // the longest prefix
	MatchRegex        MatchKind = "regex"         // the first regex in file order
	MatchAutoRedirect MatchKind = "auto-redirect" // nginx's 301 to "/p/"
	MatchFallback     MatchKind = "fallback"      // the writer's own "location /"
	MatchHealthz      MatchKind = "healthz"       // the catch-all's "location /healthz": 200
	MatchInternal     MatchKind = "internal"      // an internal location: 404
)

// LocationMatch is the nginx location that serves a request and the
// Ingress path it was written for.
type LocationMatch struct {
	// Nginx is the location as nginx.conf writes it, unquoted
	// ("= /api", "/api/", "~* ^/v[0-9]+").
	Nginx string    `json:"nginx"`
	Match MatchKind `json:"match"`
	// Ingress, Path and PathType name the Ingress path (empty for the
	// fallback and internal locations).
	Ingress  string         `json:"ingress,omitempty"`
	Path     string         `json:"path,omitempty"`
	PathType model.PathType `json:"pathType,omitempty"`
	Regex    bool           `json:"regex,omitempty"`
	// Location is the model location (nil for the fallback and internal
	// locations).
	Location *model.Location `json:"-"`
}

// Step is one setting applied to the request, in nginx's order.
type Step struct {
	// Phase is the nginx phase: server-rewrite, find-config, rewrite,
	// balancer, preaccess, access, content, error-page.
	Phase string `json:"phase"`
	// Setting names the annotation or key ("ssl-redirect", "app-root", …).
	Setting string `json:"setting"`
	// Effect says what it does to this request.
	Effect string `json:"effect"`
}

// CanaryDecision is what lua/canary.lua decides for a primary backend
// with alternatives.
type CanaryDecision struct {
	Primary string `json:"primary"`
	// Chosen is the backend that serves the request when the decision is
	// not random (Rule is not "weight").
	Chosen string `json:"chosen"`
	// Rule is what decided: header, header-value, header-pattern, cookie,
	// weight (random), or none (the primary).
	Rule string `json:"rule"`
	// Canary is the alternative the rule is about ("" for none).
	Canary string `json:"canary,omitempty"`
	// Random is true when the weight decides: Canary gets the request with
	// probability Weight/WeightTotal, else the later canaries' weights or
	// the primary.
	Random      bool `json:"random,omitempty"`
	Weight      int  `json:"weight,omitempty"`
	WeightTotal int  `json:"weightTotal,omitempty"`
	// Skipped says why alternatives were not considered.
	Skipped []string `json:"skipped,omitempty"`
}

// OutcomeKind is what nginx does with the request in the end.
type OutcomeKind string

// The outcomes.
const (
	OutcomeProxy  OutcomeKind = "proxy"  // proxied to a backend
	OutcomeStatus OutcomeKind = "status" // nginx answers itself
)

// Outcome is the end of the request.
type Outcome struct {
	Kind OutcomeKind `json:"kind"`
	// Status and Location are nginx's own answer (OutcomeStatus);
	// Location is "" unless it redirects. A Location nginx makes
	// absolute itself (its 301 to "/p/", a "return 301 /p") is given
	// whole: scheme, host and, with use-port-in-redirects, the port
	// unless it is the scheme's own; without a Host header (nginx names
	// its own address) it is given as a path, and Absolute is true.
	Status   int    `json:"status,omitempty"`
	Location string `json:"location,omitempty"`
	Absolute bool   `json:"absolute,omitempty"`
	// Backend is the backend proxied to (OutcomeProxy), its Service
	// ("namespace/name:port") and endpoints ("address:port").
	Backend   string   `json:"backend,omitempty"`
	Service   string   `json:"service,omitempty"`
	Endpoints []string `json:"endpoints,omitempty"`
	// UpstreamURI is the request target the backend gets; UpstreamHost
	// its Host header ("" for the client's).
	UpstreamURI  string `json:"upstreamURI,omitempty"`
	UpstreamHost string `json:"upstreamHost,omitempty"`
	// Unless lists what this outcome depends on and trace cannot know
	// (valid credentials, an external auth service's answer, the random
	// weight of a canary, a backend's answer intercepted by an error
	// page): the outcome holds when none of them changes it.
	Unless []string `json:"unless,omitempty"`
}

// Decision is everything Route says about one request.
type Decision struct {
	// URI is the normalised path nginx matches locations against; Args
	// the query string.
	URI  string    `json:"uri"`
	Args string    `json:"args,omitempty"`
	Host HostMatch `json:"host"`
	// Server is the model server (nil for a www redirect or an invalid
	// request).
	Server   *model.Server   `json:"-"`
	Location *LocationMatch  `json:"location,omitempty"`
	Steps    []Step          `json:"steps"`
	Canary   *CanaryDecision `json:"canary,omitempty"`
	Outcome  Outcome         `json:"outcome"`
	// NotCovered names settings of the matched location that trace does
	// not evaluate (snippets, ModSecurity …): nginx may answer otherwise.
	NotCovered []string `json:"notCovered,omitempty"`
}
