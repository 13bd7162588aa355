package nginx

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/lua"
)

const (
	// DefaultCertificateCN is the subject common name of the self-signed
	// default certificate, the same as ingress-nginx's.
	DefaultCertificateCN = "Kubernetes Ingress Controller Fake Certificate"
	// DefaultCertificateHost is its only DNS name.
	DefaultCertificateHost = "ingress.local"

	defaultCertName = "certs/default.crt"
	defaultKeyName  = "certs/default.key"
)

// Layout creates the prefix layout of lua/CONTRACT.md: the directories
// (0755), the embedded Lua modules in lua/ (0644, rewritten every time), and
// a self-signed default certificate in certs/default.crt|.key unless both
// exist. It removes the preload files of an earlier run (see Preload). As root it also makes the ancestors of the prefix searchable by
// the worker user (see the package doc).
func (in *Instance) Layout() error {
	// nginx creates the temp paths of its config (tmp/client_body, …)
	// itself and gives them to the worker user.
	for _, d := range []string{".", "lua", "certs", "logs", "tmp"} {
		p := filepath.Join(in.prefix, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("nginx: layout: %w", err)
		}
		if err := os.Chmod(p, 0o755); err != nil {
			return fmt.Errorf("nginx: layout: %w", err)
		}
	}
	if os.Geteuid() == 0 {
		if err := searchableAncestors(in.prefix); err != nil {
			return err
		}
	}
	if err := in.writeLua(); err != nil {
		return err
	}
	if err := in.clearPreload(); err != nil {
		return err
	}
	crt, key := in.path(defaultCertName), in.path(defaultKeyName)
	if exists(crt) && exists(key) {
		return nil
	}
	certPEM, keyPEM, err := SelfSignedCertificate(DefaultCertificateCN, DefaultCertificateHost)
	if err != nil {
		return err
	}
	return in.writeCertificate(certPEM, keyPEM)
}

// WriteDefaultCertificate replaces certs/default.crt|.key after checking
// that the two PEM blocks make a key pair. nginx reads them at start and
// reload: call Reload (with the same conf) for a running nginx to use them.
func (in *Instance) WriteDefaultCertificate(certPEM, keyPEM []byte) error {
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return fmt.Errorf("nginx: default certificate: %w", err)
	}
	return in.writeCertificate(certPEM, keyPEM)
}

func (in *Instance) writeCertificate(certPEM, keyPEM []byte) error {
	if err := writeAtomic(in.path(defaultKeyName), keyPEM, 0o600); err != nil {
		return err
	}
	return writeAtomic(in.path(defaultCertName), certPEM, 0o644)
}

func (in *Instance) path(slashed string) string {
	return filepath.Join(in.prefix, filepath.FromSlash(slashed))
}

func (in *Instance) writeLua() error {
	files := lua.Files()
	names, err := fs.Glob(files, "*")
	if err != nil {
		return fmt.Errorf("nginx: layout: %w", err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return fmt.Errorf("nginx: layout: %w", err)
		}
		if err := writeAtomic(filepath.Join(in.prefix, "lua", name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// searchableAncestors adds o+x to every ancestor directory of dir that
// lacks it, so that a worker running as nobody can reach the prefix.
func searchableAncestors(dir string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("nginx: layout: %w", err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(p, fi.Mode().Perm()|0o001); err != nil {
				return fmt.Errorf("nginx: layout: let the workers reach the prefix: %w", err)
			}
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// SelfSignedCertificate returns a new self-signed ECDSA P-256 certificate
// (PEM) for commonName with the DNS names hosts, valid from an hour ago for
// ten years, and its PKCS #8 private key (PEM).
func SelfSignedCertificate(commonName string, hosts ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("nginx: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("nginx: certificate serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"Acme Co"}},
		DNSNames:              hosts,
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("nginx: certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("nginx: certificate key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}
