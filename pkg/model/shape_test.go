package model

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestShapeOf: a location's shape keeps exactly what the classic writer
// writes (a value equal to the ConfigMap's is no shape), equal settings
// share a location name, different ones do not, and the name says which
// kind of shape it is.
func TestShapeOf(t *testing.T) {
	g := DefaultGlobal()
	loc := func(p ProxySettings, codes ...int) *Location {
		return &Location{Path: "/", Settings: &LocationSettings{Proxy: p, ErrorPages: ErrorPages{Codes: codes, Intercept: true, Backend: "b"}}}
	}
	on, off := true, false
	tries := 1
	if got := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{})).Location(); got != "" {
		t.Errorf("no settings: shape %q, want the router's own location", got)
	}
	same := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{Buffering: &g.ProxyBuffering, BufferSize: g.ProxyBufferSize, NextUpstream: g.ProxyNextUpstream}))
	if got := same.Location(); got != "" {
		t.Errorf("the ConfigMap's values: shape %q, want none", got)
	}
	errors := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{}, 404, 503))
	if got := errors.Location(); got != "@kubectl_ingress_errors_i_404_503" {
		t.Errorf("custom-http-errors: %q", got)
	}
	tuned := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{Buffering: &on, BufferSize: "16k", NextUpstreamTries: &tries}))
	name := tuned.Location()
	if !strings.HasPrefix(name, "@kubectl_ingress_shape_") || len(name) != len("@kubectl_ingress_shape_")+16 {
		t.Errorf("proxy tuning: %q, want @kubectl_ingress_shape_ and 16 hex digits", name)
	}
	if again := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{BufferSize: "16k", NextUpstreamTries: &tries, Buffering: &on})).Location(); again != name {
		t.Errorf("the same settings: %q, want %q", again, name)
	}
	if other := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{Buffering: &on, BufferSize: "32k", NextUpstreamTries: &tries})).Location(); other == name {
		t.Errorf("another buffer size shares the location %q", other)
	}
	both := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{Buffering: &on, BufferSize: "16k", NextUpstreamTries: &tries}, 404))
	if got := both.Location(); !strings.HasPrefix(got, "@kubectl_ingress_shape_") || got == name {
		t.Errorf("error pages and tuning: %q, want another shape than the tuning's alone (%q)", got, name)
	}
	want := []string{"custom-http-errors 404", "proxy-buffering true", "proxy-buffer-size 16k", "proxy-next-upstream-tries 1"}
	if got := both.Settings(); !slices.Equal(got, want) {
		t.Errorf("settings %q, want %q", got, want)
	}

	// app-root: every location of its server has relative redirects,
	// alone the shared RelativeRedirectsShape, with other settings a
	// shape of its own
	rooted := &Server{AppRoot: "/app"}
	if got := ShapeOf(&Config{Global: g}, rooted, loc(ProxySettings{})); got.Location() != RelativeRedirectsShape.Location() || got.Location() == "" {
		t.Errorf("app-root alone: %q, want RelativeRedirectsShape's %q", got.Location(), RelativeRedirectsShape.Location())
	}
	if got := ShapeOf(&Config{Global: g}, rooted, loc(ProxySettings{}, 404)).Location(); got == RelativeRedirectsShape.Location() || got == ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{}, 404)).Location() {
		t.Errorf("app-root and error pages: %q, want a shape of its own", got)
	}

	// External authentication: its own shape per distinct auth service
	// and settings, with the internal location and sign-in of its hash;
	// the ConfigMap's global-auth-url too, unless the location opts out.
	authed := &Config{Global: g}
	withAuth := loc(ProxySettings{})
	withAuth.Settings.ExternalAuth = &ExternalAuth{URL: "http://auth.example/check", Host: "auth.example"}
	a := ShapeOf(authed, &Server{}, withAuth)
	if h := a.Hash(); a.Location() != "@kubectl_ingress_shape_"+h || a.AuthPath() != "/_kubectl_ingress_auth_"+h || a.AuthSignin() != "@kubectl_ingress_signin_"+h {
		t.Errorf("auth-url: %q %q %q", a.Location(), a.AuthPath(), a.AuthSignin())
	}
	other := loc(ProxySettings{})
	other.Settings.ExternalAuth = &ExternalAuth{URL: "http://auth.example/other", Host: "auth.example"}
	if ShapeOf(authed, &Server{}, other).Location() == a.Location() {
		t.Error("another auth URL shares the shape")
	}
	global := &Config{Global: g}
	global.Global.GlobalAuth = ExternalAuth{URL: "http://auth.example/check", Host: "auth.example"}
	if got := ShapeOf(global, &Server{}, loc(ProxySettings{})).Location(); got != a.Location() {
		t.Errorf("global-auth-url: %q, want the shape of the same auth-url %q", got, a.Location())
	}
	optedOut := loc(ProxySettings{})
	optedOut.Settings.GlobalAuthOff = true
	if got := ShapeOf(global, &Server{}, optedOut).Location(); got != "" {
		t.Errorf("enable-global-auth false: %q, want no shape", got)
	}

	// A streamed body carries the route's limit (or the ConfigMap's):
	// nginx checks it as it reads the body.
	streamed := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{RequestBuffering: &off}))
	if !streamed.StreamsBody(&g) || streamed.Proxy.BodySize != g.ProxyBodySize {
		t.Errorf("request buffering off: streams %v, body size %q, want true and the ConfigMap's %q", streamed.StreamsBody(&g), streamed.Proxy.BodySize, g.ProxyBodySize)
	}
	if s := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{RequestBuffering: &off, BodySize: "8m"})); s.Proxy.BodySize != "8m" || s.Location() == streamed.Location() {
		t.Errorf("request buffering off, 8m: body size %q, location %q (the 1m one is %q)", s.Proxy.BodySize, s.Location(), streamed.Location())
	}
	if s := ShapeOf(&Config{Global: g}, &Server{}, loc(ProxySettings{BodySize: "8m"})); s.Location() != "" || s.StreamsBody(&g) {
		t.Errorf("a body size with request buffering on: shape %q, want none (the router checks it)", s.Location())
	}
	unbuffered := g
	unbuffered.ProxyRequestBuffering = false
	if s := ShapeOf(&Config{Global: unbuffered}, &Server{}, loc(ProxySettings{})); !s.StreamsBody(&unbuffered) || s.Proxy.BodySize != g.ProxyBodySize || s.Location() == "" {
		t.Errorf("the ConfigMap's request buffering off: shape %+v, want a streamed body with the ConfigMap's limit", s)
	}
}

// TestShapeOfSnippet: a configuration-snippet gives its own shape, shared by
// equal snippets of other Ingresses (pointers compared by value), not by
// another snippet or the same snippet with error pages; its directives
// are named for diff. ShapeBlocker names what keeps a snippet classic.
func TestShapeOfSnippet(t *testing.T) {
	g := DefaultGlobal()
	c := &Config{Global: g}
	on, off := true, false
	snippet := func(ing string, once *bool, codes ...int) *Location {
		sn := &Snippet{Annotation: "configuration-snippet", Ingress: ObjectRef{Namespace: "ns", Name: ing},
			AddHeaders:    []SnippetAddHeader{{Header: Header{Name: "X-Frame-Options", Value: "DENY"}, Always: true}},
			SubFilterOnce: once, Translated: map[string]int{"add_header": 1, "sub_filter_once": 1}}
		return &Location{Path: "/", Settings: &LocationSettings{Snippet: sn, ErrorPages: ErrorPages{Codes: codes}}}
	}
	a := ShapeOf(c, &Server{}, snippet("a", &on)).Location()
	if !strings.HasPrefix(a, "@kubectl_ingress_shape_") {
		t.Fatalf("a snippet: shape %q", a)
	}
	onAgain := true
	if b := ShapeOf(c, &Server{}, snippet("b", &onAgain)).Location(); b != a {
		t.Errorf("the same snippet on another Ingress: %q, want %q", b, a)
	}
	if other := ShapeOf(c, &Server{}, snippet("a", &off)).Location(); other == a {
		t.Errorf("sub_filter_once off shares the shape of on: %q", other)
	}
	if errs := ShapeOf(c, &Server{}, snippet("a", &on, 404)).Location(); errs == a || errs == "@kubectl_ingress_errors_n_404" {
		t.Errorf("a snippet with error pages: %q", errs)
	}
	want := []string{"configuration-snippet (add_header, sub_filter_once)"}
	if got := ShapeOf(c, &Server{}, snippet("a", &on)).Settings(); !slices.Equal(got, want) {
		t.Errorf("settings %q, want %q", got, want)
	}
	// the shapes without a snippet keep their names
	if got := ShapeOf(c, &Server{}, &Location{Settings: &LocationSettings{ErrorPages: ErrorPages{Codes: []int{404}}}}).Location(); got != "@kubectl_ingress_errors_n_404" {
		t.Errorf("error pages alone: %q", got)
	}

	for _, tc := range []struct {
		sn   Snippet
		want string
	}{
		{Snippet{AddHeaders: []SnippetAddHeader{{Header: Header{Name: "X", Value: "1"}}}, Access: []SnippetAccess{{Deny: true, Source: "all"}}}, ""},
		// rewrite and return lines are the router's (ShapePart)
		{Snippet{RewritePhase: []SnippetRewriteStep{{Rewrite: &SnippetRewrite{Regex: "^/a", Replacement: "/b", Flag: "break"}}}}, ""},
		{Snippet{RewritePhase: []SnippetRewriteStep{{Return: &SnippetReturn{Code: 403}}}}, ""},
		{Snippet{RewritePhase: []SnippetRewriteStep{{Return: &SnippetReturn{Code: 403}}, {Return: &SnippetReturn{Code: 103}}}}, "return"},
		{Snippet{RewritePhase: []SnippetRewriteStep{{Return: &SnippetReturn{Code: 302}}}}, "return"}, // a redirect without a URL
		{Snippet{Proxy: SnippetProxy{ReadTimeout: "5s"}}, "proxy_read_timeout"},
		{Snippet{Proxy: SnippetProxy{BodySize: "1m"}}, "client_max_body_size"},
		{Snippet{Proxy: SnippetProxy{RequestBuffering: &off}}, "proxy_request_buffering"},
		{Snippet{Proxy: SnippetProxy{BufferSize: "16k"}}, "proxy_buffer_size"},
		{Snippet{Proxy: SnippetProxy{Buffering: &off, ClientBodyBufSize: "1m"}}, ""},
	} {
		if got := tc.sn.ShapeBlocker(); got != tc.want {
			t.Errorf("ShapeBlocker of %+v: %q, want %q", tc.sn, got, tc.want)
		}
	}
	// ShapePart: the shape location has no rewrite or return line, and
	// none at all when nothing else is left; rewrites alone need no shape
	rw := []SnippetRewriteStep{{Rewrite: &SnippetRewrite{Regex: "^/a", Replacement: "/b"}}}
	only := &Snippet{RewritePhase: rw, Translated: map[string]int{"rewrite": 1}}
	if only.ShapePart() != nil || ShapeOf(c, &Server{}, &Location{Path: "/", Settings: &LocationSettings{Snippet: only}}).Location() != "" {
		t.Errorf("rewrite lines alone: ShapePart %+v, want nil and the router's own location", only.ShapePart())
	}
	mixed := &Snippet{RewritePhase: rw, AddHeaders: []SnippetAddHeader{{Header: Header{Name: "X", Value: "1"}}}, Translated: map[string]int{"rewrite": 1, "add_header": 1}}
	plain := &Snippet{AddHeaders: mixed.AddHeaders, Translated: map[string]int{"add_header": 1}}
	if p := mixed.ShapePart(); p == nil || len(p.RewritePhase) != 0 || p.ShapeKey() != plain.ShapeKey() || !slices.Equal(p.DirectiveNames(), []string{"add_header"}) || len(mixed.RewritePhase) != 1 {
		t.Errorf("rewrite and add_header: ShapePart %+v, want the add_header alone (and the snippet unchanged)", p)
	}
	sn := &Snippet{AddHeaders: []SnippetAddHeader{{Header: Header{Name: "X-Added"}}},
		MoreSetHeaders:   []SnippetMoreHeaders{{Headers: []Header{{Name: "X-Set"}}}, {Statuses: []int{404}, Headers: []Header{{Name: "X-Some"}}}},
		MoreClearHeaders: []SnippetMoreHeaders{{Headers: []Header{{Name: "x-cleared"}, {Name: "X-Added"}}}}}
	for name, want := range map[string][2]bool{"X-Set": {true, true}, "X-Cleared": {true, true}, "X-Some": {true, false},
		"X-Added": {true, false}, "X-Other": {false, false}} {
		if named, always := sn.NamesResponseHeader(name); named != want[0] || always != want[1] {
			t.Errorf("NamesResponseHeader(%s) = %v, %v, want %v", name, named, always, want)
		}
	}
}

// TestShapeKeyCoversFields holds the rule that every field of a
// LocationShape names its location: two shapes that differ in any one
// field must not share a named location (the second would be served with
// the first one's directives). A field added to LocationShape fails here
// until it has a sample below and is part of Hash and Location.
func TestShapeKeyCoversFields(t *testing.T) {
	samples := map[string]func(s *LocationShape){
		"Errors":            func(s *LocationShape) { s.Errors = ErrorPages{Codes: []int{404}, Intercept: true} },
		"Proxy":             func(s *LocationShape) { s.Proxy.BufferSize = "24k" },
		"Auth":              func(s *LocationShape) { s.Auth = &ExternalAuth{URL: "http://auth.example/"} },
		"Snippet":           func(s *LocationShape) { off := false; s.Snippet = &Snippet{ServerTokens: &off} },
		"Protocol":          func(s *LocationShape) { s.Protocol = "GRPC" },
		"ProxySSL":          func(s *LocationShape) { s.Protocol, s.ProxySSL = "HTTPS", &ProxySSL{Verify: true} },
		"FastCGI":           func(s *LocationShape) { s.Protocol, s.FastCGI = "FCGI", &FastCGI{Index: "index.php"} },
		"Mirror":            func(s *LocationShape) { s.Mirror = &Mirror{Scheme: "http", HostPort: "m:80", Host: "m"} },
		"Unavailable":       func(s *LocationShape) { s.Unavailable = true },
		"RelativeRedirects": func(s *LocationShape) { s.RelativeRedirects = true },
		"PortInRedirect":    func(s *LocationShape) { s.PortInRedirect = new(true) },
		"ModSecurity":       func(s *LocationShape) { s.ModSecurity = &LocationModSecurity{Enable: true} },
	}
	// the proxy fields a shape carries (ShapeOf), each in tuningKey
	proxy := map[string]func(p *ProxySettings){
		"Buffering":            func(p *ProxySettings) { p.Buffering = new(true) },
		"RequestBuffering":     func(p *ProxySettings) { p.RequestBuffering = new(false) },
		"BufferSize":           func(p *ProxySettings) { p.BufferSize = "16k" },
		"BuffersNumber":        func(p *ProxySettings) { p.BuffersNumber = 8 },
		"BusyBuffersSize":      func(p *ProxySettings) { p.BusyBuffersSize = "32k" },
		"MaxTempFileSize":      func(p *ProxySettings) { p.MaxTempFileSize = "0" },
		"HTTPVersion":          func(p *ProxySettings) { p.HTTPVersion = "1.0" },
		"NextUpstream":         func(p *ProxySettings) { p.NextUpstream = []string{"off"} },
		"NextUpstreamTries":    func(p *ProxySettings) { p.NextUpstreamTries = new(2) },
		"NextUpstreamTimeout":  func(p *ProxySettings) { p.NextUpstreamTimeout = new(5) },
		"CookieDomain":         func(p *ProxySettings) { p.CookieDomain = &TextRewrite{From: "a", To: "b"} },
		"CookiePath":           func(p *ProxySettings) { p.CookiePath = &TextRewrite{From: "/a", To: "/b"} },
		"Redirect":             func(p *ProxySettings) { p.Redirect = &TextRewrite{From: "http://in/", To: "/"} },
		"ConnectionHeader":     func(p *ProxySettings) { p.ConnectionHeader = "keep-alive" },
		"ClientBodyBufferSize": func(p *ProxySettings) { p.ClientBodyBufferSize = "1m" },
		"BodySize":             func(p *ProxySettings) { p.BodySize = "8m" },
	}
	seen := map[string]string{"": "the zero shape"}
	check := func(what string, s LocationShape) {
		t.Helper()
		name := s.Location()
		if other, dup := seen[name]; dup {
			t.Errorf("%s: location %q, the same as %s's", what, name, other)
		}
		seen[name] = what
		if s.Hash() == "" {
			t.Errorf("%s: no hash", what)
		}
	}
	typ := reflect.TypeOf(LocationShape{})
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		set, ok := samples[name]
		if !ok {
			t.Errorf("LocationShape.%s has no sample: add one, and make it part of Hash and Location", name)
			continue
		}
		var s LocationShape
		set(&s)
		check(name, s)
	}
	for name, set := range proxy {
		var s LocationShape
		set(&s.Proxy)
		check("Proxy."+name, s)
	}
}
