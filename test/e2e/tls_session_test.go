package e2e

// TLS sessions per server name (lua/tls_session.lua): a session resumes
// only under the SNI name it was made for, in both routing modes.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// offeredSessions is a client session cache that offers the session it
// got for one name (from) whatever name the client connects with: a
// client trying a session of one host on another.
type offeredSessions struct {
	mu       sync.Mutex
	from     string
	sessions map[string]*tls.ClientSessionState
}

func newOfferedSessions(from string) *offeredSessions {
	return &offeredSessions{from: from, sessions: map[string]*tls.ClientSessionState{}}
}

func (c *offeredSessions) Get(string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[c.from]
	return s, ok
}

func (c *offeredSessions) Put(key string, s *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != nil {
		c.sessions[key] = s
	}
}

// sessionAnswer is what tlsGet saw: whether nginx resumed the session, the
// certificate of the connection and the answer's first line.
type sessionAnswer struct {
	resumed bool
	cert    *x509.Certificate
	status  string
}

// tlsGet connects to nginx's HTTPS port with SNI name and TLS version,
// offering cache's session, and sends GET / with Host name, reading the
// whole answer (a TLS 1.3 session ticket comes after the handshake).
func (n *liveNginx) tlsGet(cache tls.ClientSessionCache, name string, version uint16) (sessionAnswer, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
		ServerName: name, InsecureSkipVerify: true, ClientSessionCache: cache,
		MinVersion: version, MaxVersion: version,
	})
	if err != nil {
		return sessionAnswer{}, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		return sessionAnswer{}, err
	}
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", name); err != nil {
		return sessionAnswer{}, err
	}
	body, err := io.ReadAll(conn)
	if err != nil {
		return sessionAnswer{}, err
	}
	st := conn.ConnectionState()
	a := sessionAnswer{resumed: st.DidResume, status: strings.SplitN(string(body), "\r\n", 2)[0]}
	if len(st.PeerCertificates) > 0 {
		a.cert = st.PeerCertificates[0]
	}
	return a, nil
}

// TestTLSSessionPerName: a session made under one name resumes under that
// name only (Lua-routed and classic hosts): offered under another, nginx
// makes a full handshake and serves that name's own certificate. nginx
// alone resumes it under any name of the port: without tls_session.lua
// every "false" row below fails (tried). With the ConfigMap's default
// (ssl-session-tickets "false") a TLS 1.3 session is kept in nginx's
// session cache (Go's client resumes a TLS 1.2 session by ticket only);
// with tickets, TLS 1.2 and 1.3 resume by ticket.
func TestTLSSessionPerName(t *testing.T) {
	t.Run("session cache", func(t *testing.T) { testTLSSessionPerName(t, "", tls.VersionTLS13) })
	tickets := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\n" +
		"data: {ssl-session-tickets: \"true\"}\n---\n"
	t.Run("tickets", func(t *testing.T) { testTLSSessionPerName(t, tickets, tls.VersionTLS12, tls.VersionTLS13) })
}

func testTLSSessionPerName(t *testing.T, configMap string, versions ...uint16) {
	web := startBackend(t, "web", 0)
	shop, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	wild, wildCrt := tlsSecretYAML(t, "wild-tls", "*.wild.example.com")
	exact, _ := tlsSecretYAML(t, "a-tls", "a.wild.example.com")
	classic, classicCrt := tlsSecretYAML(t, "classic-tls", "classic.example.com")
	n := startSnippetNginx(t, configMap+shop+wild+exact+classic+serviceOf("web", web)+certsIngress+
		ingressOf("plain", "plain.example.com", "web", "2026-01-01T00:00:01Z", nil)+
		tlsIngressOf("classic", "classic.example.com", "classic-tls", "web", "server-snippet", `add_header X-Classic "1";`))
	n.requireLuaRouted(t, "shop.example.com", "*.wild.example.com", "plain.example.com")
	for _, h := range n.routes {
		if h.Host == "classic.example.com" {
			t.Errorf("classic.example.com is Lua-routed: the test wants a classic server block beside the router")
		}
	}
	for _, version := range versions {
		for _, c := range []struct {
			from, to string
			resumed  bool
			crt      []byte // the certificate of to (nil: the default one)
		}{
			{"shop.example.com", "shop.example.com", true, shopCrt},
			{"b.wild.example.com", "b.wild.example.com", true, wildCrt},
			{"classic.example.com", "classic.example.com", true, classicCrt},
			{"shop.example.com", "plain.example.com", false, nil},
			{"shop.example.com", "b.wild.example.com", false, wildCrt},
			{"b.wild.example.com", "c.wild.example.com", false, wildCrt}, // one wildcard, two names
			{"shop.example.com", "classic.example.com", false, classicCrt},
			{"classic.example.com", "shop.example.com", false, shopCrt},
		} {
			name := fmt.Sprintf("TLS %x: session of %s offered under %s", version, c.from, c.to)
			cache := newOfferedSessions(c.from)
			first, err := n.tlsGet(cache, c.from, version)
			if err != nil || first.resumed || !strings.HasSuffix(first.status, " 200 OK") {
				t.Errorf("%s: first connection %+v, %v; want a full handshake and 200", name, first, err)
				continue
			}
			if _, ok := cache.Get(""); !ok {
				t.Errorf("%s: nginx gave no session to resume", name)
				continue
			}
			got, err := n.tlsGet(cache, c.to, version)
			switch {
			case err != nil:
				t.Errorf("%s: %v", name, err)
			case got.resumed != c.resumed:
				t.Errorf("%s: resumed %v, want %v", name, got.resumed, c.resumed)
			case !strings.HasSuffix(got.status, " 200 OK"):
				t.Errorf("%s: %q, want 200", name, got.status)
			case c.crt == nil && got.cert.Subject.CommonName != "Kubernetes Ingress Controller Fake Certificate":
				t.Errorf("%s: certificate %q, want the default one", name, got.cert.Subject.CommonName)
			case c.crt != nil && !sameCert(got.cert.Raw, c.crt):
				t.Errorf("%s: certificate %v, want the one of %s", name, got.cert.DNSNames, c.to)
			}
		}
	}
}

// tlsIngressOf is an Ingress of namespace e2e for host / (Prefix) to
// service:80 with TLS from secret and the annotations given as name,
// value pairs (without their prefix).
func tlsIngressOf(name, host, secret, service string, annotations ...string) string {
	plain := nsIngressOf("e2e", name, "2026-01-01T00:00:02Z", host, "Prefix", "/", service, annotations...)
	return strings.Replace(plain, "spec:\n  ingressClassName: nginx\n",
		"spec:\n  ingressClassName: nginx\n  tls:\n  - hosts: ["+host+"]\n    secretName: "+secret+"\n", 1)
}
