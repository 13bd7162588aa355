package nginxconf

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestNextUpstreamArgs(t *testing.T) {
	for _, tc := range []struct {
		cases []string
		retry bool
		want  string
	}{
		{[]string{"error", "timeout"}, false, "proxy_next_upstream error timeout"},
		{[]string{"error", "timeout"}, true, "proxy_next_upstream error timeout non_idempotent"},
		{[]string{"non_idempotent", "http_502"}, false, "proxy_next_upstream http_502 non_idempotent"},
		{[]string{"non_idempotent", "http_502"}, true, "proxy_next_upstream http_502 non_idempotent"},
		{[]string{"off"}, true, "proxy_next_upstream off"},
	} {
		if got := strings.Join(nextUpstreamArgs(tc.cases, tc.retry), " "); got != tc.want {
			t.Errorf("%v retry %v: %q, want %q", tc.cases, tc.retry, got, tc.want)
		}
	}
}

// proxyTestConfig is one server with one location of settings st.
func proxyTestConfig(g model.Global, st model.LocationSettings) *model.Config {
	return &model.Config{
		Global:         g,
		DefaultBackend: model.DefaultBackendName,
		Servers: []model.Server{{Hostname: "proxy.test", Locations: []model.Location{{
			Path: "/", PathType: model.PathPrefix, Backend: "b", Settings: &st,
			Ingress: model.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: "ing"},
		}}}},
	}
}

// locationLines are the lines of the location "/" of proxy.test.
func locationLines(t *testing.T, c *model.Config) []string {
	t.Helper()
	conf, err := NGINXConf(c, DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := string(conf)
	i := strings.Index(s, "server_name \"proxy.test\"")
	j := strings.Index(s[i:], "location \"/\" {")
	if i < 0 || j < 0 {
		t.Fatalf("no location / of proxy.test in:\n%s", s)
	}
	body := s[i+j:]
	body = body[:strings.Index(body, "\n\t\t}")]
	var out []string
	for _, l := range strings.Split(body, "\n")[1:] {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

func hasLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestLocationProxyOnlyWhereDiffers: a location writes a proxy setting
// only where it differs from what it inherits from http level.
func TestLocationProxyOnlyWhereDiffers(t *testing.T) {
	g := model.DefaultGlobal()
	tries, timeout := g.ProxyNextUpstreamTries, g.ProxyNextUpstreamTimeout
	same := model.LocationSettings{Proxy: model.ProxySettings{
		BufferSize: g.ProxyBufferSize, BuffersNumber: g.ProxyBuffersNumber, MaxTempFileSize: g.ProxyMaxTempFileSize,
		HTTPVersion: g.ProxyHTTPVersion, NextUpstream: g.ProxyNextUpstream, NextUpstreamTries: &tries,
		NextUpstreamTimeout: &timeout, CookieDomain: &g.ProxyCookieDomain, CookiePath: &g.ProxyCookiePath,
		ClientBodyBufferSize: g.ClientBodyBufferSize,
	}}
	for _, d := range []string{"proxy_buffer", "proxy_busy", "proxy_max_temp", "proxy_http_version", "proxy_next_upstream",
		"proxy_cookie", "client_body_buffer_size", "limit_rate", "access_log", "rewrite_log"} {
		if lines := locationLines(t, proxyTestConfig(g, same)); hasLine(lines, d) {
			t.Errorf("the location writes %s though it inherits the same: %v", d, lines)
		}
	}
	// but proxy_redirect, which has no http-level line: ingress-nginx's
	// default "off" in every proxying location
	if lines := locationLines(t, proxyTestConfig(g, same)); !slices.Contains(lines, "proxy_redirect off;") {
		t.Errorf("the location writes no proxy_redirect off: %v", lines)
	}
	two, zero := 2, 0
	differs := model.LocationSettings{
		Proxy: model.ProxySettings{
			BuffersNumber: 8, BusyBuffersSize: "16k", MaxTempFileSize: "0", HTTPVersion: "1.0",
			NextUpstream: []string{"error", "http_502"}, NextUpstreamTries: &two, NextUpstreamTimeout: &zero,
			CookieDomain: &model.TextRewrite{From: "a.internal", To: "a.test"}, CookiePath: &model.TextRewrite{From: "/x/", To: "/"},
			Redirect: &model.TextRewrite{Default: true}, ClientBodyBufferSize: "1m", ConnectionHeader: "keep-alive",
		},
		Logs:   model.LocationLogs{AccessOff: true, Rewrite: true},
		Limits: model.RateLimits{Rate: &two},
	}
	g.ProxyNextUpstreamTimeout = 5
	lines := locationLines(t, proxyTestConfig(g, differs))
	for _, want := range []string{
		`proxy_buffers 8 "4k";`, `proxy_busy_buffers_size "16k";`, `proxy_max_temp_file_size "0";`, `proxy_http_version 1.0;`,
		`proxy_next_upstream error http_502;`, `proxy_next_upstream_tries 2;`, `proxy_next_upstream_timeout 0s;`,
		`proxy_cookie_domain "a.internal" "a.test";`, `proxy_cookie_path "/x/" "/";`, `proxy_redirect default;`,
		`client_body_buffer_size "1m";`, `proxy_set_header Connection "keep-alive";`, `access_log off;`, `rewrite_log on;`,
		`limit_rate 2k;`,
	} {
		if !hasLine(lines, want) {
			t.Errorf("the location lacks %s:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	// proxy_redirect follows proxy_pass, as nginx requires for "default".
	pass, redirect := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "proxy_pass") {
			pass = i
		}
		if strings.HasPrefix(l, "proxy_redirect") {
			redirect = i
		}
	}
	if redirect < pass {
		t.Errorf("proxy_redirect (line %d) before proxy_pass (line %d)", redirect, pass)
	}
}

// TestTextRewriteQuoting: the writer quotes a rewrite's texts whatever
// they hold (render refuses such values; the writer must hold anyway).
func TestTextRewriteQuoting(t *testing.T) {
	w := &confWriter{}
	writeTextRewrite(w, "proxy_cookie_path", model.TextRewrite{From: `/a"; return 200 "x`, To: "/b;\n}"})
	got := w.b.String()
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, `proxy_cookie_path "/a\"; return 200 \"x"`) {
		t.Errorf("got %q", got)
	}
	if !reflect.DeepEqual(nextUpstreamArgs(nil, false), []string{"proxy_next_upstream"}) {
		t.Errorf("no cases: %v", nextUpstreamArgs(nil, false))
	}
}
