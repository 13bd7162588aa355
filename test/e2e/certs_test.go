package e2e

// Certificates through Lua (lua/certificate.lua): SNI picks the exact host,
// then the wildcard, then the default certificate; rotating a Secret goes
// through /configuration/servers without a reload.

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

const certsIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: tls, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  tls:
  - hosts: [shop.example.com]
    secretName: shop-tls
  - hosts: ["*.wild.example.com"]
    secretName: wild-tls
  - hosts: [a.wild.example.com]
    secretName: a-tls
  rules:
  - host: shop.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
  - host: "*.wild.example.com"
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
  - host: a.wild.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
---
`

func TestCertificatesBySNIAndRotation(t *testing.T) {
	web := startBackend(t, "web", 0)
	shop, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	wild, wildCrt := tlsSecretYAML(t, "wild-tls", "*.wild.example.com")
	exact, exactCrt := tlsSecretYAML(t, "a-tls", "a.wild.example.com")
	rest := wild + exact + serviceOf("web", web) + certsIngress
	n := startNginx(t, shop+rest)
	before, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		sni  string
		want []byte
	}{
		{"shop.example.com", shopCrt},
		{"SHOP.example.com", shopCrt}, // host names match in any case
		{"b.wild.example.com", wildCrt},
		{"a.wild.example.com", exactCrt}, // the exact host wins over the wildcard
	} {
		if got := n.servedCertificate(t, c.sni); !sameCert(got.Raw, c.want) {
			t.Errorf("SNI %s served %v, want the certificate of its Secret", c.sni, got.DNSNames)
		}
	}
	if got := n.servedCertificate(t, "other.example.com"); got.Subject.CommonName != "Kubernetes Ingress Controller Fake Certificate" {
		t.Errorf("SNI other.example.com served %q, want the default certificate", got.Subject.CommonName)
	}
	if status, body := n.getTLS(t, "a.wild.example.com", "/x"); status != 200 || !strings.HasPrefix(body, "web") {
		t.Errorf("GET https://a.wild.example.com/x = %d %q, want 200 from web", status, body)
	}

	// Rotate shop-tls: a new certificate in the same Secret.
	rotated, rotatedCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	n.push(t, rotated+rest)
	if got := n.servedCertificate(t, "shop.example.com"); !sameCert(got.Raw, rotatedCrt) {
		t.Errorf("after the rotation SNI shop.example.com served the old certificate (serial %v)", got.SerialNumber)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pem, err := n.lua.GetCertificate(ctx, "shop.example.com")
	if err != nil || !strings.Contains(pem, strings.TrimSpace(string(rotatedCrt))) {
		t.Errorf("GET /configuration/certs?hostname=shop.example.com after the rotation: %v; want the new certificate", err)
	}
	if after, err := n.inst.WorkerPids(); err != nil || !slices.Equal(before, after) {
		t.Errorf("worker pids changed from %v to %v (%v): the rotation reloaded nginx", before, after, err)
	}
}

// TestRejectHandshake: with ssl-reject-handshake the TLS handshake of a
// name no Ingress serves fails (without SNI too), and every host's
// handshake works: with its Secret's certificate, or the default one for a
// host without TLS; plain HTTP is untouched. In Lua routing the hosts are
// routed by the router (the check is the certificate handler's, since
// nginx's ssl_reject_handshake would refuse the router's whole server);
// adding a host lets its handshake in without a reload.
func TestRejectHandshake(t *testing.T) {
	web := startBackend(t, "web", 0)
	shop, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	wild, wildCrt := tlsSecretYAML(t, "wild-tls", "*.wild.example.com")
	exact, _ := tlsSecretYAML(t, "a-tls", "a.wild.example.com")
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\n" +
		"data: {ssl-reject-handshake: \"true\"}\n---\n"
	plain := ingressOf("plain", "plain.example.com", "web", "2026-01-01T00:00:01Z", nil)
	rest := configMap + shop + wild + exact + serviceOf("web", web) + certsIngress
	n := startNginx(t, rest+plain)
	n.requireLuaRouted(t, "shop.example.com", "*.wild.example.com", "a.wild.example.com", "plain.example.com")
	before, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sni  string
		want []byte // nil: the default certificate
	}{
		{"shop.example.com", shopCrt},
		{"b.wild.example.com", wildCrt},
		{"plain.example.com", nil},
	} {
		got := n.servedCertificate(t, c.sni)
		if c.want == nil && got.Subject.CommonName != "Kubernetes Ingress Controller Fake Certificate" {
			t.Errorf("SNI %s served %q, want the default certificate", c.sni, got.Subject.CommonName)
		} else if c.want != nil && !sameCert(got.Raw, c.want) {
			t.Errorf("SNI %s served %v, want the certificate of its Secret", c.sni, got.DNSNames)
		}
	}
	// "" sends no SNI (as an IP address would not)
	for _, sni := range []string{"other.example.com", "x.y.wild.example.com", "wild.example.com", ""} {
		if err := n.tryHandshake(sni); err == nil {
			t.Errorf("SNI %q: the handshake succeeded, want it refused", sni)
		}
	}
	// a session of a known host offered under an unknown name: a full
	// handshake (tls_session.lua), which the check refuses, as nginx's
	// SNI callback does in a classic default server
	sessions := newOfferedSessions("shop.example.com")
	if a, err := n.tlsGet(sessions, "shop.example.com", tls.VersionTLS13); err != nil || a.resumed {
		t.Errorf("SNI shop.example.com: %+v, %v; want a full handshake", a, err)
	} else if a, err := n.tlsGet(sessions, "other.example.com", tls.VersionTLS13); err == nil {
		t.Errorf("SNI other.example.com with the session of shop.example.com: the handshake succeeded (resumed %v), want it refused", a.resumed)
	}
	if status, _ := n.get(t, "other.example.com", "/"); status != 404 {
		t.Errorf("plain HTTP for an unknown host: %d, want the catch-all's 404", status)
	}

	later := rest + plain + ingressOf("later", "later.example.com", "web", "2026-01-01T00:00:02Z", nil)
	if e2eRouting(t) == nginxconf.RoutingLua {
		n.push(t, later) // fails the test if nginx.conf changed
	} else {
		n.reloadTo(t, later, render.DefaultOptions())
	}
	if err := n.tryHandshake("later.example.com"); err != nil {
		t.Errorf("SNI later.example.com after its Ingress came: %v", err)
	}
	if e2eRouting(t) == nginxconf.RoutingLua {
		if after, err := n.inst.WorkerPids(); err != nil || !slices.Equal(before, after) {
			t.Errorf("worker pids changed from %v to %v (%v): a new host reloaded nginx", before, after, err)
		}
	}
}
