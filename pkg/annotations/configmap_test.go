package annotations

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

var testConfigMap = model.ObjectRef{Kind: "ConfigMap", Namespace: "ingress-nginx", Name: "ingress-nginx-controller"}

func TestConfigMapDefaults(t *testing.T) {
	for _, data := range []map[string]string{nil, {}} {
		g, problems := ParseConfigMap(testConfigMap, data)
		if len(problems) != 0 || !reflect.DeepEqual(g, model.DefaultGlobal()) {
			t.Errorf("%v: got %+v %v", data, g, problems)
		}
	}
}

// TestConfigMapSpecDefaults checks that the documented default of every key
// is accepted and gives model.DefaultGlobal.
func TestConfigMapSpecDefaults(t *testing.T) {
	data := map[string]string{}
	for _, s := range configKeySpecs {
		if !s.NoDefault {
			data[s.Key] = s.Default
		}
	}
	g, problems := ParseConfigMap(testConfigMap, data)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	if !reflect.DeepEqual(g, model.DefaultGlobal()) {
		t.Errorf("got %+v\nwant %+v", g, model.DefaultGlobal())
	}
}

func TestConfigMapSpecTable(t *testing.T) {
	keys := make([]string, len(configKeySpecs))
	for i, s := range configKeySpecs {
		keys[i] = s.Key
		if s.Description == "" || s.Kind == "" || (s.Default == "") != s.NoDefault || s.set == nil {
			t.Errorf("%s: incomplete spec", s.Key)
		}
		if lookupConfigKeySpec(s.Key) != &configKeySpecs[i] {
			t.Errorf("%s: lookup does not find it", s.Key)
		}
	}
	if !sort.StringsAreSorted(keys) || hasDuplicates(keys) {
		t.Errorf("configKeySpecs must be sorted and unique: %v", keys)
	}
	if lookupConfigKeySpec("nope") != nil {
		t.Errorf("lookup of a missing key must be nil")
	}
}

// TestConfigKeyFamilies checks that the joined table holds exactly the
// entries of the family files: each one found by lookupConfigKeySpec, in
// one family only.
func TestConfigKeyFamilies(t *testing.T) {
	n := 0
	family := map[string]string{}
	for _, f := range configKeyFamilies() {
		if len(f.Specs) == 0 {
			t.Errorf("family %s is empty", f.Name)
		}
		for _, s := range f.Specs {
			n++
			if other, ok := family[s.Key]; ok {
				t.Errorf("%s is in families %s and %s", s.Key, other, f.Name)
			}
			family[s.Key] = f.Name
			got := lookupConfigKeySpec(s.Key)
			if got == nil {
				t.Errorf("%s (family %s): lookup does not find it", s.Key, f.Name)
				continue
			}
			if got.Key != s.Key || got.Description != s.Description || got.Kind != s.Kind || got.Default != s.Default ||
				reflect.ValueOf(got.set).Pointer() != reflect.ValueOf(s.set).Pointer() {
				t.Errorf("%s (family %s): lookup finds another entry", s.Key, f.Name)
			}
		}
	}
	if n != len(configKeySpecs) {
		t.Errorf("the families hold %d keys, the table %d", n, len(configKeySpecs))
	}
}

type configCase struct {
	key, value string
	want       func(g *model.Global)
}

var goodConfigCases = []configCase{
	{"allow-snippet-annotations", "false", func(g *model.Global) { g.Policy.DisableSnippets = true }},
	{"global-auth-always-set-cookie", "true", func(g *model.Global) { g.GlobalAuth.AlwaysSetCookie = true }},
	{"global-auth-cache-duration", "200 201 401 30m", func(g *model.Global) { g.GlobalAuth.CacheDuration = []string{"200 201 401 30m"} }},
	{"global-auth-cache-key", "foo", func(g *model.Global) { g.GlobalAuth.CacheKey = "foo" }},
	{"global-auth-method", "POST", func(g *model.Global) { g.GlobalAuth.Method = "POST" }},
	{"global-auth-request-redirect", "Foo-Redirect", func(g *model.Global) { g.GlobalAuth.RequestRedirect = "Foo-Redirect" }},
	{"global-auth-response-headers", "Foo, Bar", func(g *model.Global) { g.GlobalAuth.ResponseHeaders = []string{"Foo", "Bar"} }},
	{"global-auth-signin", "http://foo.com/global-error-page", func(g *model.Global) { g.GlobalAuth.SigninURL = "http://foo.com/global-error-page" }},
	{"global-auth-signin-redirect-param", "orig", func(g *model.Global) { g.GlobalAuth.SigninRedirectParam = "orig" }},
	{"global-auth-signin-redirect-param", "rd", func(g *model.Global) {}},
	{"global-auth-url", "http://auth.example.com:9000/check", func(g *model.Global) {
		g.GlobalAuth.URL, g.GlobalAuth.Host = "http://auth.example.com:9000/check", "auth.example.com"
	}},
	{"no-auth-locations", "/.well-known/acme-challenge, /healthz", func(g *model.Global) { g.NoAuthLocations = []string{"/.well-known/acme-challenge", "/healthz"} }},
	{"gzip-level", "9", func(g *model.Global) { g.GzipLevel = 9 }},
	{"gzip-types", "text/html  application/json\ntext/css", func(g *model.Global) { g.GzipTypes = []string{"text/html", "application/json", "text/css"} }},
	{"gzip-types", "*", func(g *model.Global) { g.GzipTypes = []string{"*"} }},
	{"hsts", "false", func(g *model.Global) { g.HSTS = false }},
	{"hsts-include-subdomains", "false", func(g *model.Global) { g.HSTSIncludeSubdomains = false }},
	{"hsts-max-age", "0", func(g *model.Global) { g.HSTSMaxAge = 0 }},
	{"hsts-max-age", "63072000", func(g *model.Global) { g.HSTSMaxAge = 63072000 }},
	{"hsts-preload", "true", func(g *model.Global) { g.HSTSPreload = true }},
	{"keep-alive", "0", func(g *model.Global) { g.KeepAlive = 0 }},
	{"keep-alive", "300", func(g *model.Global) { g.KeepAlive = 300 }},
	{"keep-alive-requests", "10000", func(g *model.Global) { g.KeepAliveRequests = 10000 }},
	{"load-balance", "ewma", func(g *model.Global) { g.LoadBalance = "ewma" }},
	{"proxy-body-size", "0", func(g *model.Global) { g.ProxyBodySize = "0" }},
	{"proxy-body-size", "100M", func(g *model.Global) { g.ProxyBodySize = "100M" }},
	{"proxy-buffer-size", "16k", func(g *model.Global) { g.ProxyBufferSize = "16k" }},
	{"proxy-buffer-size", "1024m", func(g *model.Global) { g.ProxyBufferSize = "1024m" }},
	{"proxy-buffering", "on", func(g *model.Global) { g.ProxyBuffering = true }},
	{"proxy-request-buffering", "off", func(g *model.Global) { g.ProxyRequestBuffering = false }},
	{"proxy-connect-timeout", "10", func(g *model.Global) { g.ProxyConnectTimeout = 10 }},
	{"proxy-read-timeout", "3600", func(g *model.Global) { g.ProxyReadTimeout = 3600 }},
	{"proxy-send-timeout", "3600", func(g *model.Global) { g.ProxySendTimeout = 3600 }},
	{"server-tokens", "true", func(g *model.Global) { g.ServerTokens = true }},
	{"ssl-redirect", "false", func(g *model.Global) { g.SSLRedirect = false }},
	{"upstream-keepalive-connections", "0", func(g *model.Global) { g.UpstreamKeepaliveConnections = 0 }},
	{"upstream-keepalive-connections", "65535", func(g *model.Global) { g.UpstreamKeepaliveConnections = 65535 }},
	{"use-forwarded-headers", "true", func(g *model.Global) { g.UseForwardedHeaders = true }},
	{"use-gzip", " true\n", func(g *model.Global) { g.UseGzip = true }},
	{"worker-processes", "4", func(g *model.Global) { g.WorkerProcesses = "4" }},
	{"worker-processes", "08", func(g *model.Global) { g.WorkerProcesses = "8" }},
	{"custom-http-errors", "404,401,403,500,503", func(g *model.Global) { g.CustomHTTPErrors = []int{401, 403, 404, 500, 503} }},
	{"custom-http-errors", " 304, 599 ", func(g *model.Global) { g.CustomHTTPErrors = []int{304, 599} }},
	{"add-headers", "ingress-nginx/resp-headers", func(g *model.Global) { g.AddHeaders = "ingress-nginx/resp-headers" }},
	{"proxy-set-headers", "req-headers", func(g *model.Global) { g.ProxySetHeaders = "req-headers" }},
	{"proxy-add-original-uri-header", "true", func(g *model.Global) { g.ProxyAddOriginalURIHeader = true }},
	{"global-allowed-response-headers", "X-A, My_Header", func(g *model.Global) { g.AllowedResponseHeaders = []string{"X-A", "My_Header"} }},
}

func TestConfigMapGoodValues(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range append(goodConfigCases, goodGlobalConfigCases...) {
		covered[tc.key] = true
		g, problems := ParseConfigMap(testConfigMap, map[string]string{tc.key: tc.value})
		want := model.DefaultGlobal()
		tc.want(&want)
		if len(problems) != 0 || !reflect.DeepEqual(g, want) {
			t.Errorf("%s=%q: got %+v %v", tc.key, tc.value, g, problems)
		}
	}
	for _, s := range configKeySpecs {
		if !covered[s.Key] && !alwaysProblemConfigKeys[s.Key] {
			t.Errorf("%s: no good value case", s.Key)
		}
	}
}

var badConfigCases = []struct{ key, value string }{
	{"allow-snippet-annotations", "maybe"},
	{"global-auth-always-set-cookie", "yes"}, {"global-auth-cache-duration", "30m 200"}, {"global-auth-cache-key", "$request_body"},
	{"global-auth-method", "FETCH"}, {"global-auth-request-redirect", "a;b"}, {"global-auth-response-headers", "A B"},
	{"global-auth-signin", "ftp://x"}, {"global-auth-signin-redirect-param", "a b"}, {"global-auth-url", "http://x/$uri"},
	{"no-auth-locations", "healthz"},
	{"gzip-level", "0"}, {"gzip-level", "10"}, {"gzip-level", "best"},
	{"gzip-types", "text/html,text/css"}, {"gzip-types", "text/html; gzip off"}, {"gzip-types", "text"},
	{"hsts", "yes"}, {"hsts-include-subdomains", "on"}, {"hsts-max-age", "1y"}, {"hsts-max-age", "-1"},
	{"hsts-preload", "nope"}, {"keep-alive", "75s"}, {"keep-alive", "9999999"}, {"keep-alive-requests", "0"},
	{"load-balance", "least_conn"}, {"load-balance", "chash"},
	{"proxy-body-size", "1 m"}, {"proxy-body-size", "10MB"}, {"proxy-buffer-size", "4kb"},
	{"proxy-buffer-size", "2048m"}, {"proxy-buffer-size", "1025m"}, {"proxy-buffer-size", "1048577k"},
	{"proxy-buffering", "true"}, {"proxy-request-buffering", "no"}, {"proxy-connect-timeout", "0"}, {"proxy-connect-timeout", "5 s"},
	{"proxy-read-timeout", "-1"}, {"proxy-send-timeout", "1.5"},
	{"server-tokens", "off"}, {"ssl-redirect", "maybe"}, {"upstream-keepalive-connections", "lots"},
	{"upstream-keepalive-connections", "65536"}, {"upstream-keepalive-connections", "2147483647"},
	{"use-forwarded-headers", "on"}, {"use-gzip", "gzip"},
	{"worker-processes", "0"}, {"worker-processes", "AUTO"}, {"worker-processes", "auto;"}, {"worker-processes", "2000"},
	{"proxy-body-size", ""},
	{"custom-http-errors", "404;return"}, {"custom-http-errors", "600"}, {"custom-http-errors", "299"},
	{"custom-http-errors", "abc"}, {"custom-http-errors", "404,"},
	{"add-headers", "a/b/c"}, {"add-headers", "Ns/x"}, {"proxy-set-headers", "x;y"}, {"proxy-add-original-uri-header", "yes"}, {"proxy-set-headers", "/x"},
	{"global-allowed-response-headers", "X A"}, {"global-allowed-response-headers", "X:A"},
}

func TestConfigMapBadValues(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range append(badConfigCases, badGlobalConfigCases...) {
		covered[tc.key] = true
		g, problems := ParseConfigMap(testConfigMap, map[string]string{tc.key: tc.value})
		if !reflect.DeepEqual(g, model.DefaultGlobal()) {
			t.Errorf("%s=%q: the key did not keep its default: %+v", tc.key, tc.value, g)
		}
		if len(problems) != 1 {
			t.Errorf("%s=%q: want one problem, got %v", tc.key, tc.value, problems)
			continue
		}
		p := problems[0]
		spec := lookupConfigKeySpec(tc.key)
		if p.Object != testConfigMap || p.Field != "data["+tc.key+"]" ||
			!strings.Contains(p.Reason, "invalid value "+ValueQuote(tc.value)) ||
			!(strings.Contains(p.Reason, "using the default ("+spec.Default+")") || spec.NoDefault && strings.Contains(p.Reason, "the key is ignored")) ||
			!(strings.Contains(p.Reason, "must") || strings.Contains(p.Reason, "is empty")) {
			t.Errorf("%s=%q: problem %v", tc.key, tc.value, p)
		}
	}
	for _, s := range configKeySpecs {
		if !covered[s.Key] {
			t.Errorf("%s: no bad value case", s.Key)
		}
	}
}

func TestConfigMapUnsupportedKeys(t *testing.T) {
	data := map[string]string{
		"allow-snippet-annotations": "true",
		"http-snippet":              "server { listen 1; }",
		"enable-opentelemetry":      "true",
		"use-gzip":                  "true",
		"weird key\n":               "x",
	}
	g, problems := ParseConfigMap(testConfigMap, data)
	want := model.DefaultGlobal()
	want.UseGzip = true
	if !reflect.DeepEqual(g, want) {
		t.Errorf("got %+v", g)
	}
	wantProblems := []model.Problem{
		{Object: testConfigMap, Field: "data[enable-opentelemetry]", Reason: "not supported by kubectl-ingress: OpenTelemetry tracing needs an nginx OpenTelemetry module, which Debian does not ship; the key is ignored"},
		{Object: testConfigMap, Field: "data[http-snippet]", Reason: "snippets are not supported: they inject raw nginx configuration, the cause of the CVE-2025-1974 class of injection vulnerabilities; the key is ignored"},
		{Object: testConfigMap, Field: `data["weird key\n"]`, Reason: "unknown key: neither kubectl-ingress nor ingress-nginx has it (check the spelling); the key is ignored"},
	}
	if !reflect.DeepEqual(problems, wantProblems) {
		t.Errorf("got %v\nwant %v", problems, wantProblems)
	}
}

func TestConfigMapDeterministic(t *testing.T) {
	data := map[string]string{"z-key": "1", "a-key": "2", "gzip-level": "x", "keep-alive": "y", "m-snippet": "z"}
	_, first := ParseConfigMap(testConfigMap, data)
	for i := 0; i < 20; i++ {
		if _, p := ParseConfigMap(testConfigMap, data); !reflect.DeepEqual(p, first) {
			t.Fatalf("run %d differs", i)
		}
	}
	if !reflect.DeepEqual(model.SortProblems(append([]model.Problem(nil), first...)), first) {
		t.Errorf("problems are not sorted: %v", first)
	}
}

// TestConfigMapInjection: every key refuses values with the bytes that would
// break out of an nginx directive, and keeps its default.
func TestConfigMapInjection(t *testing.T) {
	for _, s := range configKeySpecs {
		if quotedConfigKeys[s.Key] {
			continue // TestGlobalConfigInjection
		}
		for _, inj := range injections {
			forms := []string{s.Default + inj + "x", s.Default + inj, inj + s.Default}
			if s.Default == "" {
				// No default to surround: inside a valid value instead.
				forms = []string{"x" + inj + "x", "x/x" + inj + "x"}
			}
			for _, v := range forms {
				if strings.TrimSpace(v) == s.Default {
					continue // surrounding whitespace is trimmed
				}
				g, problems := ParseConfigMap(testConfigMap, map[string]string{s.Key: v})
				if len(problems) != 1 || !reflect.DeepEqual(g, model.DefaultGlobal()) {
					t.Errorf("%s=%q: accepted (%v)", s.Key, v, problems)
				}
			}
		}
	}
}
