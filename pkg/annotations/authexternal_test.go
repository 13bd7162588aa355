package annotations

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// testAuthURL is the auth-url of the cases that need one.
const testAuthURL = "http://auth.example.com/check"

// wantAuth returns the want of an annotation case: the external
// authentication of testAuthURL with the defaults, changed by mod.
func wantAuth(mod func(e *model.ExternalAuth)) func(a *Ingress) {
	return func(a *Ingress) {
		e := &model.ExternalAuth{URL: testAuthURL, Host: "auth.example.com",
			CacheDuration: []string{model.DefaultAuthCacheDuration}, KeepaliveRequests: 1000, KeepaliveTimeout: 60}
		if mod != nil {
			mod(e)
		}
		a.Location.ExternalAuth = e
	}
}

// withAuthURL is the extra annotation of the cases that need auth-url.
var withAuthURL = []string{"auth-url", testAuthURL}

func TestAuthURL(t *testing.T) {
	for _, tc := range []struct {
		v, host string
		bad     string // part of the reason; "" for valid
	}{
		{v: "https://$host/oauth2/auth", host: "$host"},
		{v: "http://oauth2-proxy.auth.svc.cluster.local/oauth2/auth", host: "oauth2-proxy.auth.svc.cluster.local"},
		{v: "https://auth.holthome.net/oauth2/auth?allowed_groups=paperless", host: "auth.holthome.net"},
		{v: "http://demo-auth-service.default.svc.cluster.local?code=200", host: "demo-auth-service.default.svc.cluster.local"},
		{v: "http://127.0.0.1:9000/check", host: "127.0.0.1"},
		{v: "http://[::1]:9000/check", host: "[::1]"},
		{v: "https://$best_http_host:8443/x?u=$escaped_request_uri&m=$request_method", host: "$best_http_host"},
		{v: "https://auth.bjw-s.dev/oauth2/start?rd=$scheme://$best_http_host$request_uri", host: "auth.bjw-s.dev"},
		{v: "https://OAuth2 Proxy.your-domain.com/oauth2/auth", bad: "whitespace"},
		{v: "ftp://auth.example.com/x", bad: "absolute http or https"},
		{v: "HTTP://auth.example.com/x", bad: "absolute http or https"},
		{v: "/oauth2/auth", bad: "absolute http or https"},
		{v: "http://user:pw@auth.example.com/x", bad: "user information"},
		{v: "http://auth.example.com:0/x", bad: "port"},
		{v: "http://auth.example.com:/x", bad: "port"},
		{v: "http://auth.example.com/x#frag", bad: "fragment"},
		{v: "http://$request_uri/x", bad: "host"},
		{v: "http://a$host/x", bad: "host"},
		{v: "http://169.254.169.254/latest/meta-data", bad: "link-local"},
		{v: "http://0.0.0.0/x", bad: "unspecified"},
		{v: "http://metadata.google.internal/x", bad: "metadata"},
		{v: "http://1.2.3/x", bad: "host"},
		{v: "http://auth.example.com/$uri", bad: "$uri"},
		{v: "http://auth.example.com/${host}", bad: "must not contain"},
		{v: "http://auth.example.com/$", bad: "starts no variable"},
		{v: "http://auth.example.com/x$hostx", bad: "$hostx"},
		{v: "http://auth.example.com/x\";\nreturn 200;#", bad: "must not contain"},
		{v: "http://auth.example.com/x;", bad: "must not contain"},
		{v: "http://auth.example.com/x'", bad: "must not contain"},
		{v: "http://auth.example.com/x}", bad: "must not contain"},
		{v: "http://auth.example.com/\\x", bad: "must not contain"},
		{v: "http://auth.example.com/x\r", bad: "control"},
		{v: "http://auth.example.com/é", bad: "ASCII"},
	} {
		u, host, err := valueAuthURL(tc.v)
		switch {
		case tc.bad == "" && (err != nil || u != tc.v || host != tc.host):
			t.Errorf("%q: got %q %q %v, want %q", tc.v, u, host, err, tc.host)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%q: got %q %v, want an error saying %q", tc.v, u, err, tc.bad)
		}
	}
}

// TestAuthInjection: with auth-url set, every injection into each of the
// external authentication annotations is a Problem and leaves the
// setting at its default (auth-url: the location fails closed).
func TestAuthInjection(t *testing.T) {
	for _, s := range authExternalAnnotations {
		good := goodValue(s.Name)
		baseline, problems := ParseIngress(testIngress, annots(append([]string{s.Name, good}, withAuthURL...)...))
		if s.Name == "auth-url" {
			baseline, problems = ParseIngress(testIngress, annots(s.Name, good))
		}
		if len(problems) != 0 {
			t.Fatalf("%s=%q: %v", s.Name, good, problems)
		}
		for _, inj := range injections {
			for _, v := range []string{good + inj, inj + good, good + inj + "/", good + inj + "-" + good, good + inj + "$host"} {
				if strings.TrimSpace(v) == good || (s.Kind == kindTokenList && strings.Trim(inj, " \t") == "") {
					continue
				}
				kv := []string{s.Name, v}
				if s.Name != "auth-url" {
					kv = append(kv, withAuthURL...)
				}
				got, problems := ParseIngress(testIngress, annots(kv...))
				if len(problems) != 1 || problems[0].Field != Field(s.Name) || !strings.Contains(problems[0].Reason, "invalid value") {
					t.Errorf("%s=%q: want one invalid value problem, got %v", s.Name, v, problems)
					continue
				}
				if countIn(got, inj) > countIn(baseline, inj) && inj != " " {
					t.Errorf("%s=%q: the output holds more %q than %q gives", s.Name, v, inj, good)
				}
				if s.Name == "auth-url" && (got.Location.Denied == "" || got.Location.ExternalAuth != nil) {
					t.Errorf("auth-url=%q: the location does not fail closed: %+v", v, got.Location)
				}
			}
		}
	}
}

func TestAuthWithoutURL(t *testing.T) {
	got, problems := ParseIngress(testIngress, annots("auth-signin", "https://$host/oauth2/start", "auth-method", "GET", "auth-response-headers", "X-User"))
	if got.Location.ExternalAuth != nil || got.Location.Denied != "" {
		t.Errorf("no auth-url: got %+v", got.Location)
	}
	// auth-method GET is its default: it changes nothing either way.
	want := []string{Field("auth-response-headers"), Field("auth-signin")}
	if len(problems) != len(want) {
		t.Fatalf("got %v, want problems on %v", problems, want)
	}
	for i, p := range problems {
		if p.Field != want[i] || p.Reason != "ignored: auth-url is not set" {
			t.Errorf("problem %d: %v", i, p)
		}
	}
}

func TestAuthProxySetHeadersNamespace(t *testing.T) {
	for _, tc := range []struct {
		ref, want string
		denied    bool
	}{
		{"auth-headers", "shop/auth-headers", false},
		{"shop/auth-headers", "shop/auth-headers", false},
		{"kube-system/auth-headers", "", true},
	} {
		got, problems := ParseIngress(testIngress, annots("auth-url", testAuthURL, "auth-proxy-set-headers", tc.ref))
		a := got.Location.ExternalAuth
		if a == nil || a.ProxySetHeadersConfigMap != tc.want || (got.Location.Denied != "") != tc.denied || (len(problems) != 0) != tc.denied {
			t.Errorf("%s: got %+v %q %v", tc.ref, a, got.Location.Denied, problems)
		}
	}
}

func TestAuthProxySetHeaders(t *testing.T) {
	hs, err := AuthProxySetHeaders(map[string]string{"X-Forwarded-Uri": "$request_uri", "X-Auth-Secret": "s3cr et", "X_Under": "1"})
	want := []model.Header{{Name: "X-Auth-Secret", Value: "s3cr et"}, {Name: "X-Forwarded-Uri", Value: "$request_uri", Vars: true}, {Name: "X_Under", Value: "1"}}
	if err != nil || !reflect.DeepEqual(hs, want) {
		t.Errorf("got %+v %v", hs, err)
	}
	for _, data := range []map[string]string{
		{"X Bad": "1"}, {"X-Ok": "a;b"}, {"X-Ok": "a\nb"}, {"X-Ok": "$request_body"}, {"X-Ok": "\"q"},
		{"X-Ok": "${host}"}, {"X-Ok": ""}, {"X-Ok;": "1"}, {"X-Ok": "{"}, {"X-Ok": "a\\"}, {strings.Repeat("h", 47): "1"},
	} {
		if hs, err := AuthProxySetHeaders(data); err == nil {
			t.Errorf("%q: accepted %+v", data, hs)
		}
	}
}

// TestAuthHeaderNameLength: 46 bytes is the longest header name nginx's
// default proxy_headers_hash bucket takes (the sweep checks it with nginx).
func TestAuthHeaderNameLength(t *testing.T) {
	if _, err := valueAuthHeaderNames(strings.Repeat("h", 46)); err != nil {
		t.Errorf("46 bytes: %v", err)
	}
	if _, err := valueAuthHeaderNames(strings.Repeat("h", 47)); err == nil {
		t.Errorf("47 bytes accepted")
	}
}

func TestAuthCacheDuration(t *testing.T) {
	got, err := valueAuthCacheDuration("200 202 401 5m, 500  1y 2M 3w 4d 5h 1m 30s ,30m")
	if want := []string{"200 202 401 5m", "500 1y 2M 3w 4d 5h 1m 30s", "30m"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q %v", got, err)
	}
	for _, v := range []string{"5m 200", "200", "200 5x", "200 5m;", "any 5m", "99 5m", ",", "200 30m 1h", "200 1m 1m", "200 5ms", "200 5m 200"} {
		if d, err := valueAuthCacheDuration(v); err == nil {
			t.Errorf("%q: accepted %q", v, d)
		}
	}
}

func TestGlobalAuthConfig(t *testing.T) {
	g, problems := ParseConfigMap(testConfigMap, map[string]string{
		"global-auth-url":              "http://ak-outpost.authentik.svc.cluster.local:9000/outpost.goauthentik.io/auth/nginx",
		"global-auth-signin":           "https://authentik.example.com/outpost.goauthentik.io/start?rd=$scheme://$host$request_uri",
		"global-auth-response-headers": "Set-Cookie,X-authentik-username,X-authentik-groups",
		"global-auth-snippet":          "proxy_set_header X-Forwarded-Host $http_host;",
		"no-auth-locations":            "/.well-known/acme-challenge,/healthz",
	})
	want := model.DefaultGlobal()
	want.GlobalAuth.URL = "http://ak-outpost.authentik.svc.cluster.local:9000/outpost.goauthentik.io/auth/nginx"
	want.GlobalAuth.Host = "ak-outpost.authentik.svc.cluster.local"
	want.GlobalAuth.SigninURL = "https://authentik.example.com/outpost.goauthentik.io/start?rd=$scheme://$host$request_uri"
	want.GlobalAuth.ResponseHeaders = []string{"Set-Cookie", "X-authentik-username", "X-authentik-groups"}
	want.NoAuthLocations = []string{"/.well-known/acme-challenge", "/healthz"}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("got %+v\nwant %+v", g.GlobalAuth, want.GlobalAuth)
	}
	if len(problems) != 1 || problems[0].Field != "data[global-auth-snippet]" || !strings.Contains(problems[0].Reason, "snippet") {
		t.Errorf("problems %v", problems)
	}
	_, problems = ParseConfigMap(testConfigMap, map[string]string{"global-auth-url": "http://x/$request_body"})
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "the key is ignored") {
		t.Errorf("invalid global-auth-url: %v", problems)
	}
}
