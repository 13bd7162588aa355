package annotations

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The cases of proxy.go, proxy_location.go, ratelimit.go (limit-rpm,
// limit-rate) and configmap_client.go join the tables of
// TestAnnotationGoodValues, TestAnnotationBadValues, TestConfigMapGoodValues
// and TestConfigMapBadValues.
var _ = func() bool {
	goodAnnotationCases = append(goodAnnotationCases, proxyGoodCases...)
	badAnnotationCases = append(badAnnotationCases, proxyBadCases...)
	goodConfigCases = append(goodConfigCases, proxyGoodConfigCases...)
	badConfigCases = append(badConfigCases, proxyBadConfigCases...)
	return true
}()

func intp(n int) *int { return &n }

var proxyGoodCases = []annotationCase{
	{name: "proxy-buffers-number", value: "8", want: func(a *Ingress) { a.Location.Proxy.BuffersNumber = 8 }},
	{name: "proxy-buffers-number", value: "2", want: func(a *Ingress) { a.Location.Proxy.BuffersNumber = 2 }},
	{name: "proxy-busy-buffers-size", value: "8k", want: func(a *Ingress) { a.Location.Proxy.BusyBuffersSize = "8k" }},
	{name: "proxy-max-temp-file-size", value: "0", want: func(a *Ingress) { a.Location.Proxy.MaxTempFileSize = "0" }},
	{name: "proxy-max-temp-file-size", value: "2048m", want: func(a *Ingress) { a.Location.Proxy.MaxTempFileSize = "2048m" }},
	{name: "proxy-next-upstream", value: "error timeout http_502", want: func(a *Ingress) {
		a.Location.Proxy.NextUpstream = []string{"error", "timeout", "http_502"}
	}},
	{name: "proxy-next-upstream", value: "non_idempotent  http_503 error", want: func(a *Ingress) {
		a.Location.Proxy.NextUpstream = []string{"http_503", "error", "non_idempotent"}
	}},
	{name: "proxy-next-upstream", value: "off", want: func(a *Ingress) { a.Location.Proxy.NextUpstream = []string{"off"} }},
	{name: "proxy-next-upstream-timeout", value: "10", want: func(a *Ingress) { a.Location.Proxy.NextUpstreamTimeout = intp(10) }},
	{name: "proxy-next-upstream-timeout", value: "0", want: func(a *Ingress) { a.Location.Proxy.NextUpstreamTimeout = intp(0) }},
	{name: "proxy-next-upstream-tries", value: "1", want: func(a *Ingress) { a.Location.Proxy.NextUpstreamTries = intp(1) }},
	{name: "proxy-next-upstream-tries", value: "0", want: func(a *Ingress) { a.Location.Proxy.NextUpstreamTries = intp(0) }},
	{name: "proxy-http-version", value: "1.0", want: func(a *Ingress) { a.Location.Proxy.HTTPVersion = "1.0" }},
	{name: "proxy-cookie-domain", value: "localhost example.org", want: func(a *Ingress) {
		a.Location.Proxy.CookieDomain = &model.TextRewrite{From: "localhost", To: "example.org"}
	}},
	{name: "proxy-cookie-domain", value: "Off", want: func(a *Ingress) { a.Location.Proxy.CookieDomain = &model.TextRewrite{Off: true} }},
	{name: "proxy-cookie-path", value: "/one/  /", want: func(a *Ingress) {
		a.Location.Proxy.CookiePath = &model.TextRewrite{From: "/one/", To: "/"}
	}},
	{name: "proxy-redirect-from", value: "http://backend:8080/", want: func(a *Ingress) { a.Location.Proxy.RedirectFrom = "http://backend:8080/" }},
	{name: "proxy-redirect-from", value: "default", want: func(a *Ingress) { a.Location.Proxy.RedirectFrom = "default" }},
	{name: "proxy-redirect-to", value: "https://example.com/app/", want: func(a *Ingress) { a.Location.Proxy.RedirectTo = "https://example.com/app/" }},
	{name: "proxy-redirect-to", value: "goodbye.com", want: func(a *Ingress) { a.Location.Proxy.RedirectTo = "goodbye.com" }},
	{name: "client-body-buffer-size", value: "64k", want: func(a *Ingress) { a.Location.Proxy.ClientBodyBufferSize = "64k" }},
	{name: "connection-proxy-header", value: "keep-alive", want: func(a *Ingress) { a.Location.Proxy.ConnectionHeader = "keep-alive" }},
	{name: "enable-access-log", value: "false", want: func(a *Ingress) { a.Location.Logs.AccessOff = true }},
	{name: "enable-access-log", value: "true", want: func(a *Ingress) {}},
	{name: "enable-rewrite-log", value: "true", want: func(a *Ingress) { a.Location.Logs.Rewrite = true }},
	{name: "preserve-trailing-slash", value: "true", want: func(a *Ingress) { a.Location.PreserveTrailingSlash = boolp(true) }},
	{name: "preserve-trailing-slash", value: "false", want: func(a *Ingress) { a.Location.PreserveTrailingSlash = boolp(false) }},
	{name: "use-port-in-redirects", value: "true", want: func(a *Ingress) { a.Location.UsePortInRedirects = boolp(true) }},
	{name: "use-port-in-redirects", value: "false", want: func(a *Ingress) { a.Location.UsePortInRedirects = boolp(false) }},
	{name: "limit-rpm", value: "300", want: func(a *Ingress) { a.Location.Limits.RPM = 300; a.Location.Limits.BurstMultiplier = 5 }},
	{name: "limit-rpm", value: "10", extra: []string{"limit-burst-multiplier", "2", "limit-allowlist", "10.0.0.0/8"}, want: func(a *Ingress) {
		a.Location.Limits.RPM = 10
		a.Location.Limits.BurstMultiplier = 2
		a.Location.Limits.Exempt = []string{"10.0.0.0/8"}
	}},
	{name: "limit-rate", value: "100", want: func(a *Ingress) { a.Location.Limits.Rate = intp(100) }},
	{name: "limit-rate-after", value: "0", want: func(a *Ingress) { a.Location.Limits.RateAfter = intp(0) }},
}

var proxyBadCases = []annotationCase{
	{name: "proxy-buffers-number", value: "1"},
	{name: "proxy-buffers-number", value: "4097"},
	{name: "proxy-busy-buffers-size", value: "1g"},
	{name: "proxy-busy-buffers-size", value: "0"},
	{name: "proxy-max-temp-file-size", value: "1g"},
	{name: "proxy-max-temp-file-size", value: "-1"},
	{name: "proxy-next-upstream", value: "error,timeout"},
	{name: "proxy-next-upstream", value: "error http_418"},
	{name: "proxy-next-upstream", value: "off error"},
	{name: "proxy-next-upstream", value: "error error"},
	{name: "proxy-next-upstream", value: "non_idempotent"},
	{name: "proxy-next-upstream", value: "error;timeout"},
	{name: "proxy-next-upstream-timeout", value: "-1"},
	{name: "proxy-next-upstream-tries", value: "three"},
	{name: "proxy-http-version", value: "2.0"},
	{name: "proxy-cookie-domain", value: "example.org"},
	{name: "proxy-cookie-domain", value: "a b c"},
	{name: "proxy-cookie-domain", value: "localhost $host"},
	{name: "proxy-cookie-domain", value: `~\.x\.com$ y.com`},
	{name: "proxy-cookie-domain", value: "off x"},
	{name: "proxy-cookie-path", value: "one /"},
	{name: "proxy-cookie-path", value: "/one/ /;return 302 /"},
	{name: "proxy-cookie-path", value: "~^/one/(.*) /$1"},
	{name: "proxy-cookie-path", value: "/a\n/b"},
	{name: "proxy-redirect-from", value: "http://a/ http://b/"},
	{name: "proxy-redirect-from", value: "~^http://(.*)$"},
	{name: "proxy-redirect-from", value: "http://$host/"},
	{name: "proxy-redirect-to", value: `http://b/"`},
	{name: "proxy-redirect-to", value: "https://b/{x}"},
	{name: "client-body-buffer-size", value: "1g"},
	{name: "connection-proxy-header", value: "keep-alive, upgrade"},
	{name: "connection-proxy-header", value: "close;"},
	{name: "enable-access-log", value: "off"},
	{name: "enable-rewrite-log", value: "on"},
	{name: "preserve-trailing-slash", value: "yes"},
	{name: "use-port-in-redirects", value: "on"},
	{name: "limit-rpm", value: "-5"},
	{name: "limit-rate", value: "1m"},
	{name: "limit-rate-after", value: "x"},
}

var proxyGoodConfigCases = []configCase{
	{"proxy-buffers-number", "8", func(g *model.Global) { g.ProxyBuffersNumber = 8 }},
	{"proxy-buffers-number", "2", func(g *model.Global) { g.ProxyBuffersNumber = 2; g.ProxyBusyBuffersSize = "4k" }},
	{"proxy-busy-buffers-size", "12k", func(g *model.Global) { g.ProxyBusyBuffersSize = "12k" }},
	{"proxy-max-temp-file-size", "0", func(g *model.Global) { g.ProxyMaxTempFileSize = "0" }},
	{"proxy-next-upstream", "error timeout http_502 http_503", func(g *model.Global) {
		g.ProxyNextUpstream = []string{"error", "timeout", "http_502", "http_503"}
	}},
	{"proxy-next-upstream-timeout", "53", func(g *model.Global) { g.ProxyNextUpstreamTimeout = 53 }},
	{"proxy-next-upstream-tries", "44", func(g *model.Global) { g.ProxyNextUpstreamTries = 44 }},
	{"proxy-http-version", "1.0", func(g *model.Global) { g.ProxyHTTPVersion = "1.0" }},
	{"proxy-cookie-domain", "localhost example.org", func(g *model.Global) {
		g.ProxyCookieDomain = model.TextRewrite{From: "localhost", To: "example.org"}
	}},
	{"proxy-cookie-path", "/one/ /", func(g *model.Global) { g.ProxyCookiePath = model.TextRewrite{From: "/one/", To: "/"} }},
	{"proxy-redirect-from", "default", func(g *model.Global) { g.ProxyRedirectFrom = "default" }},
	{"proxy-redirect-to", "/app/", func(g *model.Global) { g.ProxyRedirectTo = "/app/" }},
	{"retry-non-idempotent", "true", func(g *model.Global) { g.RetryNonIdempotent = true }},
	{"proxy-stream-responses", "0", func(g *model.Global) { g.ProxyStreamResponses = 0 }},
	{"preserve-trailing-slash", "true", func(g *model.Global) { g.PreserveTrailingSlash = true }},
	{"use-port-in-redirects", "true", func(g *model.Global) { g.UsePortInRedirects = true }},
	{"client-body-buffer-size", "16k", func(g *model.Global) { g.ClientBodyBufferSize = "16k" }},
	{"client-body-timeout", "120", func(g *model.Global) { g.ClientBodyTimeout = 120 }},
	{"client-header-buffer-size", "4k", func(g *model.Global) { g.ClientHeaderBufferSize = "4k" }},
	{"client-header-timeout", "30s", func(g *model.Global) { g.ClientHeaderTimeout = 30 }},
	{"large-client-header-buffers", "4 16k", func(g *model.Global) { g.LargeClientHeaderBuffers = model.Buffers{Number: 4, Size: "16k"} }},
	{"enable-underscores-in-headers", "true", func(g *model.Global) { g.EnableUnderscoresInHeaders = true }},
	{"ignore-invalid-headers", "false", func(g *model.Global) { g.IgnoreInvalidHeaders = false }},
	{"limit-req-status-code", "429", func(g *model.Global) { g.LimitReqStatusCode = 429 }},
	{"limit-conn-status-code", "429", func(g *model.Global) { g.LimitConnStatusCode = 429 }},
	{"limit-rate", "512", func(g *model.Global) { g.LimitRate = 512 }},
	{"limit-rate-after", "1024", func(g *model.Global) { g.LimitRateAfter = 1024 }},
}

var proxyBadConfigCases = []struct{ key, value string }{
	{"proxy-buffers-number", "1"}, {"proxy-busy-buffers-size", "1g"}, {"proxy-busy-buffers-size", "16k"},
	{"proxy-busy-buffers-size", "3k"}, {"proxy-max-temp-file-size", "1g"}, {"proxy-max-temp-file-size", "1k"},
	{"proxy-next-upstream", "error,timeout"}, {"proxy-next-upstream", "http_501"},
	{"proxy-next-upstream-timeout", "x"}, {"proxy-next-upstream-tries", "-1"}, {"proxy-http-version", "2"},
	{"proxy-cookie-domain", "a"}, {"proxy-cookie-domain", "a b;"}, {"proxy-cookie-path", "/a"},
	{"proxy-cookie-path", "/a /b$x"}, {"proxy-redirect-from", "~x"}, {"proxy-redirect-to", "a b"},
	{"retry-non-idempotent", "on"}, {"proxy-stream-responses", "-1"}, {"preserve-trailing-slash", "maybe"}, {"use-port-in-redirects", "1x"},
	{"client-body-buffer-size", "8g"}, {"client-body-timeout", "0"}, {"client-header-buffer-size", "0"},
	{"client-header-timeout", "-1"}, {"large-client-header-buffers", "4"}, {"large-client-header-buffers", "0 8k"},
	{"large-client-header-buffers", "4 8k 1"}, {"large-client-header-buffers", "4 511"}, {"large-client-header-buffers", "4\t8k"}, {"enable-underscores-in-headers", "on"},
	{"ignore-invalid-headers", "off"}, {"limit-req-status-code", "200"}, {"limit-req-status-code", "600"},
	{"limit-conn-status-code", "399"}, {"limit-rate", "1k"}, {"limit-rate-after", "-1"},
}

func TestNextUpstreamArgsOrder(t *testing.T) {
	got, err := valueNextUpstream("non_idempotent http_502 error")
	if err != nil || !reflect.DeepEqual(got, []string{"http_502", "error", "non_idempotent"}) {
		t.Errorf("got %v, %v", got, err)
	}
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"1", 1, true}, {"4k", 4096, true}, {"4K", 4096, true}, {"1m", 1 << 20, true}, {"1024M", 1 << 30, true},
		{"1g", 0, false}, {"", 0, false}, {"k", 0, false}, {"1234567890", 0, false}, {"-1", 0, false}} {
		got, ok := sizeBytes(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("sizeBytes(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for n, want := range map[int64]string{1: "1", 4096: "4k", 12288: "12k", 1 << 20: "1m", 1536: "1536", 3 << 20: "3m"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCheckProxy: the buffer sizes of a location and the ConfigMap
// together, as nginx -t checks them (see proxy_check.go).
func TestCheckProxy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ann      []string
		data     map[string]string
		problems []string // the annotations with a Problem
		want     func(p *model.ProxySettings)
	}{
		{name: "busy fits", ann: []string{"proxy-busy-buffers-size", "12k"},
			want: func(p *model.ProxySettings) { p.BusyBuffersSize = "12k" }},
		{name: "busy above all buffers but one", ann: []string{"proxy-busy-buffers-size", "13k"}, problems: []string{"proxy-busy-buffers-size"}},
		{name: "busy below one buffer", ann: []string{"proxy-buffer-size", "16k", "proxy-busy-buffers-size", "8k"}, problems: []string{"proxy-busy-buffers-size"},
			want: func(p *model.ProxySettings) { p.BufferSize = "16k" }},
		{name: "two buffers: busy of one buffer", ann: []string{"proxy-buffers-number", "2"},
			want: func(p *model.ProxySettings) { p.BuffersNumber = 2; p.BusyBuffersSize = "4k" }},
		{name: "three buffers: nginx's default fits", ann: []string{"proxy-buffers-number", "3"},
			want: func(p *model.ProxySettings) { p.BuffersNumber = 3 }},
		{name: "own buffer over the ConfigMap's busy size", ann: []string{"proxy-buffer-size", "64k"}, data: map[string]string{"proxy-busy-buffers-size": "8k"},
			want: func(p *model.ProxySettings) { p.BufferSize = "64k"; p.BusyBuffersSize = "128k" }},
		{name: "own buffer within the ConfigMap's busy size", ann: []string{"proxy-buffer-size", "8k"}, data: map[string]string{"proxy-busy-buffers-size": "12k"},
			want: func(p *model.ProxySettings) { p.BufferSize = "8k" }},
		{name: "temp file below the buffer", ann: []string{"proxy-buffer-size", "64k", "proxy-max-temp-file-size", "32k"}, problems: []string{"proxy-max-temp-file-size"},
			want: func(p *model.ProxySettings) { p.BufferSize = "64k" }},
		{name: "temp file 0", ann: []string{"proxy-buffer-size", "64k", "proxy-max-temp-file-size", "0"},
			want: func(p *model.ProxySettings) { p.BufferSize = "64k"; p.MaxTempFileSize = "0" }},
		{name: "own buffer over the ConfigMap's temp file size", ann: []string{"proxy-buffer-size", "64k"}, data: map[string]string{"proxy-max-temp-file-size": "16k"},
			want: func(p *model.ProxySettings) { p.BufferSize = "64k"; p.MaxTempFileSize = "64k" }},
		{name: "redirect from and to", ann: []string{"proxy-redirect-from", "http://a/", "proxy-redirect-to", "/"},
			want: func(p *model.ProxySettings) {
				p.RedirectFrom, p.RedirectTo = "http://a/", "/"
				p.Redirect = &model.TextRewrite{From: "http://a/", To: "/"}
			}},
		{name: "redirect from without to", ann: []string{"proxy-redirect-from", "http://a/"}, problems: []string{"proxy-redirect-from"},
			want: func(p *model.ProxySettings) {
				p.RedirectFrom = "http://a/"
				p.Redirect = &model.TextRewrite{Default: true}
			}},
		{name: "redirect to from the ConfigMap", ann: []string{"proxy-redirect-from", "http://a/"}, data: map[string]string{"proxy-redirect-to": "/x/"},
			want: func(p *model.ProxySettings) {
				p.RedirectFrom = "http://a/"
				p.Redirect = &model.TextRewrite{From: "http://a/", To: "/x/"}
			}},
		{name: "redirect off", ann: []string{"proxy-redirect-from", "off", "proxy-redirect-to", "/"},
			want: func(p *model.ProxySettings) { p.RedirectFrom, p.RedirectTo = "off", "/" }},
		{name: "redirect default", ann: []string{"proxy-redirect-from", "default"},
			want: func(p *model.ProxySettings) {
				p.RedirectFrom = "default"
				p.Redirect = &model.TextRewrite{Default: true}
			}},
	} {
		g, ps := ParseConfigMap(testConfigMap, tc.data)
		if len(ps) != 0 {
			t.Fatalf("%s: ConfigMap problems %v", tc.name, ps)
		}
		a, ps := ParseIngress(testIngress, annots(tc.ann...))
		if len(ps) != 0 {
			t.Fatalf("%s: problems %v", tc.name, ps)
		}
		problems := CheckProxy(testIngress, g, &a.Location)
		var fields []string
		for _, p := range problems {
			fields = append(fields, p.Field)
			if !strings.Contains(p.Reason, "nginx") {
				t.Errorf("%s: %s: the reason does not say why: %s", tc.name, p.Field, p.Reason)
			}
		}
		var want []string
		for _, n := range tc.problems {
			want = append(want, Field(n))
		}
		if !reflect.DeepEqual(fields, want) {
			t.Errorf("%s: problems %v, want on %v", tc.name, problems, want)
		}
		var wantProxy model.ProxySettings
		if tc.want != nil {
			tc.want(&wantProxy)
		}
		if !reflect.DeepEqual(a.Location.Proxy, wantProxy) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, a.Location.Proxy, wantProxy)
		}
	}
}

// TestConfigMapProxyCombination: a ConfigMap whose busy or temporary file
// size its own buffers do not fit keeps the default of that key.
func TestConfigMapProxyCombination(t *testing.T) {
	for _, tc := range []struct {
		data map[string]string
		key  string
	}{
		{map[string]string{"proxy-buffer-size": "16k", "proxy-busy-buffers-size": "8k"}, "proxy-busy-buffers-size"},
		{map[string]string{"proxy-buffers-number": "3", "proxy-busy-buffers-size": "12k"}, "proxy-busy-buffers-size"},
		{map[string]string{"proxy-buffer-size": "16k", "proxy-max-temp-file-size": "8k"}, "proxy-max-temp-file-size"},
	} {
		g, ps := ParseConfigMap(testConfigMap, tc.data)
		if len(ps) != 1 || ps[0].Field != ConfigField(tc.key) || !strings.Contains(ps[0].Reason, "nginx -t refuses") {
			t.Errorf("%v: problems %v, want one on %s", tc.data, ps, tc.key)
		}
		if g.ProxyBusyBuffersSize != "" || g.ProxyMaxTempFileSize != "1024m" {
			t.Errorf("%v: kept %q %q", tc.data, g.ProxyBusyBuffersSize, g.ProxyMaxTempFileSize)
		}
	}
}
