package annotations

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The cases of authbasic.go, authtls.go and proxyssl.go join the tables of
// TestAnnotationGoodValues and TestAnnotationBadValues.
var _ = func() bool {
	goodAnnotationCases = append(goodAnnotationCases, authGoodCases...)
	badAnnotationCases = append(badAnnotationCases, authBadCases...)
	goodConfigCases = append(goodConfigCases, configCase{"allow-cross-namespace-resources", "true", func(g *model.Global) { g.AllowCrossNamespaceResources = true }})
	badConfigCases = append(badConfigCases, struct{ key, value string }{"allow-cross-namespace-resources", "yes please"})
	return true
}()

func secretRef(ns, name string) model.ObjectRef {
	return model.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}
}

func defaultClientAuth(ref model.ObjectRef) *model.ClientAuth {
	return &model.ClientAuth{Secret: ref, Verify: "on", Depth: 1, Ingress: testIngress}
}

func defaultProxySSL(ref model.ObjectRef) *model.ProxySSL {
	return &model.ProxySSL{Secret: ref, VerifyDepth: 1, Protocols: "TLSv1.2", Ciphers: "DEFAULT"}
}

var (
	basicExtra = []string{"auth-type", "basic", "auth-secret", "users"}
	tlsExtra   = []string{"auth-tls-secret", "default/ca"}
	sslExtra   = []string{"proxy-ssl-secret", "default/backend"}
)

var authGoodCases = []annotationCase{
	{name: "auth-type", value: "basic", extra: []string{"auth-secret", "users"}, want: func(a *Ingress) {
		a.Location.BasicAuth = &model.BasicAuth{Secret: secretRef("", "users")}
	}},
	{name: "auth-secret", value: "other/users", extra: []string{"auth-type", "basic"}, want: func(a *Ingress) {
		a.Location.Denied = ""
		a.Location.BasicAuth = &model.BasicAuth{Secret: secretRef("other", "users")}
	}},
	{name: "auth-secret-type", value: "auth-map", extra: basicExtra, want: func(a *Ingress) { a.Location.BasicAuth.Map = true }},
	{name: "auth-secret-type", value: "auth-file", extra: basicExtra, want: func(a *Ingress) {}},
	{name: "auth-realm", value: "Authentication Required - foo", extra: basicExtra, want: func(a *Ingress) {
		a.Location.BasicAuth.Realm = "Authentication Required - foo"
	}},
	{name: "auth-tls-secret", value: "default/ca-secret", want: func(a *Ingress) {
		a.Location.ClientAuth = defaultClientAuth(secretRef("default", "ca-secret"))
	}},
	{name: "auth-tls-error-page", value: "http://www.mysite.com/error-cert.html", extra: tlsExtra, want: func(a *Ingress) {
		a.Location.ClientAuth.ErrorPage = "http://www.mysite.com/error-cert.html"
	}},
	{name: "auth-tls-error-page", value: "/cert-error.html", extra: tlsExtra, want: func(a *Ingress) {
		a.Location.ClientAuth.ErrorPage = "/cert-error.html"
	}},
	{name: "auth-tls-match-cn", value: `CN=(alice|bob\.example)$`, extra: tlsExtra, want: func(a *Ingress) {
		a.Location.ClientAuth.MatchCN = `CN=(alice|bob\.example)$`
	}},
	{name: "auth-tls-pass-certificate-to-upstream", value: "true", extra: tlsExtra, want: func(a *Ingress) { a.Location.ClientAuth.PassCertificate = true }},
	{name: "auth-tls-pass-certificate-to-upstream", value: "false", want: func(a *Ingress) {}},
	{name: "auth-tls-verify-client", value: "optional_no_ca", extra: tlsExtra, want: func(a *Ingress) { a.Location.ClientAuth.Verify = "optional_no_ca" }},
	{name: "auth-tls-verify-client", value: "on", want: func(a *Ingress) {}},
	{name: "auth-tls-verify-depth", value: "3", extra: tlsExtra, want: func(a *Ingress) { a.Location.ClientAuth.Depth = 3 }},
	{name: "proxy-ssl-secret", value: "default/backend-tls", want: func(a *Ingress) {
		a.Location.ProxySSL = defaultProxySSL(secretRef("default", "backend-tls"))
	}},
	{name: "proxy-ssl-ciphers", value: "HIGH:!aNULL:@SECLEVEL=1", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.Ciphers = "HIGH:!aNULL:@SECLEVEL=1" }},
	{name: "proxy-ssl-name", value: "Backend.Internal", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.Name = "backend.internal" }},
	{name: "proxy-ssl-protocols", value: "TLSv1.3 TLSv1.2 TLSv1.3", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.Protocols = "TLSv1.2 TLSv1.3" }},
	{name: "proxy-ssl-server-name", value: "on", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.ServerName = true }},
	{name: "proxy-ssl-verify", value: "on", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.Verify = true }},
	// "off" without proxy-ssl-secret changes nothing: no Problem (corpus).
	{name: "proxy-ssl-verify", value: "off", want: func(a *Ingress) {}},
	{name: "proxy-ssl-server-name", value: "off", want: func(a *Ingress) {}},
	{name: "proxy-ssl-verify-depth", value: "2", extra: sslExtra, want: func(a *Ingress) { a.Location.ProxySSL.VerifyDepth = 2 }},
}

var authBadCases = []annotationCase{
	{name: "auth-type", value: "ntlm", extra: []string{"auth-secret", "users"}, want: func(a *Ingress) { a.Location.Denied = "auth-type is invalid" }},
	{name: "auth-secret", value: "../etc/passwd", extra: []string{"auth-type", "basic"}},
	{name: "auth-secret", value: "a/b/c", extra: []string{"auth-type", "basic"}},
	{name: "auth-secret", value: "/etc/passwd", extra: []string{"auth-type", "basic"}},
	{name: "auth-secret-type", value: "htpasswd", extra: basicExtra},
	{name: "auth-realm", value: `say "hi"`, extra: basicExtra},
	{name: "auth-realm", value: "a\nauth_basic off", extra: basicExtra},
	{name: "auth-realm", value: "off", extra: basicExtra}, // nginx: no authentication
	{name: "auth-realm", value: "$host", extra: basicExtra},
	{name: "auth-tls-secret", value: "Default/CA", want: func(a *Ingress) { a.Location.Denied = "auth-tls-secret is invalid" }},
	{name: "auth-tls-error-page", value: "http://x.example/$host", extra: tlsExtra},
	{name: "auth-tls-error-page", value: `http://x.example/"; return 200; #`, extra: tlsExtra},
	{name: "auth-tls-error-page", value: "javascript:alert(1)", extra: tlsExtra},
	{name: "auth-tls-match-cn", value: `CN=a"; return 200; #`, extra: tlsExtra, want: func(a *Ingress) { a.Location.Denied = "auth-tls-match-cn is invalid" }},
	{name: "auth-tls-match-cn", value: "CN=a) {return 200;} if ($a ~ (", extra: tlsExtra, want: func(a *Ingress) { a.Location.Denied = "auth-tls-match-cn is invalid" }},
	{name: "auth-tls-match-cn", value: "CN=(a", extra: tlsExtra, want: func(a *Ingress) { a.Location.Denied = "auth-tls-match-cn is invalid" }},
	{name: "auth-tls-match-cn", value: "client", extra: tlsExtra, want: func(a *Ingress) { a.Location.Denied = "auth-tls-match-cn is invalid" }},
	{name: "auth-tls-pass-certificate-to-upstream", value: "yes", extra: tlsExtra},
	{name: "auth-tls-verify-client", value: "required", extra: tlsExtra},
	{name: "auth-tls-verify-depth", value: "0", extra: tlsExtra},
	{name: "proxy-ssl-secret", value: "default/../x", want: func(a *Ingress) { a.Location.Denied = "proxy-ssl-secret is invalid" }},
	{name: "proxy-ssl-ciphers", value: "HIGH;return 200", extra: sslExtra},
	{name: "proxy-ssl-name", value: "a b", extra: sslExtra},
	{name: "proxy-ssl-name", value: "$host", extra: sslExtra},
	{name: "proxy-ssl-protocols", value: "SSLv3", extra: sslExtra},
	{name: "proxy-ssl-server-name", value: "yes", extra: sslExtra},
	{name: "proxy-ssl-verify", value: "maybe", extra: sslExtra},
	{name: "proxy-ssl-verify-depth", value: "-1", extra: sslExtra},
}

func TestAuthFailClosed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ann    []string
		denied string
		reason string
	}{
		{"digest", []string{"auth-type", "digest", "auth-secret", "users"}, "auth-type digest is not supported", "Debian's nginx has no digest"},
		{"basic without secret", []string{"auth-type", "basic"}, "auth-type basic without a valid auth-secret", "is required with auth-type basic"},
	} {
		got, problems := ParseIngress(testIngress, annots(tc.ann...))
		if got.Location.Denied != tc.denied {
			t.Errorf("%s: Denied %q, want %q", tc.name, got.Location.Denied, tc.denied)
		}
		if got.Location.BasicAuth != nil {
			t.Errorf("%s: BasicAuth set: %+v", tc.name, got.Location.BasicAuth)
		}
		if len(problems) != 1 || !strings.Contains(problems[0].Reason, tc.reason) || !strings.Contains(problems[0].Reason, "503") {
			t.Errorf("%s: want one Problem saying %q and 503, got %v", tc.name, tc.reason, problems)
		}
	}
}

func TestAuthOptionsWithoutSecret(t *testing.T) {
	_, problems := ParseIngress(testIngress, annots("auth-realm", "x", "auth-tls-verify-depth", "2", "proxy-ssl-name", "b.example"))
	if len(problems) != 3 {
		t.Fatalf("want 3 Problems, got %v", problems)
	}
	for _, p := range problems {
		if !strings.Contains(p.Reason, "ignored:") {
			t.Errorf("%v: want an 'ignored:' reason", p)
		}
	}
}

func TestValueSecretRef(t *testing.T) {
	for v, want := range map[string]string{"a": "a", "ns/a.b-c": "ns/a.b-c"} {
		ref, err := valueSecretRef(v)
		if err != nil || ref.String() != want {
			t.Errorf("%q: got %v %v, want %s", v, ref, err, want)
		}
	}
	for _, v := range []string{"", "..", "a/..", "../a", "a/", "/a", "A", "a b", "a/b/c", "ns.x/a", "a..b", "-a", strings.Repeat("a", 254)} {
		if ref, err := valueSecretRef(v); err == nil {
			t.Errorf("%q: accepted as %v", v, ref)
		}
	}
}
