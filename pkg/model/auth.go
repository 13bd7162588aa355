package model

// Settings that read a Secret: basic authentication (auth-type basic),
// client certificates (auth-tls-*) and the TLS client side towards a
// backend (proxy-ssl-*). Annotations fill the options and the Secret
// reference; render reads the Secret, makes the Files and fills their
// names, or sets LocationSettings.Denied when it cannot.

// BasicAuth is auth-type basic: nginx checks the user and password of
// every request against an htpasswd file.
type BasicAuth struct {
	// Realm is auth-realm, sent in WWW-Authenticate.
	Realm string
	// Secret is auth-secret (the Ingress namespace when none is given).
	Secret ObjectRef
	// Map is true for auth-secret-type auth-map (each key a user, each
	// value its password hash), false for auth-file (key "auth" holds the
	// htpasswd lines).
	Map bool
	// File is the name of the htpasswd File (Config.Files); set by render.
	File string
}

// ClientAuth is client certificate authentication (auth-tls-*): a
// setting of the server (the host), that the oldest Ingress of the host
// with auth-tls-secret decides, as in ingress-nginx. Every location of the
// server carries a copy (the headers sent upstream and the CN check are
// per location).
type ClientAuth struct {
	// Secret is auth-tls-secret: ca.crt (required) and ca.crl (optional).
	Secret ObjectRef
	// CAFile and CRLFile are the names of the Files; set by render.
	CAFile  string
	CRLFile string
	// Verify is auth-tls-verify-client: on, off, optional or optional_no_ca.
	Verify string
	// Depth is auth-tls-verify-depth.
	Depth int
	// ErrorPage is auth-tls-error-page: where a failed verification is
	// redirected (else nginx answers 400).
	ErrorPage string
	// PassCertificate is auth-tls-pass-certificate-to-upstream: the
	// client certificate (URL-encoded PEM) in the ssl-client-cert header.
	PassCertificate bool
	// MatchCN is auth-tls-match-cn: a regex ("CN=…") that the subject DN
	// of the client certificate must match, else 403.
	MatchCN string
	// Ingress is the Ingress that set it for the host.
	Ingress ObjectRef
}

// ProxySSL is the TLS client side towards an HTTPS (or GRPCS) backend
// (proxy-ssl-*).
type ProxySSL struct {
	// Secret is proxy-ssl-secret: tls.crt and tls.key (a client
	// certificate for the backend) and/or ca.crt (the CA that signs the
	// backend's certificate). The zero ObjectRef when none is given.
	Secret ObjectRef
	// CertFile is the name of the File that holds tls.crt and tls.key;
	// CAFile the name of the File that holds ca.crt; set by render, ""
	// when the Secret has no such keys.
	CertFile string
	CAFile   string
	// Verify is proxy-ssl-verify: check the backend's certificate
	// against CAFile.
	Verify bool
	// VerifyDepth is proxy-ssl-verify-depth.
	VerifyDepth int
	// Name is proxy-ssl-name: the name checked in the backend's
	// certificate and sent by SNI; "" for the host of the proxied URL.
	Name string
	// ServerName is proxy-ssl-server-name: send SNI.
	ServerName bool
	// Protocols is proxy-ssl-protocols ("TLSv1.2 TLSv1.3").
	Protocols string
	// Ciphers is proxy-ssl-ciphers, in OpenSSL's format.
	Ciphers string
}
