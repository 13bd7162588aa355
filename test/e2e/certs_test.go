package e2e

// Certificates through Lua (lua/certificate.lua): SNI picks the exact host,
// then the wildcard, then the default certificate; rotating a Secret goes
// through /configuration/servers without a reload.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
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
