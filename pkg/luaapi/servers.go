package luaapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Servers is the body of POST /configuration/servers: which certificate
// each host is served with, and the certificates themselves. It holds
// private keys: it goes to nginx's loopback endpoint only, never to stdout
// or a log (print Redacted instead).
type Servers struct {
	// Servers maps a hostname (exact or "*." wildcard) to a certificate ID.
	Servers map[string]string `json:"servers"`
	// Certificates maps a certificate ID to its PEM: the certificate chain
	// followed by the private key.
	Certificates map[string]string `json:"certificates"`
}

// MarshalJSON writes nil maps as {} so that Lua always finds objects.
func (s Servers) MarshalJSON() ([]byte, error) {
	type plain Servers
	if s.Servers == nil {
		s.Servers = map[string]string{}
	}
	if s.Certificates == nil {
		s.Certificates = map[string]string{}
	}
	return json.Marshal(plain(s))
}

// RedactedServers is Servers with every PEM replaced by its checksum: safe
// to print, to write to a file and to compare.
type RedactedServers struct {
	// Servers maps a hostname to a certificate ID, as in Servers.
	Servers map[string]string `json:"servers"`
	// CertificateChecksums maps a certificate ID to the hex SHA-256 of its
	// PEM (model.Certificate.Checksum).
	CertificateChecksums map[string]string `json:"certificateChecksums"`
}

// Redacted returns s with certificates by reference: IDs and checksums,
// never PEM.
func (s Servers) Redacted() RedactedServers {
	r := RedactedServers{
		Servers:              make(map[string]string, len(s.Servers)),
		CertificateChecksums: make(map[string]string, len(s.Certificates)),
	}
	for host, id := range s.Servers {
		r.Servers[host] = id
	}
	for id, pem := range s.Certificates {
		sum := sha256.Sum256([]byte(pem))
		r.CertificateChecksums[id] = hex.EncodeToString(sum[:])
	}
	return r
}
