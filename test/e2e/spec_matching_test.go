package e2e

// The Ingress spec's matching rules where nginx's own differ: a wildcard
// host covers exactly one label, and an Exact path ending in "/" does not
// answer the same path without the slash with nginx's automatic 301.

import (
	"strings"
	"testing"
)

const specMatchingIngresses = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: hosts, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  rules:
  - host: "*.foo.com"
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: wild, port: {number: 80}}}}]
  - host: exact.foo.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: exact, port: {number: 80}}}}]
  - host: slash.example.com
    http:
      paths: [{path: /foo/, pathType: Exact, backend: {service: {name: exact, port: {number: 80}}}}]
  - host: fallthrough.example.com
    http:
      paths:
      - {path: /foo/, pathType: Exact, backend: {service: {name: exact, port: {number: 80}}}}
      - {path: /, pathType: Prefix, backend: {service: {name: wild, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: tls, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  tls:
  - hosts: ["*.tls.example.com"]
    secretName: wild-tls
  rules:
  - host: "*.tls.example.com"
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: wild, port: {number: 80}}}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: regex
  namespace: e2e
  creationTimestamp: "2026-01-02T00:00:00Z"
  annotations:
    nginx.ingress.kubernetes.io/use-regex: "true"
spec:
  ingressClassName: nginx
  rules:
  - host: fallthrough.example.com
    http:
      paths: [{path: "/fo.*", pathType: ImplementationSpecific, backend: {service: {name: regex, port: {number: 80}}}}]
---
`

func TestSpecMatchingThroughNginx(t *testing.T) {
	wildTLS, wildCrt := tlsSecretYAML(t, "wild-tls", "*.tls.example.com")
	manifests := wildTLS + serviceYAML("wild", namedBackend(t, "wild")) +
		serviceYAML("exact", namedBackend(t, "exact")) +
		serviceYAML("regex", namedBackend(t, "regex")) + specMatchingIngresses
	n := startNginx(t, manifests)
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	for _, c := range []struct {
		host, path string
		status     int
		backend    string // the body starts with it; "" for no check
	}{
		{"bar.foo.com", "/", 200, "wild"},
		{"BAR.foo.com", "/", 200, "wild"}, // nginx lowercases the Host
		{"bar.foo.com.", "/", 200, "wild"},
		{"baz.bar.foo.com", "/", 404, ""}, // one label only
		{"foo.com", "/", 404, ""},
		{"exact.foo.com", "/", 200, "exact"}, // an exact host wins over the wildcard
		{"slash.example.com", "/foo/", 200, "exact"},
		{"slash.example.com", "/foo", 404, ""}, // no 301 to /foo/: nothing else matches
		{"slash.example.com", "/foo/x", 404, ""},
		{"fallthrough.example.com", "/foo/", 200, "exact"}, // Exact wins over the regex /fo.*
		{"fallthrough.example.com", "/foo", 200, "regex"},  // falls through to the regex …
		{"fallthrough.example.com", "/bar", 200, "wild"},   // … and the Prefix /
	} {
		status, body := n.get(t, c.host, c.path)
		if status != c.status || !strings.HasPrefix(body, c.backend) {
			t.Errorf("GET %s%s = %d %q, want %d from %q", c.host, c.path, status, body, c.status, c.backend)
		}
	}
	// lua/certificate.lua: a wildcard certificate covers one label too,
	// as ingress-nginx's (the first label replaced by "*").
	if got := n.servedCertificate(t, "a.tls.example.com"); !sameCert(got.Raw, wildCrt) {
		t.Errorf("SNI a.tls.example.com served %v, want the wildcard certificate", got.DNSNames)
	}
	if got := n.servedCertificate(t, "a.b.tls.example.com"); sameCert(got.Raw, wildCrt) {
		t.Errorf("SNI a.b.tls.example.com served the wildcard certificate, want the default one")
	}
	if status, body := n.getTLS(t, "a.tls.example.com", "/"); status != 200 || !strings.HasPrefix(body, "wild") {
		t.Errorf("GET https://a.tls.example.com/ = %d %q, want 200 from wild", status, body)
	}
	if status, _ := n.getTLS(t, "a.b.tls.example.com", "/"); status != 404 {
		t.Errorf("GET https://a.b.tls.example.com/ = %d, want 404", status)
	}
}
