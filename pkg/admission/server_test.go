package admission_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"

	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
)

// serve runs srv until the test ends.
func serve(t *testing.T, srv *admission.Server) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// servedName does a TLS handshake with the server, trusting only pool,
// and returns the common name of the certificate it presents.
func servedName(addr string, pool *x509.CertPool, maxVersion uint16) (string, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, MaxVersion: maxVersion})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName, nil
}

// TestServerTLS: the server speaks TLS 1.2 and later only, and serves a
// certificate rewritten in place (as cert-manager's rotation does through a
// Secret volume) without a restart.
func TestServerTLS(t *testing.T) {
	ca := testcerts.NewCA(t)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, dir, "first", 2)
	srv, err := admission.Listen("127.0.0.1:0", certFile, keyFile, http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	serve(t, srv)
	addr := srv.Addr().String()
	if name, err := servedName(addr, pool, 0); err != nil || name != "first" {
		t.Fatalf("served %q, %v; want the certificate named first", name, err)
	}
	if _, err := servedName(addr, pool, tls.VersionTLS11); err == nil {
		t.Error("a TLS 1.1 handshake succeeded; want TLS 1.2 at least")
	}

	ca.Issue(t, dir, "second", 3)
	later := time.Now().Add(time.Minute) // a new modification time, whatever the file system's resolution
	for _, f := range []string{certFile, keyFile} {
		if err := os.Chtimes(f, later, later); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		name, err := servedName(addr, pool, 0)
		if err == nil && name == "second" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still served %q (%v) 20 s after the files changed; want second", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestListenErrors: a missing or broken certificate is refused at start
// with the file named.
func TestListenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.crt")
	if _, err := admission.Listen("127.0.0.1:0", missing, missing, http.NotFoundHandler()); err == nil || !strings.Contains(err.Error(), "missing.crt") {
		t.Errorf("missing files: err = %v, want one naming missing.crt", err)
	}
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := admission.Listen("127.0.0.1:0", bad, bad, http.NotFoundHandler()); err == nil || !strings.Contains(err.Error(), "bad.pem") {
		t.Errorf("broken files: err = %v, want one naming bad.pem", err)
	}
}
