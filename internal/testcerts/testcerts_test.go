package testcerts

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// A certificate Loopback issues loads as a key pair and verifies for
// 127.0.0.1 against the CA, and not against another CA.
func TestLoopbackVerifies(t *testing.T) {
	certFile, keyFile, ca := Loopback(t, "webhook")
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != "webhook" {
		t.Errorf("common name %q, want webhook", leaf.Subject.CommonName)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("does not verify against its CA: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("does not verify against the CA's PEM: %v", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: NewCA(t).Pool(), DNSName: "127.0.0.1"}); err == nil {
		t.Error("verifies against another CA")
	}
}
