package e2e

// OCSP stapling (ConfigMap enable-ocsp, lua/ocsp_stapling.lua) through a
// real nginx: a test CA (internal/testcerts) issues a certificate whose
// Authority Information Access names an OCSP responder on loopback
// (golang.org/x/crypto/ocsp);
// after the first handshake starts the fetch, the handshakes staple the
// responder's response; with enable-ocsp "false" nothing is asked or
// stapled; with the responder down or hanging, handshakes go on without a
// staple and never wait.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
)

const ocspHost = "ocsp.example.com"

// ocspSecret issues a serving certificate for host with the OCSP
// responder URL ocspURL, and returns it and the YAML of its Secret, whose
// tls.crt holds the certificate and then the CA (the issuer the OCSP
// request needs).
func ocspSecret(t *testing.T, ca *testcerts.CA, secret, host, ocspURL string, serial int64) (*x509.Certificate, string) {
	t.Helper()
	cert, certPEM, keyPEM := ca.IssueOCSP(t, host, serial, ocspURL, host)
	crt := append(certPEM, ca.PEM...)
	return cert, fmt.Sprintf(`apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata: {name: %s, namespace: e2e}
data:
  tls.crt: %s
  tls.key: %s
---
`, secret, base64.StdEncoding.EncodeToString(crt), base64.StdEncoding.EncodeToString(keyPEM))
}

// ocspResponder answers OCSP POSTs for the CA's certificates: good, valid
// for an hour. It counts the requests and the serials asked.
type ocspResponder struct {
	url      string
	requests atomic.Int64
}

func startOCSPResponder(t *testing.T, ca *testcerts.CA) *ocspResponder {
	t.Helper()
	r := &ocspResponder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		body, err := io.ReadAll(io.LimitReader(req.Body, 1<<16))
		if err != nil || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/ocsp-request" {
			http.Error(w, "want a POST of application/ocsp-request", http.StatusBadRequest)
			return
		}
		q, err := ocsp.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		now := time.Now()
		resp := ca.OCSPResponse(t, ocsp.Response{
			Status:       ocsp.Good,
			SerialNumber: q.SerialNumber,
			ThisUpdate:   now.Add(-time.Minute),
			NextUpdate:   now.Add(time.Hour),
		})
		w.Header().Set("Content-Type", "application/ocsp-response")
		_, _ = w.Write(resp)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/ocsp"
	return r
}

// ocspManifests are the ConfigMap with enable-ocsp, the Secret and an
// Ingress serving ocspHost over TLS.
// port is the backend's.
func ocspManifests(port int, enable, secret string) string {
	return secret + headersManifests(port, ocspHost, "ocsp-tls", map[string]string{"enable-ocsp": enable})
}

// handshake does a TLS handshake with SNI ocspHost, asking for the
// certificate status as Go's client always does, and returns the leaf
// and the stapled response (nil when none). It fails the test when the
// handshake does not complete within 2 s.
func (n *liveNginx) handshake(t *testing.T) (*x509.Certificate, []byte) {
	t.Helper()
	d := &net.Dialer{Timeout: 2 * time.Second, Deadline: time.Now().Add(2 * time.Second)}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
		ServerName:         ocspHost,
		InsecureSkipVerify: true, // the test reads the staple, not the trust
	})
	if err != nil {
		t.Fatalf("TLS handshake with SNI %s: %v", ocspHost, err)
	}
	defer conn.Close()
	st := conn.ConnectionState()
	return st.PeerCertificates[0], st.OCSPResponse
}

// waitStaple repeats handshakes until one carries a staple of leaf, for
// at most 10 s, and returns it.
func (n *liveNginx) waitStaple(t *testing.T, leaf *x509.Certificate) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, staple := n.handshake(t)
		if staple != nil && got.SerialNumber.Cmp(leaf.SerialNumber) == 0 {
			return staple
		}
		if time.Now().After(deadline) {
			t.Fatalf("no OCSP staple for serial %v after 10 s of handshakes", leaf.SerialNumber)
		}
	}
}

func TestOCSPStapling(t *testing.T) {
	ca := testcerts.NewCA(t)
	responder := startOCSPResponder(t, ca)
	leaf, secret := ocspSecret(t, ca, "ocsp-tls", ocspHost, responder.url, 4242)
	port := echoBackend(t)
	n := startNginx(t, ocspManifests(port, "true", secret))
	if !strings.Contains(string(n.conf), "lua_shared_dict ocsp_response_cache 5m;") {
		t.Fatal("nginx.conf does not declare ocsp_response_cache")
	}

	staple := n.waitStaple(t, leaf)
	resp, err := ocsp.ParseResponseForCert(staple, leaf, ca.Certificate())
	if err != nil {
		t.Fatalf("the staple does not parse as a response for the certificate signed by the CA: %v", err)
	}
	if resp.Status != ocsp.Good || resp.SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Errorf("staple: status %d serial %v, want good (%d) for serial %v", resp.Status, resp.SerialNumber, ocsp.Good, leaf.SerialNumber)
	}
	// The handshakes after it staple the cached response: the responder
	// was asked once, by one worker, whatever the number of handshakes.
	for range 10 {
		if _, s := n.handshake(t); s == nil {
			t.Fatal("a handshake after the fetch has no staple")
		}
	}
	if got := responder.requests.Load(); got != 1 {
		t.Errorf("the responder got %d requests, want 1 (the response is cached and shared by the workers)", got)
	}
	if status, _ := n.getTLS(t, ocspHost, "/"); status != 200 {
		t.Errorf("GET https://%s/ = %d, want 200", ocspHost, status)
	}

	// A rotated certificate (same Secret, new serial) gets its own
	// response, without a reload.
	rotated, secret2 := ocspSecret(t, ca, "ocsp-tls", ocspHost, responder.url, 4343)
	n.push(t, ocspManifests(port, "true", secret2))
	staple = n.waitStaple(t, rotated)
	if resp, err := ocsp.ParseResponseForCert(staple, rotated, ca.Certificate()); err != nil || resp.SerialNumber.Cmp(rotated.SerialNumber) != 0 {
		t.Errorf("after the rotation the staple is not the new certificate's: %v", err)
	}
}

func TestOCSPStaplingOff(t *testing.T) {
	ca := testcerts.NewCA(t)
	responder := startOCSPResponder(t, ca)
	_, secret := ocspSecret(t, ca, "ocsp-tls", ocspHost, responder.url, 7)
	n := startNginx(t, ocspManifests(echoBackend(t), "false", secret))
	if strings.Contains(string(n.conf), "ocsp_response_cache") || strings.Contains(string(n.conf), "ocsp_stapling") {
		t.Error("nginx.conf declares OCSP stapling with enable-ocsp false")
	}
	for range 5 {
		if _, s := n.handshake(t); s != nil {
			t.Fatal("a staple with enable-ocsp false")
		}
	}
	if status, _ := n.getTLS(t, ocspHost, "/"); status != 200 {
		t.Errorf("GET https://%s/ = %d, want 200", ocspHost, status)
	}
	if got := responder.requests.Load(); got != 0 {
		t.Errorf("the responder got %d requests with enable-ocsp false", got)
	}
}

// TestOCSPResponderDown: a responder that refuses connections, and one
// that accepts and never answers: handshakes complete at once without a
// staple; the refused fetch is logged and not retried at once.
func TestOCSPResponderDown(t *testing.T) {
	ca := testcerts.NewCA(t)
	refused := "http://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/ocsp"
	_, secret := ocspSecret(t, ca, "ocsp-tls", ocspHost, refused, 11)
	n := startNginx(t, ocspManifests(echoBackend(t), "true", secret))
	logPath := filepath.Join(n.inst.Prefix(), "logs", "error.log")
	n.handshake(t)
	deadline := time.Now().Add(10 * time.Second)
	for !logHas(t, logPath, "ocsp_stapling: ask "+refused) {
		if time.Now().After(deadline) {
			t.Fatal("the failed fetch was not logged within 10 s")
		}
		if _, s := n.handshake(t); s != nil {
			t.Fatal("a staple from a responder that refuses connections")
		}
	}
	for range 5 {
		if _, s := n.handshake(t); s != nil {
			t.Fatal("a staple from a responder that refuses connections")
		}
	}
	if c := strings.Count(readLog(t, logPath), "ocsp_stapling: ask "+refused); c != 1 {
		t.Errorf("the fetch was tried %d times, want 1 (a failure is cached for a minute)", c)
	}
	if status, _ := n.getTLS(t, ocspHost, "/"); status != 200 {
		t.Errorf("GET https://%s/ = %d, want 200", ocspHost, status)
	}
}

func TestOCSPResponderHangs(t *testing.T) {
	ca := testcerts.NewCA(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for {
			select {
			case c := <-accepted:
				c.Close()
			default:
				return
			}
		}
	})
	_, secret := ocspSecret(t, ca, "ocsp-tls", ocspHost, "http://"+l.Addr().String()+"/", 12)
	n := startNginx(t, ocspManifests(echoBackend(t), "true", secret))
	n.handshake(t) // starts the fetch
	var held net.Conn
	select {
	case held = <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("nginx did not connect to the responder within 10 s")
	}
	// The fetch waits for the responder; handshakes do not (handshake
	// fails the test after 2 s).
	for range 5 {
		if _, s := n.handshake(t); s != nil {
			t.Fatal("a staple from a responder that never answered")
		}
	}
	if status, _ := n.getTLS(t, ocspHost, "/"); status != 200 {
		t.Errorf("GET https://%s/ = %d, want 200", ocspHost, status)
	}
	held.Close()
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func logHas(t *testing.T, path, s string) bool {
	t.Helper()
	return strings.Contains(readLog(t, path), s)
}
