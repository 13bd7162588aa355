package e2e

// The ConfigMap's enable-modsecurity and enable-owasp-modsecurity-crs
// through a real nginx with Debian's ModSecurity module and Core Rule Set:
// detection only, as ingress-nginx's default, so an attack is served and
// logged; with the keys off nothing of ModSecurity is loaded.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModSecurityConfigKeys: with both keys on, a cross-site scripting
// query is still answered by the backend (SecRuleEngine DetectionOnly)
// and nginx's error log records the Core Rule Set's XSS rules; without
// them nginx.conf has no ModSecurity line.
func TestModSecurityConfigKeys(t *testing.T) {
	for _, f := range []struct{ path, pkg string }{
		{"/usr/lib/nginx/modules/ngx_http_modsecurity_module.so", "libnginx-mod-http-modsecurity"},
		{"/usr/share/modsecurity-crs/rules/REQUEST-941-APPLICATION-ATTACK-XSS.conf", "modsecurity-crs"},
	} {
		if _, err := os.Stat(f.path); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", f.pkg)
		}
	}
	const host = "waf.example.com"
	port := headerEcho(t)

	off := startNginx(t, headersManifests(port, host, "", nil))
	if strings.Contains(string(off.conf), "modsecurity") {
		t.Errorf("keys off: nginx.conf names ModSecurity")
	}

	n := startNginx(t, headersManifests(port, host, "", map[string]string{
		"enable-modsecurity": "true", "enable-owasp-modsecurity-crs": "true", "error-log-level": "info",
	}))
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	for _, want := range []string{"load_module", "ngx_http_modsecurity_module.so", "modsecurity on;", "SecRuleEngine DetectionOnly", "/usr/share/modsecurity-crs/rules/*.conf"} {
		if !strings.Contains(string(n.conf), want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	if a := n.send(t, false, host, "/?q=<script>alert(1)</script>"); a.status != 200 {
		t.Fatalf("XSS query: status %d, want 200 (DetectionOnly serves it)", a.status)
	}
	// 941100: the Core Rule Set's XSS detection (libinjection).
	const want = `[id "941100"]`
	log := waitForLog(t, filepath.Join(n.inst.Prefix(), "logs", "error.log"), want)
	if !strings.Contains(log, want) || !strings.Contains(log, "ModSecurity: Warning") {
		t.Errorf("error log lacks the CRS detection %s:\n%s", want, tail(log, 4000))
	}
	// The audit log, under the prefix, has the transaction.
	audit := waitForLog(t, filepath.Join(n.inst.Prefix(), "logs", "modsecurity_audit.log"), want)
	if !strings.Contains(audit, want) || !strings.Contains(audit, "GET /?q=<script>alert(1)</script>") {
		t.Errorf("audit log lacks the transaction:\n%s", tail(audit, 4000))
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestModSecurityAnnotations: enable-modsecurity and
// enable-owasp-core-rules on one Ingress turn the Core Rule Set on for
// its host only, with the ConfigMap's keys off (the module is loaded for
// the annotation); the other host's XSS query is not inspected.
func TestModSecurityAnnotations(t *testing.T) {
	if _, err := os.Stat("/usr/share/modsecurity-crs/rules/REQUEST-941-APPLICATION-ATTACK-XSS.conf"); err != nil {
		t.Skip("modsecurity-crs is not installed (make deps installs it)")
	}
	port := headerEcho(t)
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\ndata: {error-log-level: info}\n---\n")
	b.WriteString(serviceOf("echo", &backend{port: port}))
	for _, ing := range []struct{ name, annotations string }{
		{"waf", `{nginx.ingress.kubernetes.io/enable-modsecurity: "true", nginx.ingress.kubernetes.io/enable-owasp-core-rules: "true", nginx.ingress.kubernetes.io/modsecurity-transaction-id: "kit-$request_id"}`},
		{"plain", "{}"},
	} {
		fmt.Fprintf(&b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %[1]s, namespace: e2e, creationTimestamp: "2026-01-01T00:00:00Z", annotations: %[2]s}
spec:
  ingressClassName: nginx
  rules:
  - host: %[1]s.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}
`, ing.name, ing.annotations)
	}
	n := startNginx(t, b.String())
	if len(n.problems) != 0 {
		t.Fatalf("problems: %v", n.problems)
	}
	n.requireLuaRouted(t, "waf.example.com", "plain.example.com")
	errorLog := filepath.Join(n.inst.Prefix(), "logs", "error.log")
	if a := n.send(t, false, "plain.example.com", "/?q=<script>alert(2)</script>"); a.status != 200 {
		t.Fatalf("plain host: status %d", a.status)
	}
	if a := n.send(t, false, "waf.example.com", "/?q=<script>alert(1)</script>"); a.status != 200 {
		t.Fatalf("waf host: status %d, want 200 (DetectionOnly)", a.status)
	}
	const want = `[id "941100"]`
	log := waitForLog(t, errorLog, want)
	if !strings.Contains(log, want) || !strings.Contains(log, `[hostname "`) {
		t.Fatalf("error log lacks the CRS detection %s:\n%s", want, tail(log, 4000))
	}
	// The plain host's request came first and was not inspected: every
	// detection names the waf host's request.
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "ModSecurity: Warning") && strings.Contains(line, "alert(2)") {
			t.Errorf("the plain host's request was inspected: %s", line)
		}
	}
	if !strings.Contains(log, `[unique_id "kit-`) {
		t.Errorf("error log lacks the transaction id kit-…:\n%s", tail(log, 4000))
	}
}
