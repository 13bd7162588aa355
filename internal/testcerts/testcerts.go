// Package testcerts makes certificates for tests that serve TLS on
// loopback (the admission webhook, registered with a caBundle): a CA made
// for one test and serving certificates for 127.0.0.1 that it signs.
//
// It also makes what OCSP stapling tests need: certificates naming an
// OCSP responder and the CA's signed OCSP responses about them.
//
// It is a test helper: only _test.go files import it, never product code.
// It imports the standard library and golang.org/x/crypto/ocsp only.
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"
)

// CA is a self-signed certificate authority made for one test.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate: the caBundle of a webhook, or what a
	// client's pool trusts.
	PEM []byte
}

// NewCA makes a CA valid from an hour ago for a day.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubectl-ingress test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// CRL returns the CA's certificate revocation list (PEM, "X509 CRL")
// revoking the certificates of the given serials, valid from an hour ago
// for a day.
func (ca *CA) CRL(t testing.TB, number int64, revoked ...int64) []byte {
	t.Helper()
	tmpl := &x509.RevocationList{Number: big.NewInt(number), ThisUpdate: time.Now().Add(-time.Hour), NextUpdate: time.Now().Add(24 * time.Hour)}
	for _, serial := range revoked {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries, x509.RevocationListEntry{
			SerialNumber: big.NewInt(serial), RevocationTime: time.Now().Add(-time.Minute)})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, ca.cert, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der})
}

// Certificate is the CA's certificate: the issuer of what it signs.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// Pool is a certificate pool that trusts the CA.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// Issue writes a serving certificate for 127.0.0.1 with common name cn
// and the given serial, and its key, into dir as tls.crt and tls.key
// (PEM), and returns their paths.
func (ca *CA) Issue(t testing.TB, dir, cn string, serial int64) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM := ca.IssuePEM(t, cn, serial, false)
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	write(t, certFile, certPEM)
	write(t, keyFile, keyPEM)
	return certFile, keyFile
}

// Loopback makes a CA and a serving certificate for 127.0.0.1 under a
// temporary directory: the files of the server and the CA for its
// clients.
func Loopback(t testing.TB, cn string) (certFile, keyFile string, ca *CA) {
	t.Helper()
	ca = NewCA(t)
	certFile, keyFile = ca.Issue(t, t.TempDir(), cn, 2)
	return certFile, keyFile, ca
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// IssuePEM returns a certificate signed by the CA with common name cn,
// the DNS names dnsNames and the address 127.0.0.1, for a client (client
// true: extended key usage client authentication) or a server, and its
// key, both PEM.
func (ca *CA) IssuePEM(t testing.TB, cn string, serial int64, client bool, dnsNames ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	usage := x509.ExtKeyUsageServerAuth
	if client {
		usage = x509.ExtKeyUsageClientAuth
	}
	_, certPEM, keyPEM = ca.issue(t, leaf{cn: cn, serial: serial, usage: usage, dnsNames: dnsNames})
	return certPEM, keyPEM
}

// IssueOCSP returns a serving certificate signed by the CA with common
// name cn, the DNS names dnsNames, the address 127.0.0.1 and the OCSP
// responder URL ocspURL in its Authority Information Access ("" for
// none): parsed, and PEM with its key.
func (ca *CA) IssueOCSP(t testing.TB, cn string, serial int64, ocspURL string, dnsNames ...string) (cert *x509.Certificate, certPEM, keyPEM []byte) {
	t.Helper()
	return ca.issue(t, leaf{cn: cn, serial: serial, usage: x509.ExtKeyUsageServerAuth, dnsNames: dnsNames, ocspURL: ocspURL})
}

// OCSPResponse is the DER of an OCSP response of tmpl signed by the CA
// (as its own responder).
func (ca *CA) OCSPResponse(t testing.TB, tmpl ocsp.Response) []byte {
	t.Helper()
	resp, err := ocsp.CreateResponse(ca.cert, ca.cert, tmpl, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// leaf is what differs between the certificates the CA issues.
type leaf struct {
	cn       string
	serial   int64
	usage    x509.ExtKeyUsage
	dnsNames []string
	ocspURL  string // "" for none
}

// issue signs a certificate for l with a new key, valid from an hour ago
// for a day for 127.0.0.1 and l's DNS names, and returns it parsed, and
// PEM with its key.
func (ca *CA) issue(t testing.TB, l leaf) (cert *x509.Certificate, certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(l.serial),
		Subject:      pkix.Name{CommonName: l.cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{l.usage},
		DNSNames:     l.dnsNames,
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	if l.ocspURL != "" {
		tmpl.OCSPServer = []string{l.ocspURL}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
