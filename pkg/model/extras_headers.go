package model

// Header is one HTTP header that a setting adds: a response header
// (custom-headers, add-headers) or a request header sent to the backends
// (proxy-set-headers).
type Header struct {
	// Name is an HTTP token.
	Name string
	// Value is the validated value. With Vars, each "$name" (or
	// "${name}") in it is an nginx variable of the allowlist; without, a
	// "$" is a literal dollar sign.
	Value string
	Vars  bool
}

// Mirror copies each request of a location to another URL (annotations
// mirror-target, mirror-request-body, mirror-host), as ingress-nginx does
// with nginx's mirror module. The answer of the copy is discarded.
type Mirror struct {
	// ID names the internal location of the copy; it is derived from the
	// Ingress (one per Ingress, as ingress-nginx's UID).
	ID string
	// Scheme is "http" or "https"; HostPort is the target's host and
	// port ("10.0.0.1:8080", "mirror.example.com:443").
	Scheme   string
	HostPort string
	// URI is the target's path and query as written ("" for none); it may
	// hold the variables of the mirror allowlist ($request_uri …).
	URI string
	// Host is the Host header sent to the mirror (mirror-host, else the
	// target's host name).
	Host string
	// RequestBody sends the request body with the copy (default true).
	RequestBody bool
}

// FastCGI are the settings of a location whose backend speaks FastCGI
// (backend-protocol FCGI).
type FastCGI struct {
	// Index is fastcgi-index ("" for none).
	Index string
	// Params are the fastcgi_param lines from fastcgi-params-configmap,
	// sorted by name; values may hold allowlisted variables.
	Params []Header
}

// WWWRedirect is a server that answers every request for From with a
// redirect to the same URL on To (annotation from-to-www-redirect: From is
// To with "www." added or removed).
type WWWRedirect struct {
	From, To string
	// CertificateID is To's certificate when it covers From, else "".
	CertificateID string
	// Ingress turned the redirect on.
	Ingress ObjectRef
}
