package model

import (
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
		return &Location{Path: "/", Settings: LocationSettings{Proxy: p, ErrorPages: ErrorPages{Codes: codes, Intercept: true, Backend: "b"}}}
	}
	on, off := true, false
	tries := 1
	if got := ShapeOf(&g, loc(ProxySettings{})).Location(); got != "" {
		t.Errorf("no settings: shape %q, want the router's own location", got)
	}
	same := ShapeOf(&g, loc(ProxySettings{Buffering: &g.ProxyBuffering, BufferSize: g.ProxyBufferSize, NextUpstream: g.ProxyNextUpstream}))
	if got := same.Location(); got != "" {
		t.Errorf("the ConfigMap's values: shape %q, want none", got)
	}
	errors := ShapeOf(&g, loc(ProxySettings{}, 404, 503))
	if got := errors.Location(); got != "@kubectl_ingress_errors_i_404_503" {
		t.Errorf("custom-http-errors: %q", got)
	}
	tuned := ShapeOf(&g, loc(ProxySettings{Buffering: &on, BufferSize: "16k", NextUpstreamTries: &tries}))
	name := tuned.Location()
	if !strings.HasPrefix(name, "@kubectl_ingress_proxy_") || len(name) != len("@kubectl_ingress_proxy_")+16 {
		t.Errorf("proxy tuning: %q, want @kubectl_ingress_proxy_ and 16 hex digits", name)
	}
	if again := ShapeOf(&g, loc(ProxySettings{BufferSize: "16k", NextUpstreamTries: &tries, Buffering: &on})).Location(); again != name {
		t.Errorf("the same settings: %q, want %q", again, name)
	}
	if other := ShapeOf(&g, loc(ProxySettings{Buffering: &on, BufferSize: "32k", NextUpstreamTries: &tries})).Location(); other == name {
		t.Errorf("another buffer size shares the location %q", other)
	}
	both := ShapeOf(&g, loc(ProxySettings{Buffering: &on, BufferSize: "16k", NextUpstreamTries: &tries}, 404))
	if got := both.Location(); !strings.HasPrefix(got, "@kubectl_ingress_errors_i_404_proxy_") || !strings.HasSuffix(got, strings.TrimPrefix(name, "@kubectl_ingress_proxy_")) {
		t.Errorf("both: %q", got)
	}
	want := []string{"custom-http-errors 404", "proxy-buffering true", "proxy-buffer-size 16k", "proxy-next-upstream-tries 1"}
	if got := both.Settings(); !slices.Equal(got, want) {
		t.Errorf("settings %q, want %q", got, want)
	}

	// A streamed body carries the route's limit (or the ConfigMap's):
	// nginx checks it as it reads the body.
	streamed := ShapeOf(&g, loc(ProxySettings{RequestBuffering: &off}))
	if !streamed.StreamsBody(&g) || streamed.Proxy.BodySize != g.ProxyBodySize {
		t.Errorf("request buffering off: streams %v, body size %q, want true and the ConfigMap's %q", streamed.StreamsBody(&g), streamed.Proxy.BodySize, g.ProxyBodySize)
	}
	if s := ShapeOf(&g, loc(ProxySettings{RequestBuffering: &off, BodySize: "8m"})); s.Proxy.BodySize != "8m" || s.Location() == streamed.Location() {
		t.Errorf("request buffering off, 8m: body size %q, location %q (the 1m one is %q)", s.Proxy.BodySize, s.Location(), streamed.Location())
	}
	if s := ShapeOf(&g, loc(ProxySettings{BodySize: "8m"})); s.Location() != "" || s.StreamsBody(&g) {
		t.Errorf("a body size with request buffering on: shape %q, want none (the router checks it)", s.Location())
	}
	unbuffered := g
	unbuffered.ProxyRequestBuffering = false
	if s := ShapeOf(&unbuffered, loc(ProxySettings{})); !s.StreamsBody(&unbuffered) || s.Proxy.BodySize != g.ProxyBodySize || s.Location() == "" {
		t.Errorf("the ConfigMap's request buffering off: shape %+v, want a streamed body with the ConfigMap's limit", s)
	}
}
