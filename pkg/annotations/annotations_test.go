package annotations

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

var testIngress = model.ObjectRef{Kind: "Ingress", Namespace: "shop", Name: "web"}

// annots builds an annotation map from name, value pairs; names get the prefix.
func annots(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[annotationPrefix+kv[i]] = kv[i+1]
	}
	return m
}

func boolp(b bool) *bool { return &b }

// defaultAnnotations is what an Ingress without annotations gets.
func defaultAnnotations() Ingress {
	return Ingress{
		Location: model.LocationSettings{BackendProtocol: "HTTP"},
		Backend:  Backend{Protocol: "HTTP"},
	}
}

func defaultCORS() *model.CORS {
	return &model.CORS{
		AllowOrigins:     []string{"*"},
		AllowMethods:     "GET, PUT, POST, DELETE, PATCH, OPTIONS",
		AllowHeaders:     "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization",
		AllowCredentials: true,
		MaxAge:           1728000,
	}
}

func defaultAffinity() model.SessionAffinity {
	return model.SessionAffinity{Type: "cookie", Mode: "balanced", Cookie: model.SessionCookie{Name: "INGRESSCOOKIE"}}
}

func TestAnnotationDefaults(t *testing.T) {
	for _, in := range []map[string]string{nil, {}, {"kubernetes.io/ingress.class": "nginx", "other.io/rewrite-target": "/$(x)"}} {
		got, problems := ParseIngress(testIngress, in)
		if len(problems) != 0 {
			t.Errorf("%v: problems %v", in, problems)
		}
		if !reflect.DeepEqual(got, defaultAnnotations()) {
			t.Errorf("%v: got %+v, want defaults", in, got)
		}
	}
}

func TestAnnotationSpecTable(t *testing.T) {
	names := make([]string, len(annotationSpecs))
	for i, s := range annotationSpecs {
		names[i] = s.Name
		if s.Description == "" || s.Kind == "" || s.set == nil {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		if strings.HasSuffix(s.Name, "-snippet") && !isTranslatedSnippet(s.Name) {
			t.Errorf("%s: only configuration-snippet and server-snippet are supported (translated)", s.Name)
		}
		if lookupUnsupportedAnnotation(s.Name) != nil {
			t.Errorf("%s: both supported and unsupported", s.Name)
		}
		if lookupAnnotationSpec(s.Name) != &annotationSpecs[i] {
			t.Errorf("%s: lookup does not find it", s.Name)
		}
	}
	if !sort.StringsAreSorted(names) || hasDuplicates(names) {
		t.Errorf("annotationSpecs must be sorted and unique: %v", names)
	}
	var unsupported []string
	for _, u := range unsupportedAnnotations {
		unsupported = append(unsupported, u.Name)
		if strings.HasSuffix(u.Name, "-snippet") {
			t.Errorf("%s: snippets are refused by their suffix, not listed", u.Name)
		}
	}
	if !sort.StringsAreSorted(unsupported) || hasDuplicates(unsupported) {
		t.Errorf("unsupportedAnnotations must be sorted and unique")
	}
	if lookupAnnotationSpec("no-such") != nil || lookupUnsupportedAnnotation("zzz") != nil {
		t.Errorf("lookup of a missing name must be nil")
	}
}

// TestAnnotationFamilies checks that the joined table holds exactly the
// entries of the family files: each one found by lookupAnnotationSpec, in
// one family only.
func TestAnnotationFamilies(t *testing.T) {
	n := 0
	family := map[string]string{}
	for _, f := range annotationFamilies() {
		if len(f.Specs) == 0 {
			t.Errorf("family %s is empty", f.Name)
		}
		for _, s := range f.Specs {
			n++
			if other, ok := family[s.Name]; ok {
				t.Errorf("%s is in families %s and %s", s.Name, other, f.Name)
			}
			family[s.Name] = f.Name
			got := lookupAnnotationSpec(s.Name)
			if got == nil {
				t.Errorf("%s (family %s): lookup does not find it", s.Name, f.Name)
				continue
			}
			if got.Name != s.Name || got.Description != s.Description || got.Kind != s.Kind ||
				got.Default != s.Default || got.OnInvalid != s.OnInvalid || got.CanaryOnly != s.CanaryOnly ||
				reflect.ValueOf(got.set).Pointer() != reflect.ValueOf(s.set).Pointer() {
				t.Errorf("%s (family %s): lookup finds another entry", s.Name, f.Name)
			}
		}
	}
	if n != len(annotationSpecs) {
		t.Errorf("the families hold %d annotations, the table %d", n, len(annotationSpecs))
	}
}

// TestAnnotationSpecDefaultsParse checks that every documented default that
// is a literal value is itself accepted.
func TestAnnotationSpecDefaultsParse(t *testing.T) {
	for _, s := range annotationSpecs {
		if s.Default == "" || strings.HasPrefix(s.Default, "ConfigMap ") {
			continue
		}
		_, problems := ParseIngress(testIngress, annots("canary", "true", s.Name, s.Default))
		if len(problems) != 0 {
			t.Errorf("%s: default %q is refused: %v", s.Name, s.Default, problems)
		}
	}
}

func hasDuplicates(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return true
		}
	}
	return false
}

type annotationCase struct {
	name  string   // the annotation under test
	value string   // its value
	extra []string // other annotations, name value pairs
	want  func(a *Ingress)
}

var goodAnnotationCases = []annotationCase{
	// External authentication (authexternal_test.go has the helpers).
	{name: "auth-always-set-cookie", value: "true", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.AlwaysSetCookie = true })},
	{name: "auth-cache-duration", value: "200 202 30m, 401 1m", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.CacheDuration = []string{"200 202 30m", "401 1m"} })},
	{name: "auth-cache-key", value: "$remote_user$http_authorization", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.CacheKey = "$remote_user$http_authorization" })},
	{name: "auth-keepalive", value: "10", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.Keepalive = 10 })},
	{name: "auth-keepalive-requests", value: "5", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.KeepaliveRequests = 5 })},
	{name: "auth-keepalive-share-vars", value: "true", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.KeepaliveShareVars = true })},
	{name: "auth-keepalive-timeout", value: "30", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.KeepaliveTimeout = 30 })},
	{name: "auth-method", value: "POST", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.Method = "POST" })},
	{name: "auth-proxy-set-headers", value: "auth-headers", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.ProxySetHeadersConfigMap = "shop/auth-headers" })},
	{name: "auth-request-redirect", value: "https://$host$request_uri", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.RequestRedirect = "https://$host$request_uri" })},
	{name: "auth-response-headers", value: "X-Auth-Request-User, x-auth-request-email,X-AUTH-REQUEST-USER", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) {
		e.ResponseHeaders = []string{"X-Auth-Request-User", "x-auth-request-email"}
	})},
	{name: "auth-signin", value: "https://$host/oauth2/start?rd=$escaped_request_uri", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) {
		e.SigninURL = "https://$host/oauth2/start?rd=$escaped_request_uri"
	})},
	{name: "auth-signin-redirect-param", value: "orig", extra: withAuthURL, want: wantAuth(func(e *model.ExternalAuth) { e.SigninRedirectParam = "orig" })},
	{name: "auth-url", value: "https://$host/oauth2/auth", want: func(a *Ingress) {
		wantAuth(func(e *model.ExternalAuth) { e.URL, e.Host = "https://$host/oauth2/auth", "$host" })(a)
	}},
	{name: "enable-global-auth", value: "false", want: func(a *Ingress) { a.Location.GlobalAuthOff = true }},
	{name: "enable-global-auth", value: "true", want: func(a *Ingress) {}},
	{name: "satisfy", value: "any", want: func(a *Ingress) { a.Location.Satisfy = "any" }},
	{name: "satisfy", value: "all", want: func(a *Ingress) {}},
	{name: "affinity", value: "cookie", want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
	}},
	{name: "affinity", value: " cookie\n", want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
	}},
	{name: "affinity-canary-behavior", value: "legacy", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100}, AffinityLegacy: true}
	}},
	{name: "affinity-canary-behavior", value: "sticky", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100}}
	}},
	{name: "affinity-mode", value: "persistent", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Mode = "persistent"
	}},
	{name: "affinity-mode", value: "persistent", want: func(a *Ingress) {}}, // without affinity: no effect
	{name: "allowlist-source-range", value: "10.0.0.1/8, 192.168.1.7,2001:db8::1/32,10.0.0.0/8", want: func(a *Ingress) {
		a.Location.Access.Allow = []string{"10.0.0.0/8", "192.168.1.7/32", "2001:db8::/32"}
	}},
	{name: "app-root", value: "/app1", want: func(a *Ingress) { a.Location.AppRoot = "/app1" }},
	{name: "backend-protocol", value: "grpcs", want: func(a *Ingress) {
		a.Location.BackendProtocol, a.Backend.Protocol = "GRPCS", "GRPCS"
	}},
	{name: "backend-protocol", value: "HTTPS", want: func(a *Ingress) {
		a.Location.BackendProtocol, a.Backend.Protocol = "HTTPS", "HTTPS"
	}},
	{name: "backend-protocol", value: "Grpc", want: func(a *Ingress) {
		a.Location.BackendProtocol, a.Backend.Protocol = "GRPC", "GRPC"
	}},
	{name: "canary", value: "true", want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100}}
	}},
	{name: "canary", value: "false", want: func(a *Ingress) {}},
	{name: "canary-by-cookie", value: "use_canary", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100, Cookie: "use_canary"}}
	}},
	{name: "canary-by-header", value: "X-Canary", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100, Header: "X-Canary"}}
	}},
	{name: "canary-by-header-pattern", value: "^v[0-9]+(-beta)?$", extra: []string{"canary", "true", "canary-by-header", "X-Version"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100, Header: "X-Version", HeaderPattern: "^v[0-9]+(-beta)?$"}}
	}},
	{name: "canary-by-header-value", value: "v2 beta", extra: []string{"canary", "true", "canary-by-header", "X-Version"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100, Header: "X-Version", HeaderValue: "v2 beta"}}
	}},
	{name: "canary-weight", value: "30", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{Weight: 30, WeightTotal: 100}}
	}},
	{name: "canary-weight", value: "100", extra: []string{"canary", "true"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{Weight: 100, WeightTotal: 100}}
	}},
	{name: "canary-weight", value: "30", want: func(a *Ingress) {}}, // not a canary: ignored
	{name: "canary-weight-total", value: "1000", extra: []string{"canary", "true", "canary-weight", "250"}, want: func(a *Ingress) {
		a.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{Weight: 250, WeightTotal: 1000}}
	}},
	{name: "cors-allow-credentials", value: "false", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowCredentials = false
	}},
	{name: "cors-allow-headers", value: "X-Forwarded-For, X-app123-XPTO", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowHeaders = "X-Forwarded-For, X-app123-XPTO"
	}},
	{name: "cors-allow-methods", value: "PUT,GET , POST", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowMethods = "PUT,GET , POST"
	}},
	// ingress-nginx's regex takes a comma and/or a space between methods.
	{name: "cors-allow-methods", value: "GET, POST, OPTIONS HEAD", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowMethods = "GET, POST, OPTIONS HEAD"
	}},
	{name: "cors-allow-headers", value: "X-A, X B\tX-C", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowHeaders = "X-A, X B X-C"
	}},
	{name: "cors-allow-origin", value: "https://origin-site.com:4443, http://origin-site.com, https://*.Example.org", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowOrigins = []string{"https://origin-site.com:4443", "http://origin-site.com", "https://*.example.org"}
	}},
	// ingress-nginx's e2e: origins of any scheme.
	{name: "cors-allow-origin", value: "test://localhost, tauri://localhost:3000", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.AllowOrigins = []string{"test://localhost", "tauri://localhost:3000"}
	}},
	{name: "cors-allow-origin", value: "https://a.example, *", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
	}},
	{name: "cors-allow-origin", value: "https://a.example", want: func(a *Ingress) {}}, // CORS not enabled
	{name: "cors-expose-headers", value: "*, X-CustomResponseHeader", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.ExposeHeaders = "*, X-CustomResponseHeader"
	}},
	{name: "cors-max-age", value: "600", extra: []string{"enable-cors", "true"}, want: func(a *Ingress) {
		a.Location.CORS = defaultCORS()
		a.Location.CORS.MaxAge = 600
	}},
	{name: "default-backend", value: "fallback-svc", want: func(a *Ingress) { a.DefaultBackend = "fallback-svc" }},
	{name: "denylist-source-range", value: "203.0.113.9, 198.51.100.0/24", want: func(a *Ingress) {
		a.Location.Access.Deny = []string{"198.51.100.0/24", "203.0.113.9/32"}
	}},
	{name: "enable-cors", value: "true", want: func(a *Ingress) { a.Location.CORS = defaultCORS() }},
	{name: "enable-cors", value: "false", want: func(a *Ingress) {}},
	{name: "force-ssl-redirect", value: "true", want: func(a *Ingress) { a.Location.ForceSSLRedirect = boolp(true) }},
	{name: "limit-allowlist", value: "10.0.0.0/8", extra: []string{"limit-connections", "2"}, want: func(a *Ingress) {
		a.Location.Limits = model.RateLimits{Connections: 2, Exempt: []string{"10.0.0.0/8"}}
	}},
	{name: "limit-burst-multiplier", value: "3", extra: []string{"limit-rps", "10"}, want: func(a *Ingress) {
		a.Location.Limits = model.RateLimits{RPS: 10, BurstMultiplier: 3}
	}},
	{name: "limit-burst-multiplier", value: "3", want: func(a *Ingress) {}}, // no limit-rps
	{name: "limit-connections", value: "20", want: func(a *Ingress) { a.Location.Limits.Connections = 20 }},
	{name: "limit-connections", value: "65535", want: func(a *Ingress) { a.Location.Limits.Connections = 65535 }},
	{name: "limit-rps", value: "10", want: func(a *Ingress) { a.Location.Limits = model.RateLimits{RPS: 10, BurstMultiplier: 5} }},
	{name: "limit-rps", value: "0", want: func(a *Ingress) {}},
	{name: "limit-whitelist", value: "192.168.1.7, 10.0.0.0/8", extra: []string{"limit-rps", "1"}, want: func(a *Ingress) {
		a.Location.Limits = model.RateLimits{RPS: 1, BurstMultiplier: 5, Exempt: []string{"10.0.0.0/8", "192.168.1.7/32"}}
	}},
	{name: "load-balance", value: "ewma", want: func(a *Ingress) { a.Backend.LoadBalance = "ewma" }},
	{name: "permanent-redirect", value: "https://www.example.com/new?a=b&c=%20d#top", want: func(a *Ingress) {
		a.Location.Redirect = &model.Redirect{URL: "https://www.example.com/new?a=b&c=%20d#top", Code: 301}
	}},
	{name: "permanent-redirect", value: "http://[2001:db8::1]:8080/", want: func(a *Ingress) {
		a.Location.Redirect = &model.Redirect{URL: "http://[2001:db8::1]:8080/", Code: 301}
	}},
	{name: "permanent-redirect-code", value: "308", extra: []string{"permanent-redirect", "https://example.com"}, want: func(a *Ingress) {
		a.Location.Redirect = &model.Redirect{URL: "https://example.com", Code: 308}
	}},
	{name: "permanent-redirect-code", value: "308", want: func(a *Ingress) {}}, // no URL
	{name: "proxy-body-size", value: "8m", want: func(a *Ingress) { a.Location.Proxy.BodySize = "8m" }},
	{name: "proxy-body-size", value: "0", want: func(a *Ingress) { a.Location.Proxy.BodySize = "0" }},
	{name: "proxy-buffer-size", value: "16K", want: func(a *Ingress) { a.Location.Proxy.BufferSize = "16K" }},
	{name: "proxy-buffer-size", value: "1024m", want: func(a *Ingress) { a.Location.Proxy.BufferSize = "1024m" }},
	{name: "proxy-buffering", value: "on", want: func(a *Ingress) { a.Location.Proxy.Buffering = boolp(true) }},
	{name: "proxy-buffering", value: "OFF", want: func(a *Ingress) { a.Location.Proxy.Buffering = boolp(false) }},
	{name: "proxy-request-buffering", value: "off", want: func(a *Ingress) { a.Location.Proxy.RequestBuffering = boolp(false) }},
	{name: "proxy-request-buffering", value: "On", want: func(a *Ingress) { a.Location.Proxy.RequestBuffering = boolp(true) }},
	{name: "proxy-connect-timeout", value: "15", want: func(a *Ingress) { a.Location.Proxy.ConnectTimeout = 15 }},
	{name: "proxy-read-timeout", value: "3600", want: func(a *Ingress) { a.Location.Proxy.ReadTimeout = 3600 }},
	{name: "proxy-send-timeout", value: "120", want: func(a *Ingress) { a.Location.Proxy.SendTimeout = 120 }},
	{name: "proxy-read-timeout", value: "60s", want: func(a *Ingress) { a.Location.Proxy.ReadTimeout = 60 }},
	{name: "proxy-send-timeout", value: "5m", want: func(a *Ingress) { a.Location.Proxy.SendTimeout = 300 }},
	{name: "proxy-connect-timeout", value: "5s", want: func(a *Ingress) { a.Location.Proxy.ConnectTimeout = 5 }},
	{name: "rewrite-target", value: "/$2", want: func(a *Ingress) { a.Location.RewriteTarget = "/$2" }},
	{name: "rewrite-target", value: "/api/$1/x?y=$2&z", want: func(a *Ingress) { a.Location.RewriteTarget = "/api/$1/x?y=$2&z" }},
	{name: "service-upstream", value: "true", want: func(a *Ingress) { a.Backend.ServiceUpstream = true }},
	{name: "service-upstream", value: "false", want: func(a *Ingress) {}},
	{name: "server-alias", value: "www.Example.com, *.example.org,www.example.com", want: func(a *Ingress) {
		a.ServerAliases = []string{"*.example.org", "www.example.com"}
	}},
	{name: "session-cookie-change-on-failure", value: "true", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.ChangeOnFailure = true
	}},
	{name: "session-cookie-conditional-samesite-none", value: "true", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.ConditionalSameSiteNone = true
	}},
	{name: "session-cookie-domain", value: ".Example.com", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.Domain = ".example.com"
	}},
	{name: "session-cookie-expires", value: "172800", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.Expires = "172800"
	}},
	{name: "session-cookie-max-age", value: "0", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.MaxAge = "0"
	}},
	{name: "session-cookie-name", value: "route_id", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.Name = "route_id"
	}},
	{name: "session-cookie-name", value: "route_id", want: func(a *Ingress) {}}, // no affinity
	{name: "session-cookie-path", value: "/app", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.Path = "/app"
	}},
	{name: "session-cookie-samesite", value: "lax", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.SameSite = "Lax"
	}},
	{name: "session-cookie-secure", value: "true", extra: []string{"affinity", "cookie"}, want: func(a *Ingress) {
		a.Backend.SessionAffinity = defaultAffinity()
		a.Backend.SessionAffinity.Cookie.Secure = true
	}},
	{name: "ssl-redirect", value: "false", want: func(a *Ingress) { a.Location.SSLRedirect = boolp(false) }},
	{name: "ssl-redirect", value: "true", want: func(a *Ingress) { a.Location.SSLRedirect = boolp(true) }},
	{name: "temporal-redirect", value: "http://example.com:8080/maintenance", want: func(a *Ingress) {
		a.Location.Redirect = &model.Redirect{URL: "http://example.com:8080/maintenance", Code: 302}
	}},
	{name: "temporal-redirect-code", value: "307", extra: []string{"temporal-redirect", "https://example.com"}, want: func(a *Ingress) {
		a.Location.Redirect = &model.Redirect{URL: "https://example.com", Code: 307}
	}},
	{name: "upstream-hash-by", value: "$request_uri", want: func(a *Ingress) {
		a.Backend.UpstreamHashBy = model.UpstreamHashBy{Expression: "$request_uri", SubsetSize: 3}
	}},
	{name: "upstream-hash-by", value: "${request_uri}-text-value:$host/$http_x_user", want: func(a *Ingress) {
		a.Backend.UpstreamHashBy = model.UpstreamHashBy{Expression: "${request_uri}-text-value:$host/$http_x_user", SubsetSize: 3}
	}},
	{name: "upstream-hash-by-subset", value: "true", extra: []string{"upstream-hash-by", "$binary_remote_addr"}, want: func(a *Ingress) {
		a.Backend.UpstreamHashBy = model.UpstreamHashBy{Expression: "$binary_remote_addr", Subset: true, SubsetSize: 3}
	}},
	{name: "upstream-hash-by-subset-size", value: "5", extra: []string{"upstream-hash-by", "$remote_addr", "upstream-hash-by-subset", "true"}, want: func(a *Ingress) {
		a.Backend.UpstreamHashBy = model.UpstreamHashBy{Expression: "$remote_addr", Subset: true, SubsetSize: 5}
	}},
	{name: "upstream-hash-by-subset", value: "true", want: func(a *Ingress) {}}, // no expression
	{name: "upstream-vhost", value: "Internal.example.com:8443", want: func(a *Ingress) { a.Location.UpstreamVhost = "internal.example.com:8443" }},
	{name: "ssl-passthrough", value: "true", want: func(a *Ingress) { a.SSLPassthrough = true }},
	{name: "use-regex", value: "true", want: func(a *Ingress) { a.UseRegex = true }},
	{name: "use-regex", value: "1", want: func(a *Ingress) { a.UseRegex = true }},
	{name: "whitelist-source-range", value: "10.0.0.0/24,172.10.0.1", want: func(a *Ingress) {
		a.Location.Access.Allow = []string{"10.0.0.0/24", "172.10.0.1/32"}
	}},
	{name: "x-forwarded-prefix", value: "/shop", want: func(a *Ingress) { a.Location.XForwardedPrefix = "/shop" }},
	{name: "custom-http-errors", value: "503, 404,503,418", want: func(a *Ingress) { a.ErrorPages.Codes = []int{404, 418, 503} }},
	{name: "disable-proxy-intercept-errors", value: "true", want: func(a *Ingress) { a.ErrorPages.DisableIntercept = true }},
	{name: "mirror-target", value: "https://mirror.example.com/copy$request_uri", want: func(a *Ingress) {
		a.Location.Mirror = &model.Mirror{ID: MirrorID(testIngress), Scheme: "https", HostPort: "mirror.example.com:443", URI: "/copy$request_uri", Host: "mirror.example.com", RequestBody: true}
	}},
	{name: "mirror-request-body", value: "off", extra: []string{"mirror-target", "http://10.0.0.1"}, want: func(a *Ingress) { a.Location.Mirror.RequestBody = false }},
	{name: "mirror-host", value: "copy.example.com:8080", extra: []string{"mirror-target", "http://10.0.0.1"}, want: func(a *Ingress) { a.Location.Mirror.Host = "copy.example.com:8080" }},
	{name: "custom-headers", value: "shop/headers", want: func(a *Ingress) { a.CustomHeaders = "shop/headers" }},
	{name: "from-to-www-redirect", value: "true", want: func(a *Ingress) { a.FromToWWWRedirect = true }},
	{name: "ssl-ciphers", value: "ECDHE-RSA-AES128-GCM-SHA256:!aNULL", want: func(a *Ingress) { a.SSLCiphers = "ECDHE-RSA-AES128-GCM-SHA256:!aNULL" }},
	// OpenSSL ignores an unknown name beside a known one, and aliases and
	// their combinations are not judged
	{name: "ssl-ciphers", value: "FOO-BAR:HIGH", want: func(a *Ingress) { a.SSLCiphers = "FOO-BAR:HIGH" }},
	{name: "ssl-ciphers", value: "kEECDH+AESGCM:SUITEB128", want: func(a *Ingress) { a.SSLCiphers = "kEECDH+AESGCM:SUITEB128" }},
	{name: "ssl-ciphers", value: "NULL-SHA256:@SECLEVEL=0", want: func(a *Ingress) { a.SSLCiphers = "NULL-SHA256:@SECLEVEL=0" }},
	{name: "ssl-prefer-server-ciphers", value: "true", want: func(a *Ingress) { t := true; a.SSLPreferServerCiphers = &t }},
	{name: "fastcgi-index", value: "index.php", want: func(a *Ingress) { a.FastCGIIndex = "index.php" }},
	{name: "fastcgi-params-configmap", value: "php-params", want: func(a *Ingress) { a.FastCGIParams = "php-params" }},
	{name: "configuration-snippet", value: "\nadd_header X y;\n", want: func(a *Ingress) { a.ConfigurationSnippet = "\nadd_header X y;\n" }},
	{name: "server-snippet", value: "server_tokens off;", want: func(a *Ingress) { a.ServerSnippet = "server_tokens off;" }},
}

func TestAnnotationGoodValues(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range goodAnnotationCases {
		covered[tc.name] = true
		in := annots(append([]string{tc.name, tc.value}, tc.extra...)...)
		got, problems := ParseIngress(testIngress, in)
		if len(problems) != 0 {
			t.Errorf("%s=%q: unexpected problems %v", tc.name, tc.value, problems)
			continue
		}
		want := defaultAnnotations()
		// The extra annotations alone give the baseline; tc.want adds the
		// effect of the annotation under test.
		if len(tc.extra) > 0 {
			want, _ = ParseIngress(testIngress, annots(tc.extra...))
		}
		tc.want(&want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s=%q:\n got %+v\nwant %+v", tc.name, tc.value, got, want)
		}
	}
	for _, s := range annotationSpecs {
		if !covered[s.Name] {
			t.Errorf("%s: no good value case", s.Name)
		}
	}
}

// TestAnnotationCombinedDefaults checks the baselines used above
// where they matter: a canary alone, CORS alone and affinity alone.
func TestAnnotationCombinedDefaults(t *testing.T) {
	got, _ := ParseIngress(testIngress, annots("enable-cors", "true", "affinity", "cookie", "canary", "true", "limit-rps", "7"))
	want := defaultAnnotations()
	want.Location.CORS = defaultCORS()
	want.Location.Limits = model.RateLimits{RPS: 7, BurstMultiplier: 5}
	want.Backend.SessionAffinity = defaultAffinity()
	want.Canary = Canary{Enabled: true, TrafficShaping: model.TrafficShaping{WeightTotal: 100}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

var badAnnotationCases = []annotationCase{
	// External authentication: an invalid auth-url fails closed.
	{name: "auth-always-set-cookie", value: "yes", extra: withAuthURL},
	{name: "auth-cache-duration", value: "5m 200", extra: withAuthURL},
	{name: "auth-cache-key", value: "$request_body", extra: withAuthURL},
	{name: "auth-keepalive", value: "-1", extra: withAuthURL},
	{name: "auth-keepalive-requests", value: "0", extra: withAuthURL},
	{name: "auth-keepalive-share-vars", value: "maybe", extra: withAuthURL},
	{name: "auth-keepalive-timeout", value: "0", extra: withAuthURL},
	{name: "auth-method", value: "get", extra: withAuthURL},
	{name: "auth-proxy-set-headers", value: "Bad_Name", extra: withAuthURL},
	{name: "auth-request-redirect", value: "/x;y", extra: withAuthURL},
	{name: "auth-response-headers", value: "X-Ok, X Bad", extra: withAuthURL},
	{name: "auth-signin", value: "javascript:alert(1)", extra: withAuthURL},
	{name: "auth-signin-redirect-param", value: "r d", extra: withAuthURL},
	{name: "auth-url", value: "https://OAuth2 Proxy.your-domain.com/oauth2/auth", want: func(a *Ingress) { a.Location.Denied = "invalid auth-url" }},
	{name: "auth-url", value: "http://auth.example.com/\";\n}", want: func(a *Ingress) { a.Location.Denied = "invalid auth-url" }},
	{name: "enable-global-auth", value: "nope"},
	{name: "satisfy", value: "some"},
	{name: "affinity", value: "ip"},
	{name: "affinity-canary-behavior", value: "Sticky", extra: []string{"canary", "true"}},
	{name: "affinity", value: "Cookie"},
	{name: "affinity-mode", value: "sticky", extra: []string{"affinity", "cookie"}},
	{name: "app-root", value: "app1"},
	{name: "app-root", value: "https://example.com/app"},
	{name: "app-root", value: "/a b"},
	{name: "backend-protocol", value: "AJP"},
	{name: "backend-protocol", value: "SCGI"},
	{name: "backend-protocol", value: "auto_http"},
	{name: "canary", value: "yes"},
	{name: "canary-by-cookie", value: "my cookie", extra: []string{"canary", "true"}},
	{name: "canary-by-cookie", value: "a=b", extra: []string{"canary", "true"}},
	{name: "canary-by-header", value: "X:Canary", extra: []string{"canary", "true"}},
	{name: "canary-by-header", value: "X Canary", extra: []string{"canary", "true"}},
	{name: "canary-by-header-pattern", value: "^(v1", extra: []string{"canary", "true", "canary-by-header", "X-Version"},
		want: func(a *Ingress) { a.Canary.TrafficShaping.HeaderPatternInvalid = true }},
	{name: "canary-by-header-pattern", value: `(a)\1`, extra: []string{"canary", "true"}}, // no header: nothing to refuse
	{name: "canary-by-header-value", value: "v1\tv2", extra: []string{"canary", "true"}},
	{name: "canary-by-header-value", value: "é", extra: []string{"canary", "true"}},
	{name: "canary-weight", value: "-1", extra: []string{"canary", "true"}},
	{name: "canary-weight", value: "10%", extra: []string{"canary", "true"}},
	{name: "canary-weight-total", value: "0", extra: []string{"canary", "true"}},
	{name: "cors-allow-credentials", value: "maybe", extra: []string{"enable-cors", "true"}},
	{name: "cors-allow-headers", value: "X-A; X-B", extra: []string{"enable-cors", "true"}},
	{name: "cors-allow-headers", value: " , ", extra: []string{"enable-cors", "true"}},
	{name: "cors-allow-methods", value: "GET, PO(ST", extra: []string{"enable-cors", "true"}},
	{name: "cors-expose-headers", value: "X-A, @", extra: []string{"enable-cors", "true"}},
	{name: "cors-max-age", value: "1h", extra: []string{"enable-cors", "true"}},
	{name: "default-backend", value: "Fallback"},
	{name: "default-backend", value: "other-ns/fallback"},
	{name: "default-backend", value: "1svc"},
	{name: "enable-cors", value: "on"},
	{name: "force-ssl-redirect", value: "2"},
	{name: "limit-allowlist", value: "10.0.0.0/33"},
	{name: "limit-burst-multiplier", value: "0", extra: []string{"limit-rps", "10"}},
	{name: "limit-connections", value: "many"},
	{name: "limit-connections", value: "65536"},
	{name: "limit-connections", value: "70000"},
	{name: "limit-rps", value: "1.5"},
	{name: "limit-rps", value: "+5"},
	{name: "limit-whitelist", value: "localhost"},
	{name: "load-balance", value: "least_conn"},
	{name: "load-balance", value: "EWMA"},
	{name: "permanent-redirect", value: "/relative"},
	{name: "permanent-redirect", value: "ftp://example.com/"},
	{name: "permanent-redirect", value: "https://"},
	{name: "permanent-redirect", value: "https://user:pw@example.com/"},
	{name: "permanent-redirect", value: "https://exa_mple.com/"},
	{name: "permanent-redirect", value: "https://example.com:0/"},
	{name: "permanent-redirect", value: "https://example.com/ü"},
	{name: "permanent-redirect", value: "javascript:alert(1)"},
	{name: "permanent-redirect-code", value: "200", extra: []string{"permanent-redirect", "https://example.com"},
		want: func(a *Ingress) {
			a.Location.Redirect = &model.Redirect{URL: "https://example.com", Code: 301}
		}},
	{name: "permanent-redirect-code", value: "304"},
	{name: "proxy-body-size", value: "1 m"},
	{name: "proxy-body-size", value: "1mb"},
	{name: "proxy-body-size", value: "-1"},
	{name: "proxy-body-size", value: "1234567890k"},
	{name: "proxy-buffer-size", value: "4x"},
	{name: "proxy-buffer-size", value: "2048m"},
	{name: "proxy-buffer-size", value: "1025m"},
	{name: "proxy-buffering", value: "true"},
	{name: "proxy-request-buffering", value: "false"},
	{name: "proxy-connect-timeout", value: "5 s"},
	{name: "proxy-read-timeout", value: "500ms"},
	{name: "proxy-connect-timeout", value: "0"},
	{name: "proxy-read-timeout", value: "99999999"},
	{name: "proxy-send-timeout", value: "-60"},
	{name: "rewrite-target", value: "/$host"},
	{name: "rewrite-target", value: "/$0"},
	{name: "rewrite-target", value: "/a b"},
	{name: "rewrite-target", value: "/a#b"},
	{name: "server-alias", value: "bad_host.example.com, good.example.com",
		want: func(a *Ingress) { a.ServerAliases = []string{"good.example.com"} }},
	{name: "server-alias", value: "-a.example.com"},
	{name: "server-alias", value: "a.*.example.com"},
	{name: "server-alias", value: ","},
	{name: "session-cookie-change-on-failure", value: "sometimes", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-conditional-samesite-none", value: "T R U E", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-domain", value: "*.example.com", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-expires", value: "1d", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-max-age", value: "-1", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-name", value: "my=cookie", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-name", value: "a,b", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-path", value: "app", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-path", value: "/a(b)?$", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-samesite", value: "Sometimes", extra: []string{"affinity", "cookie"}},
	{name: "session-cookie-secure", value: "yes", extra: []string{"affinity", "cookie"}},
	{name: "ssl-redirect", value: "no"},
	{name: "temporal-redirect", value: "example.com/x"},
	{name: "temporal-redirect-code", value: "308", extra: []string{"temporal-redirect", "https://example.com"},
		want: func(a *Ingress) {
			a.Location.Redirect = &model.Redirect{URL: "https://example.com", Code: 302}
		}},
	{name: "upstream-hash-by", value: "$"},
	{name: "upstream-hash-by", value: "${request_uri"},
	{name: "upstream-hash-by", value: "$1abc"},
	{name: "upstream-hash-by", value: "$host|$uri"},
	{name: "upstream-hash-by-subset", value: "yes", extra: []string{"upstream-hash-by", "$host"}},
	{name: "upstream-hash-by-subset-size", value: "0", extra: []string{"upstream-hash-by", "$host"}},
	{name: "upstream-vhost", value: "*.example.com"},
	{name: "upstream-vhost", value: "example.com:99999"},
	{name: "upstream-vhost", value: "example.com/path"},
	{name: "service-upstream", value: "yes"},
	{name: "ssl-passthrough", value: "yes please"},
	{name: "use-regex", value: "regex"},
	{name: "x-forwarded-prefix", value: "/a?b=$c"},
	{name: "x-forwarded-prefix", value: "/a b"},

	// Fail-closed and list cases have their own expected results.
	{name: "allowlist-source-range", value: "10.0.0.0/8, 10.0.0.300",
		want: func(a *Ingress) {
			a.Location.Access = model.AccessControl{Allow: []string{"10.0.0.0/8"}, DenyAll: true}
		}},
	{name: "allowlist-source-range", value: "fe80::1%eth0",
		want: func(a *Ingress) { a.Location.Access = model.AccessControl{DenyAll: true} }},
	{name: "denylist-source-range", value: "10.0.0.0/33",
		want: func(a *Ingress) { a.Location.Access = model.AccessControl{DenyAll: true} }},
	{name: "whitelist-source-range", value: "localhost",
		want: func(a *Ingress) { a.Location.Access = model.AccessControl{DenyAll: true} }},
	{name: "cors-allow-origin", value: "https://ok.example, origin.cors.com:8080", extra: []string{"enable-cors", "true"},
		want: func(a *Ingress) {
			a.Location.CORS = defaultCORS()
			a.Location.CORS.AllowOrigins = []string{"https://ok.example"}
		}},
	{name: "cors-allow-origin", value: "https://example.com/path, null", extra: []string{"enable-cors", "true"},
		want: func(a *Ingress) { a.Location.CORS = nil }},
	{name: "custom-http-errors", value: "404;return"},
	{name: "custom-http-errors", value: "600"},
	{name: "custom-http-errors", value: "302"},
	{name: "custom-http-errors", value: "abc"},
	{name: "custom-http-errors", value: "404,,503"},
	{name: "disable-proxy-intercept-errors", value: "yes"},
	{name: "mirror-target", value: "http://a.com/$remote_addr"},
	{name: "mirror-target", value: `http://a.com/";x`},
	{name: "mirror-request-body", value: "yes", extra: []string{"mirror-target", "http://10.0.0.1"}, want: func(a *Ingress) {}},
	{name: "mirror-host", value: "a.com;x", extra: []string{"mirror-target", "http://10.0.0.1"}, want: func(a *Ingress) {}},
	{name: "custom-headers", value: "a/b/c"},
	{name: "from-to-www-redirect", value: "yes"},
	{name: "ssl-ciphers", value: "HIGH;x"},
	// OpenSSL takes no cipher of these (nginx -t fails; the Lua router
	// refuses the host's entry)
	{name: "ssl-ciphers", value: "FOO-BAR"},
	{name: "ssl-ciphers", value: "ECDHE-RSA-AES128-GCM-SHA25"},
	{name: "ssl-ciphers", value: "TLS_AES_128_GCM_SHA256"},
	{name: "ssl-ciphers", value: "!aNULL:!MD5"},
	{name: "ssl-prefer-server-ciphers", value: "on"},
	{name: "fastcgi-index", value: "a/b.php"},
	{name: "fastcgi-params-configmap", value: "Bad_Name"},
	{name: "configuration-snippet", value: strings.Repeat("#", 65537)},
	{name: "server-snippet", value: strings.Repeat("#", 65537)},
}

func TestAnnotationBadValues(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range badAnnotationCases {
		covered[tc.name] = true
		in := annots(append([]string{tc.name, tc.value}, tc.extra...)...)
		got, problems := ParseIngress(testIngress, in)
		field := "metadata.annotations[nginx.ingress.kubernetes.io/" + tc.name + "]"
		if len(problems) != 1 || problems[0].Field != field || problems[0].Object != testIngress {
			t.Errorf("%s=%q: want one problem on %s, got %v", tc.name, tc.value, field, problems)
			continue
		}
		reason := problems[0].Reason
		if !strings.Contains(reason, "invalid value "+ValueQuote(strings.TrimSpace(tc.value))) {
			t.Errorf("%s=%q: reason does not quote the value: %s", tc.name, tc.value, reason)
		}
		if !strings.Contains(reason, "must") && !strings.Contains(reason, "may") && !strings.Contains(reason, "are not") && !strings.Contains(reason, "holds no") {
			t.Errorf("%s=%q: reason does not say what is accepted: %s", tc.name, tc.value, reason)
		}
		want := defaultAnnotations()
		if len(tc.extra) > 0 {
			want, _ = ParseIngress(testIngress, annots(tc.extra...))
		}
		if tc.want != nil {
			tc.want(&want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s=%q: the setting did not fall back:\n got %+v\nwant %+v", tc.name, tc.value, got, want)
		}
	}
	for _, s := range annotationSpecs {
		if !covered[s.Name] {
			t.Errorf("%s: no bad value case", s.Name)
		}
	}
}

func TestAnnotationEmptyValue(t *testing.T) {
	for _, s := range annotationSpecs {
		_, problems := ParseIngress(testIngress, annots("canary", "true", s.Name, "  "))
		if s.Name == "canary" {
			// canary itself is empty here: one problem, and canary stays off.
			_, problems = ParseIngress(testIngress, annots("canary", ""))
		}
		if len(problems) != 1 || !strings.Contains(problems[0].Reason, "is empty") {
			t.Errorf("%s: want one 'is empty' problem, got %v", s.Name, problems)
		}
	}
}

func TestAnnotationFallbackWording(t *testing.T) {
	_, problems := ParseIngress(testIngress, annots("proxy-read-timeout", "1d", "affinity-mode", "x", "app-root", "x", "allowlist-source-range", "x"))
	want := map[string]string{
		"proxy-read-timeout":     "using the default (ConfigMap proxy-read-timeout)",
		"affinity-mode":          "using the default (balanced)",
		"app-root":               "the annotation is ignored",
		"allowlist-source-range": "fail closed",
	}
	for _, p := range problems {
		name := strings.TrimSuffix(strings.TrimPrefix(p.Field, "metadata.annotations["+annotationPrefix), "]")
		if !strings.Contains(p.Reason, want[name]) {
			t.Errorf("%s: reason %q does not contain %q", name, p.Reason, want[name])
		}
		delete(want, name)
	}
	if len(want) != 0 {
		t.Errorf("missing problems for %v", want)
	}
}

func TestAnnotationSnippetsRefused(t *testing.T) {
	in := annots(
		"auth-snippet", "proxy_set_header A B;",
		"stream-snippet", "server { listen 9000; }",
		"modsecurity-snippet", "SecRuleEngine On",
		"whatever-snippet", "x",
	)
	got, problems := ParseIngress(testIngress, in)
	if !reflect.DeepEqual(got, defaultAnnotations()) {
		t.Errorf("snippets changed the settings: %+v", got)
	}
	if len(problems) != 4 {
		t.Fatalf("want 4 problems, got %v", problems)
	}
	for _, p := range problems {
		if !strings.Contains(p.Reason, "snippet annotations other than configuration-snippet and server-snippet are not supported") || !strings.Contains(p.Reason, "CVE-2025-1974") {
			t.Errorf("%s: %s", p.Field, p.Reason)
		}
		if strings.Contains(p.Reason, "proxy_set_header") || strings.Contains(p.Reason, "listen") {
			t.Errorf("%s: the snippet is echoed: %s", p.Field, p.Reason)
		}
		hinted := strings.Contains(p.Reason, "use the typed annotations instead")
		wantHint := strings.Contains(p.Field, "/auth-snippet]")
		if hinted != wantHint {
			t.Errorf("%s: hint %v, want %v: %s", p.Field, hinted, wantHint, p.Reason)
		}
	}
}

func TestAnnotationUnsupportedAndUnknown(t *testing.T) {
	in := annots("influxdb-host", "influx.example.com", "global-rate-limit", "10", "proxy-bodysize", "1m",
		"session-cookie-hash", "sha1", "zzz-unheard-of", "1")
	in["example.com/anything"] = "x"
	in["nginx.ingress.kubernetes.io"] = "x" // no slash: not ours
	got, problems := ParseIngress(testIngress, in)
	if !reflect.DeepEqual(got, defaultAnnotations()) {
		t.Errorf("unsupported annotations changed the settings: %+v", got)
	}
	want := []model.Problem{
		{Object: testIngress, Field: Field("global-rate-limit"), Reason: "not supported by kubectl-ingress; the annotation is ignored; use limit-rps (per controller replica)"},
		{Object: testIngress, Field: Field("influxdb-host"), Reason: "not supported by kubectl-ingress; the annotation is ignored"},
		{Object: testIngress, Field: Field("proxy-bodysize"), Reason: "unknown annotation: neither kubectl-ingress nor ingress-nginx has it (did you mean proxy-body-size?); the annotation is ignored"},
		{Object: testIngress, Field: Field("session-cookie-hash"), Reason: "not supported by kubectl-ingress; the annotation is ignored; ingress-nginx removed it in v0.24.0 and ignores it too"},
		{Object: testIngress, Field: Field("zzz-unheard-of"), Reason: "unknown annotation: neither kubectl-ingress nor ingress-nginx has it (check the spelling); the annotation is ignored"},
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("got %v\nwant %v", problems, want)
	}
}

func TestAnnotationFieldQuotesOddNames(t *testing.T) {
	if got := Field("rewrite-target"); got != "metadata.annotations[nginx.ingress.kubernetes.io/rewrite-target]" {
		t.Errorf("got %s", got)
	}
	_, problems := ParseIngress(testIngress, map[string]string{annotationPrefix + "a\nb": "x"})
	if len(problems) != 1 || strings.Contains(problems[0].Field, "\n") {
		t.Errorf("field must not hold a raw newline: %v", problems)
	}
}

func TestAnnotationCanaryIgnoredOnNonCanary(t *testing.T) {
	bad := []string{"canary-weight", "lots", "canary-by-header", "a b", "canary-by-header-pattern", "(", "canary-by-cookie", "=", "canary-weight-total", "0"}
	for _, canary := range []string{"", "false"} {
		kv := bad
		if canary != "" {
			kv = append([]string{"canary", canary}, bad...)
		}
		got, problems := ParseIngress(testIngress, annots(kv...))
		if len(problems) != 0 || got.Canary != (Canary{}) {
			t.Errorf("canary=%q: want canary annotations ignored, got %+v %v", canary, got.Canary, problems)
		}
	}
	// An invalid canary value is a problem and leaves canary off.
	got, problems := ParseIngress(testIngress, annots("canary", "yes", "canary-weight", "10"))
	if len(problems) != 1 || got.Canary.Enabled {
		t.Errorf("got %+v %v", got.Canary, problems)
	}
}

func TestAnnotationCanaryWeightAboveTotal(t *testing.T) {
	got, problems := ParseIngress(testIngress, annots("canary", "true", "canary-weight", "150"))
	if len(problems) != 1 || problems[0].Field != Field("canary-weight") || !strings.Contains(problems[0].Reason, "more than canary-weight-total (100)") {
		t.Errorf("problems %v", problems)
	}
	if got.Canary.TrafficShaping != (model.TrafficShaping{WeightTotal: 100}) {
		t.Errorf("got %+v", got.Canary.TrafficShaping)
	}
	got, problems = ParseIngress(testIngress, annots("canary", "true", "canary-weight", "150", "canary-weight-total", "1000"))
	if len(problems) != 0 || got.Canary.TrafficShaping.Weight != 150 {
		t.Errorf("got %+v %v", got.Canary.TrafficShaping, problems)
	}
}

func TestAnnotationRedirectPrecedence(t *testing.T) {
	got, problems := ParseIngress(testIngress, annots(
		"permanent-redirect", "https://p.example.com", "permanent-redirect-code", "308",
		"temporal-redirect", "https://t.example.com", "temporal-redirect-code", "307"))
	if want := (&model.Redirect{URL: "https://t.example.com", Code: 307}); !reflect.DeepEqual(got.Location.Redirect, want) {
		t.Errorf("got %+v", got.Location.Redirect)
	}
	if len(problems) != 1 || problems[0].Field != Field("permanent-redirect") || !strings.Contains(problems[0].Reason, "temporal-redirect") {
		t.Errorf("problems %v", problems)
	}
}

func TestAnnotationAllowlistPrecedence(t *testing.T) {
	got, problems := ParseIngress(testIngress, annots(
		"allowlist-source-range", "10.0.0.0/8", "whitelist-source-range", "192.168.0.0/16"))
	if want := (model.AccessControl{Allow: []string{"10.0.0.0/8"}}); !reflect.DeepEqual(got.Location.Access, want) {
		t.Errorf("got %+v", got.Location.Access)
	}
	if len(problems) != 1 || problems[0].Field != Field("whitelist-source-range") {
		t.Errorf("problems %v", problems)
	}
	// An invalid whitelist that allowlist overrides does not deny all.
	got, _ = ParseIngress(testIngress, annots(
		"allowlist-source-range", "10.0.0.0/8", "whitelist-source-range", "nonsense"))
	if got.Location.Access.DenyAll {
		t.Errorf("overridden whitelist must not deny all: %+v", got.Location.Access)
	}
	// Allow and deny together.
	got, problems = ParseIngress(testIngress, annots(
		"allowlist-source-range", "10.0.0.0/8", "denylist-source-range", "10.1.0.0/16"))
	if want := (model.AccessControl{Allow: []string{"10.0.0.0/8"}, Deny: []string{"10.1.0.0/16"}}); len(problems) != 0 || !reflect.DeepEqual(got.Location.Access, want) {
		t.Errorf("got %+v %v", got.Location.Access, problems)
	}
}

func TestAnnotationDeterministic(t *testing.T) {
	in := annots("server-alias", "b.example.com,a.example.com", "limit-rpm", "1", "auth-url", "x",
		"proxy-body-size", "big", "configuration-snippet", "x", "rewrite-target", "/$x", "enable-cors", "true",
		"cors-allow-origin", "https://b.example, https://a.example")
	first, firstProblems := ParseIngress(testIngress, in)
	for i := 0; i < 20; i++ {
		got, problems := ParseIngress(testIngress, in)
		if !reflect.DeepEqual(got, first) || !reflect.DeepEqual(problems, firstProblems) {
			t.Fatalf("run %d differs", i)
		}
	}
	sorted := model.SortProblems(append([]model.Problem(nil), firstProblems...))
	if !reflect.DeepEqual(sorted, firstProblems) {
		t.Errorf("problems are not sorted: %v", firstProblems)
	}
}

// injections are the byte sequences that would break out of an nginx
// string or directive, start a variable or end a C string.
var injections = []string{";", "}", "{", "\n", "\r", "\"", "'", "$", "\\", "\x00", " ", "`", "\t"}

// goodValue is a valid value of every annotation, used as the base of the
// injection cases.
func goodValue(name string) string {
	for _, tc := range goodAnnotationCases {
		if tc.name == name {
			return strings.TrimSpace(tc.value)
		}
	}
	return ""
}

// stringsIn collects every string reachable from v.
func stringsIn(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			stringsIn(v.Elem(), out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			stringsIn(v.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			stringsIn(v.Index(i), out)
		}
	}
}

func countIn(a Ingress, sub string) int {
	var all []string
	stringsIn(reflect.ValueOf(a), &all)
	n := 0
	for _, s := range all {
		n += strings.Count(s, sub)
	}
	return n
}

// TestAnnotationInjection puts each injection before, after and inside a
// valid value of every annotation. Each must be a Problem, or leave the
// output without any more of the injected bytes than the valid value gives.
// The exceptions are canary-by-header-pattern, a regex that goes to Lua as
// JSON and never to nginx.conf, which may hold any printable character, and
// inner spaces in canary-by-header-value.
func TestAnnotationInjection(t *testing.T) {
	for _, s := range annotationSpecs {
		if isTranslatedSnippet(s.Name) {
			continue // nginx text, translated by pkg/snippet (FuzzTranslate)
		}
		good := goodValue(s.Name)
		base := []string{"canary", "true", "enable-cors", "true", "affinity", "cookie", "upstream-hash-by", "$host", "limit-rps", "1", "canary-by-header", "X-C"}
		baseline, _ := ParseIngress(testIngress, annots(append(base, s.Name, good)...))
		for _, inj := range injections {
			for _, v := range []string{good + inj, inj + good, good + inj + "/", good + inj + "-" + good} {
				if v == good {
					continue
				}
				kv := append(append([]string(nil), base...), s.Name, v)
				got, problems := ParseIngress(testIngress, annots(kv...))
				refused := false
				for _, p := range problems {
					if p.Field == Field(s.Name) {
						refused = true
					}
				}
				if refused {
					continue
				}
				control := inj[0] < ' ' || inj[0] == 0x7f
				if s.Name == "canary-by-header-pattern" && !control {
					continue
				}
				if s.Name == "canary-by-header-value" && inj == " " {
					continue // inner spaces are part of header values
				}
				if s.Kind == kindTokenList && inj == " " {
					continue // a separator there; cors-allow-methods is joined with ", "
				}
				if countIn(got, inj) > countIn(baseline, inj) {
					t.Errorf("%s=%q: accepted and the output holds more %q than %q gives", s.Name, v, inj, good)
				}
			}
		}
	}
}
