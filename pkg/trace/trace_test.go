package trace

import (
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestNormalizePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/", "/"},
		{"/a//b", "/a/b"},
		{"//a", "/a"},
		{"/a/./b", "/a/b"},
		{"/a/../b", "/b"},
		{"/a/b/..", "/a/"},
		{"/a/.", "/a/"},
		{"/a%2Fb", "/a/b"},
		{"/a%2F%2Fb", "/a/b"},
		{"/a/%2E%2E/b", "/b"},
		{"/%41", "/A"},
		{"/a%25b", "/a%b"},
		{"/a%3Fb", "/a?b"},
		{"/a/..b", "/a/..b"},
		{"/.a", "/.a"},
	} {
		got, err := normalizePath(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("normalizePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"/..", "/a/../..", "/%zz", "/%4", "a", "/%2e%2e"} {
		if got, err := normalizePath(bad); err == nil {
			t.Errorf("normalizePath(%q) = %q, want a 400", bad, got)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Foo.Example.com", "foo.example.com", true},
		{"foo.example.com:8080", "foo.example.com", true},
		{"foo.example.com.", "foo.example.com", true},
		{"foo..com", "", false},
		{"a/b", "", false},
		{"", "", false},
		{"[::1]:80", "[::1]", true},
	} {
		got, ok := normalizeHost(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("normalizeHost(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// cfg is a config with the catch-all server and the given servers and
// backends (each backend with one endpoint unless listed in empty).
func cfg(servers []model.Server, backends ...model.Backend) *model.Config {
	c := &model.Config{Global: model.DefaultGlobal(), DefaultBackend: model.DefaultBackendName}
	c.Servers = append([]model.Server{{Hostname: model.CatchAllHost}}, servers...)
	c.Backends = backends
	return c
}

func be(name string, eps ...model.Endpoint) model.Backend {
	if eps == nil {
		eps = []model.Endpoint{{Address: "10.0.0.1", Port: 80}}
	}
	return model.Backend{Name: name, Service: model.ObjectRef{Kind: "Service", Namespace: "default", Name: name}, Port: "80", Endpoints: eps}
}

func loc(path string, pt model.PathType, backend string) model.Location {
	return model.Location{Path: path, PathType: pt, Backend: backend, Ingress: model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "ing"}, Settings: &model.LocationSettings{}}
}

func get(host, target string) Request { return Request{Host: host, Target: target} }

// want is what a test expects of a decision: the backend ("" for a
// status), or the status and Location.
type want struct {
	backend  string
	status   int
	location string
	host     HostKind
	match    MatchKind
}

func check(t *testing.T, name string, d Decision, w want) {
	t.Helper()
	o := d.Outcome
	switch {
	case w.backend != "" && (o.Kind != OutcomeProxy || o.Backend != w.backend):
		t.Errorf("%s: outcome %+v, want backend %s (steps %+v)", name, o, w.backend, d.Steps)
	case w.backend == "" && (o.Kind != OutcomeStatus || o.Status != w.status || o.Location != w.location):
		t.Errorf("%s: outcome %+v, want %d %q (steps %+v)", name, o, w.status, w.location, d.Steps)
	}
	if w.host != "" && d.Host.Kind != w.host {
		t.Errorf("%s: host kind %s, want %s", name, d.Host.Kind, w.host)
	}
	if w.match != "" && (d.Location == nil || d.Location.Match != w.match) {
		t.Errorf("%s: location %+v, want match %s", name, d.Location, w.match)
	}
}

func TestServerSelection(t *testing.T) {
	c := cfg([]model.Server{
		{Hostname: "*.wild.com", Locations: []model.Location{loc("/", model.PathPrefix, "wild")}},
		{Hostname: "a.com", Aliases: []string{"alias.com", "*.alias.com"}, Locations: []model.Location{loc("/", model.PathPrefix, "a")}},
		{Hostname: "x.wild.com", Locations: []model.Location{loc("/", model.PathPrefix, "x")}},
	}, be("a"), be("wild"), be("x"))
	c.WWWRedirects = []model.WWWRedirect{{From: "www.a.com", To: "a.com"}}
	for _, tc := range []struct {
		name string
		req  Request
		want want
	}{
		{"exact", get("a.com", "/"), want{backend: "a", host: HostExact}},
		{"exact upper case and port", get("A.COM:8080", "/"), want{backend: "a", host: HostExact}},
		{"trailing dot", get("a.com.", "/"), want{backend: "a", host: HostExact}},
		{"alias", get("alias.com", "/"), want{backend: "a", host: HostAlias}},
		{"alias wildcard", get("b.alias.com", "/"), want{backend: "a", host: HostAliasWild}},
		{"wildcard one label", get("y.wild.com", "/"), want{backend: "wild", host: HostWildcard}},
		{"exact beats wildcard", get("x.wild.com", "/"), want{backend: "x", host: HostExact}},
		{"wildcard two labels", get("a.b.wild.com", "/"), want{status: 404, host: HostDefault}},
		{"wildcard bare", get("wild.com", "/"), want{status: 404, host: HostDefault}},
		{"unknown", get("other.com", "/"), want{status: 404, host: HostDefault}},
		{"www redirect", Request{Host: "www.a.com", Target: "/p/?q=1", Port: 8080}, want{status: 308, location: "http://a.com:8080/p/?q=1", host: HostWWWRedirect}},
		{"www redirect drops slash", Request{Host: "www.a.com", Target: "/p/"}, want{status: 308, location: "http://a.com:80/p", host: HostWWWRedirect}},
		{"bad host", get("a..com", "/"), want{status: 400, host: HostInvalid}},
		{"bad target", get("a.com", "/../x"), want{status: 400, host: HostInvalid}},
	} {
		check(t, tc.name, Route(c, tc.req), tc.want)
	}
}

func TestLocationMatching(t *testing.T) {
	c := cfg([]model.Server{{Hostname: "h.com", Locations: []model.Location{
		loc("/exact", model.PathExact, "exact"),
		loc("/exact/", model.PathExact, "exactslash"),
		loc("/foo", model.PathPrefix, "foo"),
		loc("/foo/bar", model.PathPrefix, "foobar"),
		loc("/impl/", model.PathImplementationSpecific, "impl"),
		loc("/denied/", model.PathImplementationSpecific, "denied"),
		loc("/img/", model.PathImplementationSpecific, "imgslash"),
		loc("/img", model.PathImplementationSpecific, "img"),
		loc("/", model.PathPrefix, "root"),
	}}}, be("exact"), be("exactslash"), be("foo"), be("foobar"), be("impl"), be("root"), be("denied"), be("img"), be("imgslash"))
	c.Servers[1].Locations[5].Settings.Denied = "test"
	for _, tc := range []struct {
		name, target string
		want         want
	}{
		{"exact", "/exact", want{backend: "exact", match: MatchExact}},
		{"exact with query", "/exact?x=1", want{backend: "exact", match: MatchExact}},
		{"exact ending in slash", "/exact/", want{backend: "exactslash", match: MatchRegex}},
		{"exact extra segment", "/exact/x", want{backend: "root", match: MatchPrefix}},
		{"prefix without slash", "/foo", want{backend: "foo", match: MatchExact}},
		{"prefix with slash", "/foo/", want{backend: "foo", match: MatchPrefix}},
		{"prefix segment", "/foo/x", want{backend: "foo"}},
		{"prefix not a segment", "/foox", want{backend: "root"}},
		{"longest prefix", "/foo/bar/baz", want{backend: "foobar"}},
		{"case sensitive", "/FOO", want{backend: "root"}},
		{"merged slashes", "//foo//bar", want{backend: "foobar"}},
		{"decoded", "/fo%6F/bar", want{backend: "foobar"}},
		{"dot segments", "/x/../foo", want{backend: "foo"}},
		{"auto redirect", "/impl?a=b", want{status: 301, location: "http://h.com/impl/?a=b", match: MatchAutoRedirect}},
		{"no auto redirect without pass", "/denied", want{backend: "root"}},
		{"denied", "/denied/", want{status: 503}},
		{"impl", "/impl/x", want{backend: "impl"}},
		{"a prefix named like the request wins over the 301", "/img", want{backend: "img", match: MatchPrefix}},
		{"its child", "/img/x", want{backend: "imgslash"}},
	} {
		check(t, tc.name, Route(c, get("h.com", tc.target)), tc.want)
	}
}

// TestPortInRedirect: nginx makes its 301 to a directory absolute with the
// host and, with use-port-in-redirects (the location's, else the
// ConfigMap's), the port unless it is the scheme's own; in a server with
// app-root it stays a path.
func TestPortInRedirect(t *testing.T) {
	on, off := true, false
	c := cfg([]model.Server{{Hostname: "h.com", Locations: []model.Location{
		loc("/a/", model.PathImplementationSpecific, "a"),
		loc("/on/", model.PathImplementationSpecific, "on"),
		loc("/off/", model.PathImplementationSpecific, "off"),
	}}, {Hostname: "app.com", AppRoot: "/start", Locations: []model.Location{
		loc("/a/", model.PathImplementationSpecific, "a"),
	}}}, be("a"), be("on"), be("off"))
	c.Server("h.com").Locations[1].Settings.UsePortInRedirects = &on
	c.Server("h.com").Locations[2].Settings.UsePortInRedirects = &off
	at := func(host, target, scheme string, port int) Request {
		return Request{Host: host, Target: target, Scheme: scheme, Port: port}
	}
	for _, tc := range []struct {
		name     string
		global   bool
		req      Request
		location string
	}{
		{"default: no port", false, at("h.com:8080", "/a", "http", 8080), "http://h.com/a/"},
		{"annotation on", false, at("h.com:8080", "/on", "http", 8080), "http://h.com:8080/on/"},
		{"annotation on, the scheme's port", false, at("h.com", "/on", "http", 80), "http://h.com/on/"},
		{"annotation on over https", false, at("h.com:8443", "/on", "https", 8443), "https://h.com:8443/on/"},
		{"annotation on, https on 443", false, at("h.com", "/on", "https", 443), "https://h.com/on/"},
		{"ConfigMap on", true, at("H.com:8080", "/a", "http", 8080), "http://h.com:8080/a/"},
		{"ConfigMap on, annotation off", true, at("h.com:8080", "/off", "http", 8080), "http://h.com/off/"},
		{"app-root: a path", true, at("app.com:8080", "/a", "http", 8080), "/a/"},
	} {
		c.Global.UsePortInRedirects = tc.global
		check(t, tc.name, Route(c, tc.req), want{status: 301, location: tc.location, match: MatchAutoRedirect})
	}
}

func TestRegexLocations(t *testing.T) {
	re := func(p, b string) model.Location {
		l := loc(p, model.PathImplementationSpecific, b)
		l.Regex = true
		return l
	}
	c := cfg([]model.Server{{Hostname: "h.com", Locations: []model.Location{
		re("/api/v[0-9]+", "v"),
		re("/api", "api"),
		re("/", "root"),
	}}}, be("v"), be("api"), be("root"))
	rw := re("/rw(/|$)(.*)", "api")
	rw.Settings.RewriteTarget = "/$2"
	c.Servers = append(c.Servers, model.Server{Hostname: "rw.com", Locations: []model.Location{rw}})
	for _, tc := range []struct {
		name, host, target string
		want               want
	}{
		{"first in file order", "h.com", "/api/v2/x", want{backend: "v", match: MatchRegex}},
		{"second", "h.com", "/api/x", want{backend: "api"}},
		{"case-insensitive", "h.com", "/API/V2", want{backend: "v"}},
		{"root regex", "h.com", "/other", want{backend: "root"}},
	} {
		check(t, tc.name, Route(c, get(tc.host, tc.target)), tc.want)
	}
	d := Route(c, get("rw.com", "/rw/a/b?x=1"))
	if d.Outcome.UpstreamURI != "/a/b?x=1" {
		t.Errorf("rewrite-target: upstream URI %q, want /a/b?x=1 (%+v)", d.Outcome.UpstreamURI, d.Steps)
	}
	if d := Route(c, get("rw.com", "/other")); d.Outcome.Kind != OutcomeStatus || d.Outcome.Status != 404 || d.Location.Match != MatchFallback {
		t.Errorf("no regex matches: %+v %+v", d.Location, d.Outcome)
	}
}

func TestSettings(t *testing.T) {
	l := func(path string, edit func(*model.Location)) model.Location {
		x := loc(path, model.PathPrefix, "b")
		edit(&x)
		return x
	}
	yes := true
	c := cfg([]model.Server{
		{Hostname: "tls.com", TLS: true, Locations: []model.Location{
			l("/r", func(x *model.Location) { x.HTTPSRedirect = true }),
			l("/keep", func(x *model.Location) { x.HTTPSRedirect = true; x.Settings.PreserveTrailingSlash = &yes }),
		}},
		{Hostname: "s.com", AppRoot: "/app", Locations: []model.Location{
			l("/perm", func(x *model.Location) { x.Settings.Redirect = &model.Redirect{URL: "https://e.com/", Code: 301} }),
			l("/allow", func(x *model.Location) { x.Settings.Access.Allow = []string{"10.0.0.0/8"} }),
			l("/deny", func(x *model.Location) { x.Settings.Access.Deny = []string{"127.0.0.0/8"} }),
			l("/basic", func(x *model.Location) { x.Settings.BasicAuth = &model.BasicAuth{} }),
			l("/any", func(x *model.Location) {
				x.Settings.BasicAuth = &model.BasicAuth{}
				x.Settings.Access.Allow = []string{"127.0.0.1/32"}
				x.Settings.Satisfy = "any"
			}),
			l("/anydeny", func(x *model.Location) {
				x.Settings.BasicAuth = &model.BasicAuth{}
				x.Settings.Access.Deny = []string{"10.0.0.0/8"}
				x.Settings.Satisfy = "any"
			}),
			l("/cors", func(x *model.Location) { x.Settings.CORS = &model.CORS{AllowOrigins: []string{"https://*.ok.com"}} }),
			l("/empty", func(x *model.Location) { x.Backend = "empty" }),
			l("/errors", func(x *model.Location) {
				x.Backend = "empty"
				x.Settings.ErrorPages = model.ErrorPages{Codes: []int{503}, Backend: "errors"}
			}),
			l("/", func(x *model.Location) {}),
		}},
		{Hostname: "mtls.com", ClientAuth: &model.ClientAuth{Verify: "on"}, Locations: []model.Location{l("/", func(x *model.Location) {})}},
		{Hostname: "page.com", ClientAuth: &model.ClientAuth{Verify: "on", ErrorPage: "/cert-error?why=cert"}, Locations: []model.Location{
			l("/cert-error", func(x *model.Location) { x.Backend = "errors" }), l("/", func(x *model.Location) {})}},
	}, be("b"), be("empty", []model.Endpoint{}...), be("errors"))
	c.Backends[1].Endpoints = nil
	for _, tc := range []struct {
		name string
		req  Request
		want want
	}{
		{"https redirect", get("tls.com", "/r/"), want{status: 308, location: "https://tls.com/r"}},
		{"https redirect keeps query", get("TLS.com:81", "/r/x?q=1"), want{status: 308, location: "https://tls.com/r/x?q=1"}},
		{"preserve trailing slash", get("tls.com", "/keep/"), want{status: 308, location: "https://tls.com/keep/"}},
		{"https is served", Request{Scheme: "https", Host: "tls.com", Target: "/r"}, want{backend: "b"}},
		{"tls fallback redirects", get("tls.com", "/other/"), want{status: 308, location: "https://tls.com/other"}},
		{"app-root", get("s.com", "/"), want{status: 302, location: "/app"}},
		{"app-root only /", get("s.com", "/x"), want{backend: "b"}},
		{"permanent redirect", get("s.com", "/perm"), want{status: 301, location: "https://e.com/"}},
		{"allowlist refuses", get("s.com", "/allow"), want{status: 403}},
		{"allowlist allows", Request{Host: "s.com", Target: "/allow", ClientIP: "10.1.2.3"}, want{backend: "b"}},
		{"denylist", get("s.com", "/deny"), want{status: 403}},
		{"basic auth", get("s.com", "/basic"), want{status: 401}},
		{"satisfy any", get("s.com", "/any"), want{backend: "b"}},
		{"satisfy any refuses", Request{Host: "s.com", Target: "/any", ClientIP: "10.0.0.1"}, want{status: 401}},
		// deny lines alone let nobody in: the credentials decide for all
		{"satisfy any, deny lines alone, not denied", get("s.com", "/anydeny"), want{status: 401}},
		{"satisfy any, deny lines alone, denied", Request{Host: "s.com", Target: "/anydeny", ClientIP: "10.0.0.1"}, want{status: 401}},
		{"cors preflight", Request{Method: "OPTIONS", Host: "s.com", Target: "/cors", Headers: []Header{{"Origin", "https://a.ok.com"}}}, want{status: 204}},
		{"cors preflight other origin", Request{Method: "OPTIONS", Host: "s.com", Target: "/cors", Headers: []Header{{"Origin", "https://a.b.ok.com"}}}, want{backend: "b"}},
		{"no endpoints", get("s.com", "/empty"), want{status: 503}},
		{"error page", get("s.com", "/errors"), want{backend: "errors"}},
		{"client certificate required over https", Request{Scheme: "https", Host: "mtls.com", Target: "/"}, want{status: 400}},
		{"client certificate not checked over http", get("mtls.com", "/"), want{backend: "b"}},
		{"client certificate error page path", Request{Method: "POST", Scheme: "https", Host: "page.com", Target: "/x?a=1"}, want{backend: "errors"}},
	} {
		check(t, tc.name, Route(c, tc.req), tc.want)
	}
}

func TestCanary(t *testing.T) {
	canary := func(name string, ts model.TrafficShaping) model.Backend {
		b := be(name)
		b.NoServer, b.TrafficShaping = true, ts
		return b
	}
	primary := be("p")
	primary.AlternativeBackends = []string{"c-cookie", "c-header", "c-pattern", "c-value", "c-weight"}
	c := cfg([]model.Server{{Hostname: "h.com", Locations: []model.Location{loc("/", model.PathPrefix, "p")}}},
		canary("c-cookie", model.TrafficShaping{Cookie: "canary"}),
		canary("c-header", model.TrafficShaping{Header: "X-Canary"}),
		canary("c-pattern", model.TrafficShaping{Header: "X-Pattern", HeaderPattern: "^(a|b)$"}),
		canary("c-value", model.TrafficShaping{Header: "X-Value", HeaderValue: "yes"}),
		canary("c-weight", model.TrafficShaping{Weight: 30}),
		primary)
	req := func(h []Header, ck []Cookie) Request {
		return Request{Host: "h.com", Target: "/", Headers: h, Cookies: ck}
	}
	for _, tc := range []struct {
		name    string
		req     Request
		chosen  string
		rule    string
		random  bool
		backend string
	}{
		{"header always", req([]Header{{"x-canary", "always"}}, nil), "c-header", "header", false, "c-header"},
		{"header value", req([]Header{{"X-Value", "yes"}}, nil), "c-value", "header-value", false, "c-value"},
		{"header value other", req([]Header{{"X-Value", "no"}}, nil), "p", "weight", true, "p"},
		{"header pattern", req([]Header{{"X-Pattern", "b"}}, nil), "c-pattern", "header-pattern", false, "c-pattern"},
		{"cookie always", req(nil, []Cookie{{"canary", "always"}}), "c-cookie", "cookie", false, "c-cookie"},
		{"header before cookie", req([]Header{{"X-Canary", "always"}}, []Cookie{{"canary", "always"}}), "c-header", "header", false, "c-header"},
		{"weight is random", req(nil, nil), "p", "weight", true, "p"},
	} {
		d := Route(c, tc.req)
		if d.Canary == nil || d.Canary.Chosen != tc.chosen || d.Canary.Rule != tc.rule || d.Canary.Random != tc.random || d.Outcome.Backend != tc.backend {
			t.Errorf("%s: canary %+v, backend %s; want %s by %s (random %v), backend %s", tc.name, d.Canary, d.Outcome.Backend, tc.chosen, tc.rule, tc.random, tc.backend)
		}
	}
	// "never" rules the header canary out of the later steps, and a
	// weight of 100 is no longer random.
	c.Backends[1].TrafficShaping.Cookie = "canary"
	c.Backends[4].TrafficShaping.Weight = 100
	d := Route(c, req([]Header{{"X-Canary", "never"}}, []Cookie{{"canary", "always"}}))
	if d.Canary.Chosen != "c-cookie" {
		t.Errorf("never: %+v", d.Canary)
	}
	d = Route(c, req(nil, nil))
	if d.Canary.Chosen != "c-weight" || d.Canary.Random {
		t.Errorf("weight 100: %+v", d.Canary)
	}
}
