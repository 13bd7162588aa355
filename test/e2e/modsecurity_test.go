package e2e

// The ConfigMap's enable-modsecurity and enable-owasp-modsecurity-crs
// through a real nginx with Debian's ModSecurity module and Core Rule Set:
// detection only, as ingress-nginx's default, so an attack is served and
// logged; with the keys off nothing of ModSecurity is loaded.

import (
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
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
