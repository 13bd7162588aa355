package render

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// certificateFromSecret checks a TLS Secret and makes the Certificate that
// Lua serves. The error says what is wrong with the Secret.
func certificateFromSecret(sec *corev1.Secret) (model.Certificate, error) {
	id := sec.Namespace + "/" + sec.Name
	if sec.Type != corev1.SecretTypeTLS {
		return model.Certificate{}, fmt.Errorf("secret %q has type %q, want %q", id, sec.Type, corev1.SecretTypeTLS)
	}
	crt, key := sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 || len(key) == 0 {
		return model.Certificate{}, fmt.Errorf("secret %q needs both %s and %s", id, corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		return model.Certificate{}, fmt.Errorf("secret %q: %v", id, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return model.Certificate{}, fmt.Errorf("secret %q: %s: %v", id, corev1.TLSCertKey, err)
	}
	pem := string(crt)
	if !strings.HasSuffix(pem, "\n") {
		pem += "\n"
	}
	pem += string(key)
	sum := sha256.Sum256([]byte(pem))
	hosts := append([]string(nil), leaf.DNSNames...)
	sort.Strings(hosts)
	return model.Certificate{
		ID:       id,
		Secret:   model.ObjectRef{Kind: "Secret", Namespace: sec.Namespace, Name: sec.Name},
		PEM:      pem,
		Hosts:    hosts,
		NotAfter: leaf.NotAfter.UTC(),
		Checksum: hex.EncodeToString(sum[:]),
	}, nil
}

// certificateCovers reports whether a certificate's SANs cover host.
func certificateCovers(c *model.Certificate, host string) bool { return c.Covers(host) }
