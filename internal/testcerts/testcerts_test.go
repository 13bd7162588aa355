package testcerts

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"
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

// IssueOCSP's certificate names the responder, is the one of its PEM,
// pairs with its key and verifies against the CA; OCSPResponse is a
// response about it that the CA signed.
func TestIssueOCSP(t *testing.T) {
	ca := NewCA(t)
	cert, certPEM, keyPEM := ca.IssueOCSP(t, "leaf", 42, "http://127.0.0.1:9/ocsp", "leaf.example.com")
	if len(cert.OCSPServer) != 1 || cert.OCSPServer[0] != "http://127.0.0.1:9/ocsp" {
		t.Errorf("OCSP servers %q, want the one URL", cert.OCSPServer)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pair.Certificate[0], cert.Raw) {
		t.Error("the PEM is not the parsed certificate")
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), DNSName: "leaf.example.com"}); err != nil {
		t.Errorf("does not verify against its CA: %v", err)
	}
	if err := cert.CheckSignatureFrom(ca.Certificate()); err != nil {
		t.Errorf("not signed by the CA's Certificate: %v", err)
	}
	if none, _, _ := ca.IssueOCSP(t, "leaf", 43, ""); len(none.OCSPServer) != 0 {
		t.Errorf("OCSP servers %q with no URL", none.OCSPServer)
	}

	now := time.Now().Truncate(time.Second)
	der := ca.OCSPResponse(t, ocsp.Response{Status: ocsp.Revoked, SerialNumber: big.NewInt(42), ThisUpdate: now, NextUpdate: now.Add(time.Hour), RevokedAt: now})
	resp, err := ocsp.ParseResponseForCert(der, cert, ca.Certificate())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != ocsp.Revoked || resp.SerialNumber.Int64() != 42 || !resp.NextUpdate.Equal(now.Add(time.Hour)) {
		t.Errorf("response: status %d serial %v next %v", resp.Status, resp.SerialNumber, resp.NextUpdate)
	}
	if _, err := ocsp.ParseResponseForCert(der, cert, NewCA(t).Certificate()); err == nil {
		t.Error("the response verifies as another CA's")
	}
}
