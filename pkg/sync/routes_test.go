package sync_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// routedNginx is a fakeNginx that also takes route payloads, recorded as
// "routes a.example,b.example delete c.example"; dropHost names a host
// whose entry it refuses.
type routedNginx struct {
	fakeNginx
	dropHost string
}

func (f *routedNginx) PostRoutes(_ context.Context, u luaapi.RoutesUpdate) ([]luaapi.Dropped, error) {
	var hosts []string
	var dropped []luaapi.Dropped
	for _, h := range u.Hosts {
		hosts = append(hosts, h.Host)
		if h.Host == f.dropHost {
			dropped = append(dropped, luaapi.Dropped{Kind: luaapi.DroppedRoute, Name: h.Host, Reason: "paths[0].matchers[0].value: not a regex"})
		}
	}
	detail := strings.Join(hosts, ",")
	if len(u.Delete) > 0 {
		detail += " delete " + strings.Join(u.Delete, ",")
	}
	return dropped, f.record("routes", detail)
}

// routes gives one entry per host, its version named after the host and
// tag (a different tag is a changed entry), its path served by the
// Ingress ns/<host>.
func routes(tag string, hosts ...string) []luaapi.HostRoutes {
	var out []luaapi.HostRoutes
	for _, h := range hosts {
		out = append(out, luaapi.HostRoutes{Host: h, Version: h + "-" + tag,
			Paths: []luaapi.RoutePath{{Path: "/", Namespace: "ns", Ingress: h, Backend: "ns-" + h + "-80"}}})
	}
	return out
}

func routed(hosts []string, tag string, conf string, backends ...string) ksync.State {
	return ksync.State{Config: config(nil, false, backends...), NGINXConf: []byte(conf), Routes: routes(tag, hosts...)}
}

func TestPlanRoutes(t *testing.T) {
	running := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80", "ns-b-80")
	cases := []struct {
		name        string
		desired     ksync.State
		verdict     ksync.Verdict
		hosts, gone []string
		reasons     []string
	}{
		{"same routes", running, ksync.NoChange, nil, nil, nil},
		{"a host added: dynamic, that host only",
			routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed", "ns-a-80", "ns-b-80"),
			ksync.DynamicOnly, []string{"c.example"}, nil,
			[]string{"ingress ns/c.example: host c.example: routes added, pushed to the Lua router"}},
		{"a host changed and one removed",
			ksync.State{Config: running.Config, NGINXConf: []byte("fixed"), Routes: routes("2", "a.example")},
			ksync.DynamicOnly, []string{"a.example"}, []string{"b.example"},
			[]string{"ingress ns/a.example: host a.example: routes changed, pushed to the Lua router",
				"ingress ns/b.example: host b.example: routes removed from the Lua router"}},
		{"nginx.conf changed as well: reload, routes still planned",
			routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed+classic", "ns-a-80", "ns-b-80"),
			ksync.ReloadRequired, []string{"c.example"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := ksync.NewPlan(running, tc.desired)
			if p.Verdict != tc.verdict {
				t.Errorf("verdict %v, want %v (%v)", p.Verdict, tc.verdict, p.Reasons)
			}
			var hosts []string
			for _, h := range p.Routes.Hosts {
				hosts = append(hosts, h.Host)
			}
			if !slices.Equal(hosts, tc.hosts) || !slices.Equal(p.Routes.Delete, tc.gone) {
				t.Errorf("routes posted %v deleted %v, want %v and %v", hosts, p.Routes.Delete, tc.hosts, tc.gone)
			}
			if p.PushRoutes != (len(tc.hosts)+len(tc.gone) > 0) {
				t.Errorf("PushRoutes %v", p.PushRoutes)
			}
			for _, want := range tc.reasons {
				if !slices.ContainsFunc(p.Reasons, func(r ksync.Reason) bool { return r.String() == want && !r.Reload }) {
					t.Errorf("no dynamic reason %q in %v", want, p.Reasons)
				}
			}
		})
	}
}

// errorShapeLine is the router's server with the named location of the
// error pages 404 and 503, as the Lua writer writes them.
const errorShapeLine = "\n## start server _ (Lua routing: lua/router.lua)\n\tlocation \"@kubectl_ingress_errors_i_404_503\" {\n\t}\n## end server _"

// withErrorPages gives host's path of s the error pages 404 and 503.
func withErrorPages(s ksync.State, host string) ksync.State {
	for i := range s.Routes {
		if s.Routes[i].Host == host {
			s.Routes[i].Paths[0].Settings.ErrorPages = &luaapi.RouteErrorPages{}
			s.Routes[i].Paths[0].Settings.Shape = "@kubectl_ingress_errors_i_404_503"
			s.Routes[i].Version += "-errors"
		}
	}
	return s
}

func TestApplyRoutesOrder(t *testing.T) {
	running := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80", "ns-b-80")
	cases := []struct {
		name    string
		running ksync.State
		desired ksync.State
		want    []string
	}{
		{"new host with a new backend: the backend first, then the route",
			running, routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed", "ns-a-80", "ns-b-80", "ns-c-80"),
			[]string{"backends ns-a-80,ns-b-80,ns-c-80", "routes c.example"}},
		{"host removed with its backend: the bridge, the routes, then the backends",
			running, routed([]string{"a.example"}, "1", "fixed", "ns-a-80"),
			[]string{"backends ns-a-80,ns-b-80", "routes  delete b.example", "backends ns-a-80"}},
		{"route changed, backends the same: the route only",
			running, ksync.State{Config: running.Config, NGINXConf: []byte("fixed"), Routes: append(routes("2", "a.example"), routes("1", "b.example")...)},
			[]string{"routes a.example"}},
		{"reload (a classic host): new routes before it, the deletions after",
			running, routed([]string{"b.example", "c.example"}, "1", "fixed+classic", "ns-a-80", "ns-b-80"),
			[]string{"routes c.example", "reload fixed+classic", "backends ns-a-80,ns-b-80", "servers  certs", "routes c.example delete a.example"}},
		{"reload for a new set of error pages: its routes only after it",
			running, withErrorPages(routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed+"+errorShapeLine, "ns-a-80", "ns-b-80"), "c.example"),
			[]string{"reload fixed+" + errorShapeLine, "backends ns-a-80,ns-b-80", "servers  certs", "routes c.example"}},
		{"a set of error pages nginx.conf has: the route before the reload",
			routed([]string{"a.example", "b.example"}, "1", "fixed+"+errorShapeLine, "ns-a-80", "ns-b-80"),
			withErrorPages(routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed+"+errorShapeLine+"+classic", "ns-a-80", "ns-b-80"), "c.example"),
			[]string{"routes c.example", "reload fixed+" + errorShapeLine + "+classic", "backends ns-a-80,ns-b-80", "servers  certs", "routes c.example"}},
		{"start: reload, payloads, then every route",
			ksync.State{}, running,
			[]string{"reload fixed", "backends ns-a-80,ns-b-80", "servers  certs", "routes a.example,b.example"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &routedNginx{}
			plan := ksync.NewPlan(tc.running, tc.desired)
			if err := ksync.Apply(context.Background(), plan, tc.running, tc.desired, f, f, nil); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.calls, tc.want) {
				t.Errorf("calls\n%q\nwant\n%q", f.calls, tc.want)
			}
		})
	}
}

func TestApplyRoutesRefusedHost(t *testing.T) {
	running := routed([]string{"a.example"}, "1", "fixed", "ns-a-80")
	desired := routed([]string{"a.example", "bad.example", "c.example"}, "1", "fixed", "ns-a-80")
	f := &routedNginx{dropHost: "bad.example"}
	err := ksync.Apply(context.Background(), ksync.NewPlan(running, desired), running, desired, f, f, nil)
	var ae *ksync.ApplyError
	var rejected *ksync.RoutesRejectedError
	if !errors.As(err, &ae) || ae.Stage != ksync.StageRoutes || !errors.As(err, &rejected) {
		t.Fatalf("err %v, want a RoutesRejectedError at stage routes", err)
	}
	if len(rejected.Dropped) != 1 || !strings.Contains(err.Error(), "bad.example: paths[0].matchers[0].value") {
		t.Errorf("error %q does not name the refused host and field", err)
	}
	if !slices.Equal(f.calls, []string{"routes bad.example,c.example"}) {
		t.Errorf("calls %q: the update goes once, with every host", f.calls)
	}
}

func TestApplyRoutesNeedARoutePusher(t *testing.T) {
	running := routed([]string{"a.example"}, "1", "fixed", "ns-a-80")
	desired := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80")
	f := &fakeNginx{}
	err := ksync.Apply(context.Background(), ksync.NewPlan(running, desired), running, desired, f, f, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot post routes") {
		t.Fatalf("err %v", err)
	}
}

// routesPreloadingNginx is a routedNginx that also takes the route preload.
type routesPreloadingNginx struct{ routedNginx }

func (f *routesPreloadingNginx) PreloadRoutes(_ context.Context, write func(io.Writer) error) (func() (io.ReadCloser, int64, error), error) {
	if write == nil {
		return nil, f.record("preload-routes", "none")
	}
	var body bytes.Buffer
	if err := write(&body); err != nil {
		return nil, err
	}
	routes := body.Bytes()
	var u luaapi.RoutesUpdate
	if err := json.Unmarshal(routes, &u); err != nil {
		return nil, err
	}
	var hosts []string
	for _, h := range u.Hosts {
		hosts = append(hosts, h.Host)
	}
	open := func() (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(routes)), int64(len(routes)), nil
	}
	return open, f.record("preload-routes", strings.Join(hosts, ","))
}

// TestApplyPreloadsRoutes: a start hands every route to the master before
// nginx starts (served from the first request), then posts them; classic
// routing removes a preload an earlier Lua run left.
func TestApplyPreloadsRoutes(t *testing.T) {
	desired := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80")
	f := &routesPreloadingNginx{}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, desired), ksync.State{}, desired, f, f, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"preload-routes a.example,b.example", "reload fixed", "backends ns-a-80", "servers  certs", "routes a.example,b.example"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	classic := st(config([]string{"a.example"}, false, "ns-a-80"), "classic")
	f = &routesPreloadingNginx{}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, classic), ksync.State{}, classic, f, f, nil); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) == 0 || f.calls[0] != "preload-routes none" {
		t.Errorf("classic start: calls %q", f.calls)
	}
}

// startingNginx preloads every payload (as pkg/nginx.Instance does) and
// takes encoded bodies (as luaapi.Client does): it keeps what it was
// handed and what was posted.
type startingNginx struct {
	routesPreloadingNginx
	preloaded map[string][]byte // backends, servers, routes
	posted    map[string][]byte // path -> body
}

func (f *startingNginx) Preload(_ context.Context, backends, servers []byte) error {
	f.preloaded["backends"], f.preloaded["servers"] = backends, servers
	return f.record("preload", "")
}

func (f *startingNginx) PreloadRoutes(ctx context.Context, write func(io.Writer) error) (func() (io.ReadCloser, int64, error), error) {
	open, err := f.routesPreloadingNginx.PreloadRoutes(ctx, write)
	if open != nil {
		f.preloaded["routes"], _ = luaapi.OpenBody(open).ReadAll()
	}
	return open, err
}

func (f *startingNginx) PostBody(_ context.Context, path string, body []byte) ([]luaapi.Dropped, error) {
	f.posted[path] = body
	return nil, f.record("body", path)
}

// TestApplyPostsThePreloadedBodies: after a start, the payloads are
// posted as the bodies encoded for the preload (not encoded again, and
// byte for byte what nginx preloaded, which it answers from memory);
// a reload that keeps the dicts posts the plan's payloads as before.
func TestApplyPostsThePreloadedBodies(t *testing.T) {
	desired := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80")
	f := &startingNginx{preloaded: map[string][]byte{}, posted: map[string][]byte{}}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, desired), ksync.State{}, desired, f, f, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"preload", "preload-routes a.example,b.example", "reload fixed",
		"body " + luaapi.PathBackends, "body " + luaapi.PathServers, "body " + luaapi.PathRoutes}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	for name, path := range map[string]string{"backends": luaapi.PathBackends, "servers": luaapi.PathServers, "routes": luaapi.PathRoutes} {
		if len(f.preloaded[name]) == 0 || !bytes.Equal(f.posted[path], f.preloaded[name]) {
			t.Errorf("%s: posted %q, want the preloaded %q", path, f.posted[path], f.preloaded[name])
		}
	}
	// the routes body is what luaapi.Client would post: no null lists
	if !bytes.Contains(f.posted[luaapi.PathRoutes], []byte(`"delete":[]`)) {
		t.Errorf("routes body %s: want an empty delete list, as the client posts it", f.posted[luaapi.PathRoutes])
	}

	next := routed([]string{"a.example", "b.example", "c.example"}, "1", "fixed2", "ns-a-80")
	f.calls = nil
	if err := ksync.Apply(context.Background(), ksync.NewPlan(desired, next), desired, next, f, f, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.calls, "routes c.example") {
		t.Errorf("a reload that keeps the routes dict: calls %q, want the plan's update (c.example) posted", f.calls)
	}
}

// streamingNginx is a startingNginx that also posts bodies from a reader
// (as luaapi.Client does).
type streamingNginx struct{ *startingNginx }

func (f streamingNginx) PostBodyFrom(_ context.Context, path string, open luaapi.OpenBody) ([]luaapi.Dropped, error) {
	body, err := open.ReadAll()
	if err != nil {
		return nil, err
	}
	f.posted[path] = body
	return nil, f.record("stream", path)
}

// TestApplyStreamsThePreloadedRoutes: a Pusher that posts from a reader
// gets the routes that way after a start (the preload file, not a copy
// in memory), byte for byte what was preloaded.
func TestApplyStreamsThePreloadedRoutes(t *testing.T) {
	desired := routed([]string{"a.example", "b.example"}, "1", "fixed", "ns-a-80")
	f := streamingNginx{&startingNginx{preloaded: map[string][]byte{}, posted: map[string][]byte{}}}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, desired), ksync.State{}, desired, f, f, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"preload", "preload-routes a.example,b.example", "reload fixed",
		"body " + luaapi.PathBackends, "body " + luaapi.PathServers, "stream " + luaapi.PathRoutes}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	if len(f.preloaded["routes"]) == 0 || !bytes.Equal(f.posted[luaapi.PathRoutes], f.preloaded["routes"]) {
		t.Errorf("streamed %q, want the preloaded %q", f.posted[luaapi.PathRoutes], f.preloaded["routes"])
	}
}

// encodingNginx is a streamingNginx that also encodes backends (as
// luaapi.Client does, keeping what it encoded).
type encodingNginx struct{ streamingNginx }

func (f encodingNginx) EncodeBackends(backends []luaapi.Backend) (*luaapi.EncodedBackends, error) {
	var names []string
	for _, b := range backends {
		names = append(names, b.Name)
	}
	_ = f.record("encode", strings.Join(names, ","))
	return luaapi.EncodeBackends(backends)
}

// TestApplyPreloadEncodesThroughThePusher: a start encodes the preload's
// backends through a Pusher that encodes them (its cache then spares the
// next push encoding them all again), and posts that body.
func TestApplyPreloadEncodesThroughThePusher(t *testing.T) {
	desired := routed([]string{"a.example"}, "1", "fixed", "ns-a-80")
	f := encodingNginx{streamingNginx{&startingNginx{preloaded: map[string][]byte{}, posted: map[string][]byte{}}}}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, desired), ksync.State{}, desired, f, f, nil); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) == 0 || f.calls[0] != "encode ns-a-80" {
		t.Errorf("calls %q, want the backends encoded by the pusher first", f.calls)
	}
	if !bytes.Equal(f.posted[luaapi.PathBackends], f.preloaded["backends"]) {
		t.Errorf("posted %q, want the preloaded %q", f.posted[luaapi.PathBackends], f.preloaded["backends"])
	}
}
