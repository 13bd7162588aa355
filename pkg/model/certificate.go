package model

import (
	"strings"
	"time"
)

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

// Covers reports whether the certificate's SANs cover host. A
// "*.example.com" SAN covers one label; a wildcard host needs the same
// wildcard SAN.
func (c *Certificate) Covers(host string) bool {
	host = strings.ToLower(host)
	for _, san := range c.Hosts {
		san = strings.ToLower(san)
		if san == host {
			return true
		}
		if strings.HasPrefix(san, "*.") && !strings.HasPrefix(host, "*.") {
			if i := strings.IndexByte(host, '.'); i > 0 && host[i+1:] == san[2:] {
				return true
			}
		}
	}
	return false
}
