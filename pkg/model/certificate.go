package model

import "time"

// Certificate is a TLS certificate and key that Lua serves at the handshake.
type Certificate struct {
	// ID is "namespace/secret-name"; servers refer to it.
	ID string
	// Secret names the Secret it came from.
	Secret ObjectRef
	// PEM holds the certificate chain followed by the private key. It never
	// goes to stdout or a log.
	PEM string
	// Hosts are the DNS names (SANs) the certificate is valid for, sorted.
	Hosts []string
	// NotAfter is the expiry of the leaf certificate.
	NotAfter time.Time
	// Checksum is the hex SHA-256 of PEM, safe to print and compare.
	Checksum string
}
