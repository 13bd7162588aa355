package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// tlsEcho starts a loopback TLS server with its own self-signed
// certificate for host that answers each line with "name:line"; it
// returns its port and certificate.
func tlsEcho(t testing.TB, name, host string) (int, *x509.Certificate) {
	t.Helper()
	certPEM, keyPEM, err := nginx.SelfSignedCertificate(host, host)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				fmt.Fprintf(c, "%s:%s", name, line)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, cert
}

// clientAddrBackend answers with the client address nginx reports
// (X-Real-IP).
func clientAddrBackend(t testing.TB) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "web real-ip=%s port=%s", r.Header.Get("X-Real-IP"), r.Header.Get("X-Forwarded-Port"))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// dialTLS opens a TLS connection to nginx's HTTPS port from 127.0.0.2
// (another loopback address than nginx's own hops) with the SNI host; it
// does not verify the certificate, the test checks which one it is.
func dialTLS(port int, host string) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{ServerName: host, InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	return c, nil
}

func passthroughIngressYAML(name, host, service string, port int, passthrough bool) string {
	ann := ""
	if passthrough {
		ann = "\n  annotations: {nginx.ingress.kubernetes.io/ssl-passthrough: \"true\"}"
	}
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %[1]s
  namespace: e2e
  creationTimestamp: "2026-01-01T00:00:00Z"%[5]s
spec:
  ingressClassName: nginx
  rules:
  - host: %[2]s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: %[3]s, port: {number: %[4]d}}}}
`, name, host, service, port, ann)
}

// TestSSLPassthrough: with --enable-ssl-passthrough, a TLS connection
// whose SNI names a passthrough host reaches the TLS backend, which
// presents its own certificate (not nginx's); another host still gets
// TLS terminated by nginx (the default certificate), and its backend sees
// the client's address (127.0.0.2) through the PROXY protocol header of
// the SNI router and X-Forwarded-Port 443 (as ingress-nginx); the
// passthrough backend's endpoint moves without a reload.
func TestSSLPassthrough(t *testing.T) {
	const secure, web = "secure.example.com", "web.example.com"
	vaultPort, vaultCert := tlsEcho(t, "vault", secure)
	vault2Port, vault2Cert := tlsEcho(t, "vault2", secure)
	webPort := clientAddrBackend(t)
	svc := func(name string, port int) string {
		return strings.Replace(serviceYAML(name, port), "port: 80, targetPort: 8080", "port: 443, targetPort: 8443", 1)
	}
	fc, co := startStreamController(t, map[string]string{
		"class.yaml":      "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/vault.yaml":  svc("vault", vaultPort),
		"svc/web.yaml":    serviceYAML("web", webPort),
		"ing/secure.yaml": passthroughIngressYAML("secure", secure, "vault", 443, true),
		"ing/web.yaml":    passthroughIngressYAML("web", web, "web", 80, false),
	}, func(b *render.Options, c *nginxconf.ConfOptions) {
		b.EnableSSLPassthrough = true
		c.SSLPassthroughProxyPort, c.SSLPassthroughHopPort = freePort(t), freePort(t)
	})

	c, err := dialTLS(co.HTTPSPort, secure)
	if err != nil {
		t.Fatalf("TLS to %s through nginx: %v", secure, err)
	}
	if got := c.ConnectionState().PeerCertificates[0]; !got.Equal(vaultCert) {
		t.Errorf("%s presented the certificate of %q, want the backend's own", secure, got.Subject.CommonName)
	}
	fmt.Fprintf(c, "hello\n")
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "vault:hello\n" {
		t.Errorf("passthrough backend answered %q, want vault:hello", line)
	}
	c.Close()

	// Another host: nginx terminates TLS with its default certificate,
	// and the backend sees the client address of the TLS connection.
	c, err = dialTLS(co.HTTPSPort, web)
	if err != nil {
		t.Fatalf("TLS to %s through nginx: %v", web, err)
	}
	if cn := c.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != nginx.DefaultCertificateCN {
		t.Errorf("%s presented %q, want nginx's default certificate", web, cn)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", web)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("HTTPS to %s: %v", web, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.Close()
	// X-Forwarded-Port of the HTTPS servers is 443, as ingress-nginx says
	// it, whatever port they listen on.
	if want := "web real-ip=127.0.0.2 port=443"; resp.StatusCode != 200 || string(body) != want {
		t.Errorf("HTTPS %s answered %d %q, want 200 %q", web, resp.StatusCode, body, want)
	}

	// The passthrough backend's endpoint moves: no reload.
	pids := fc.workerPids(t)
	before := fc.settle(t)
	fc.write(t, "svc/vault.yaml", svc("vault", vault2Port))
	waitFor(t, 10*time.Second, "the passthrough host to reach vault2", func() bool {
		c, err := dialTLS(co.HTTPSPort, secure)
		if err != nil {
			return false
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].Equal(vault2Cert)
	})
	after := fc.settle(t)
	if got := fc.workerPids(t); after.Reloads != before.Reloads || len(got) != 2 || !slices.Equal(got, pids) {
		t.Errorf("an endpoint change of a passthrough host reloaded nginx: stats %+v → %+v, workers %v → %v", before, after, pids, got)
	}
}
