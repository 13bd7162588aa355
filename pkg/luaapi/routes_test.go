package luaapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func routesModel() *model.Config {
	g := model.DefaultGlobal()
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	return &model.Config{
		Global:         g,
		DefaultBackend: model.DefaultBackendName,
		Servers: []model.Server{
			{Hostname: "_"},
			{Hostname: "a.example.com", TLS: true, AppRoot: "/app", Locations: []model.Location{
				{Path: "/exact/", PathType: model.PathExact, Backend: "team-web-80", Ingress: ing, Service: "web", ServicePort: "80", Settings: &model.LocationSettings{}},
				{Path: "/api", PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Service: "web", ServicePort: "80", HTTPSRedirect: true,
					Settings: &model.LocationSettings{Proxy: model.ProxySettings{ReadTimeout: 120}, Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}}}},
				{Path: "/api", PathType: model.PathExact, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}},
				{Path: "/docs/", PathType: model.PathImplementationSpecific, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}},
				{Path: "/old", PathType: model.PathPrefix, Ingress: ing, Settings: &model.LocationSettings{Redirect: &model.Redirect{URL: "https://new.example.com/", Code: 308}}},
			}},
			{Hostname: "*.wild.example.com", Locations: []model.Location{
				{Path: "/v1/(.*)", PathType: model.PathImplementationSpecific, Regex: true, Backend: "team-web-80", Ingress: ing,
					Settings: &model.LocationSettings{RewriteTarget: "/$1", UpstreamVhost: "internal.example", XForwardedPrefix: "/v1"}},
				{Path: "/", PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}},
			}},
		},
	}
}

func TestRoutesFromModel(t *testing.T) {
	c := routesModel()
	routes := RoutesFromModel(c, []string{"a.example.com", "*.wild.example.com", "_", "missing.example.com"})
	var hosts []string
	for _, h := range routes {
		hosts = append(hosts, h.Host)
		if len(h.Version) != 32 {
			t.Errorf("%s: version %q is not 32 hex digits", h.Host, h.Version)
		}
	}
	if want := []string{"*.wild.example.com", "_", "a.example.com"}; !reflect.DeepEqual(hosts, want) {
		t.Fatalf("hosts = %v, want %v", hosts, want)
	}
	a := routes[2]
	if a.AppRoot != "/app" {
		t.Errorf("appRoot = %q", a.AppRoot)
	}
	// The Exact path ending in "/" comes first (as the classic writer
	// writes it), the fallback "/" last.
	var paths []string
	for _, p := range a.Paths {
		paths = append(paths, p.PathType+" "+p.Path)
	}
	if want := []string{"Exact /exact/", "Prefix /api", "Exact /api", "ImplementationSpecific /docs/", "Prefix /old", "Prefix /"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths = %v, want %v", paths, want)
	}
	api := a.Paths[1]
	// An Exact /api takes "= /api": the Prefix keeps only "/api/".
	if want := []RouteMatcher{{MatchPrefix, "/api/"}}; !reflect.DeepEqual(api.Matchers, want) {
		t.Errorf("api matchers = %v, want %v", api.Matchers, want)
	}
	if api.Settings.HTTPSRedirect != 308 || !reflect.DeepEqual(api.Settings.Allow, []string{"10.0.0.0/8"}) {
		t.Errorf("api settings = %+v", api.Settings)
	}
	if want := (&RouteTimeouts{Connect: 5, Send: 60, Read: 120}); !reflect.DeepEqual(api.Settings.Timeouts, want) {
		t.Errorf("api timeouts = %+v, want %+v", api.Settings.Timeouts, want)
	}
	if api.Namespace != "team" || api.Ingress != "web" || api.Service != "web" || api.ServicePort != "80" {
		t.Errorf("api labels = %+v", api)
	}
	// "/docs/" proxies without an exact "/docs": nginx redirects "/docs".
	if !a.Paths[3].AutoRedirect || a.Paths[1].AutoRedirect {
		t.Errorf("autoRedirect: docs %v, api %v", a.Paths[3].AutoRedirect, a.Paths[1].AutoRedirect)
	}
	old := a.Paths[4]
	if old.Settings.Redirect == nil || old.Settings.Redirect.Code != 308 || old.AutoRedirect {
		t.Errorf("old = %+v", old)
	}
	fb := a.Paths[5]
	if !fb.Fallback || fb.DefaultBackend != "" || fb.Settings.HTTPSRedirect != 308 {
		t.Errorf("fallback of a TLS host = %+v", fb)
	}
	w := routes[0]
	if len(w.Paths) != 2 {
		t.Fatalf("wildcard paths = %+v (a host with \"/\" gets no fallback)", w.Paths)
	}
	re := w.Paths[0]
	if want := []RouteMatcher{{MatchRegex, "^/v1/(.*)"}}; !reflect.DeepEqual(re.Matchers, want) {
		t.Errorf("regex matchers = %v", re.Matchers)
	}
	if re.Settings.RewriteTarget != "/$1" || re.Settings.UpstreamVhost != "internal.example" || re.Settings.XForwardedPrefix != "/v1" || re.Settings.Timeouts != nil {
		t.Errorf("regex settings = %+v", re.Settings)
	}
	if re.LocationPath != "/v1/(.*)" {
		t.Errorf("locationPath = %q", re.LocationPath)
	}
	// The catch-all without a TLS host's redirect.
	if fb := routes[1].Paths[0]; !fb.Fallback || fb.Settings.HTTPSRedirect != 0 {
		t.Errorf("catch-all fallback = %+v", fb)
	}
}

func TestRoutesDeterministicAndVersioned(t *testing.T) {
	hosts := []string{"a.example.com", "*.wild.example.com", "_"}
	first, err := json.Marshal(RoutesFromModel(routesModel(), hosts))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, _ := json.Marshal(RoutesFromModel(routesModel(), hosts))
		if !bytes.Equal(first, again) {
			t.Fatal("the same model gave other bytes")
		}
	}
	c := routesModel()
	before := RoutesFromModel(c, hosts)
	c.Servers[1].Locations[1].Settings.Proxy.ReadTimeout = 30
	after := RoutesFromModel(c, hosts)
	for i := range before {
		changed := before[i].Version != after[i].Version
		if changed != (before[i].Host == "a.example.com") {
			t.Errorf("%s: version changed %v", before[i].Host, changed)
		}
	}
	// A default backend Service answers the paths without a backend and
	// the fallback.
	c.DefaultBackend = "ns-default-80"
	for _, h := range RoutesFromModel(c, []string{"_"}) {
		if h.Paths[0].DefaultBackend != "ns-default-80" {
			t.Errorf("fallback default backend = %q", h.Paths[0].DefaultBackend)
		}
	}
}

func TestRoutesChanges(t *testing.T) {
	c := routesModel()
	running := RoutesFromModel(c, []string{"a.example.com", "*.wild.example.com", "_"})
	c.Servers[2].Locations[1].Path = "/new"
	desired := RoutesFromModel(c, []string{"*.wild.example.com", "_"})
	u := RoutesChanges(running, desired)
	if len(u.Hosts) != 1 || u.Hosts[0].Host != "*.wild.example.com" {
		t.Errorf("hosts = %+v, want the wildcard only", u.Hosts)
	}
	if !reflect.DeepEqual(u.Delete, []string{"a.example.com"}) {
		t.Errorf("delete = %v", u.Delete)
	}
	if u := RoutesChanges(desired, desired); len(u.Hosts) != 0 || len(u.Delete) != 0 {
		t.Errorf("no change gave %+v", u)
	}
	data, _ := json.Marshal(RoutesChanges(nil, nil))
	if string(data) != `{"hosts":[],"delete":[]}` {
		t.Errorf("empty update = %s", data)
	}
}

func TestRoutesCORS(t *testing.T) {
	c := routesModel()
	c.Servers[2].Locations[0].Settings.CORS = &model.CORS{AllowOrigins: []string{"*"}, MaxAge: 5, AllowCredentials: true}
	c.Servers[2].Locations[1].Settings.CORS = &model.CORS{AllowOrigins: []string{"https://a.example.org", "https://*.b.example.org"}, AllowMethods: "GET"}
	h := RoutesFromModel(c, []string{"*.wild.example.com"})[0]
	if got := h.Paths[0].Settings.CORS; got == nil || got.AllowOrigins != nil || got.MaxAge != 5 || !got.AllowCredentials {
		t.Errorf("any origin: %+v", got)
	}
	if got := h.Paths[1].Settings.CORS; got == nil || !reflect.DeepEqual(got.AllowOrigins, []string{"https://a.example.org", "https://*.b.example.org"}) || got.AllowMethods != "GET" {
		t.Errorf("origin list: %+v", got)
	}
}

// TestRoutesLimits: limit-rps, limit-rpm and limit-connections reach the
// route resolved as the classic writer's limit_req and limit_conn lines
// (burst = rate × limit-burst-multiplier, at least 1), with the Ingress as
// zone, the exempt networks and the ConfigMap's refusal statuses; a
// location without limits has none.
func TestRoutesLimits(t *testing.T) {
	c := routesModel()
	c.Global.LimitReqStatusCode, c.Global.LimitConnStatusCode = 429, 503
	api := &c.Servers[1].Locations[1]
	api.Settings.Limits = model.RateLimits{RPS: 3, RPM: 100, Connections: 2, BurstMultiplier: 4, Exempt: []string{"10.0.0.0/8"}}
	old := &c.Servers[1].Locations[4]
	old.Settings.Limits = model.RateLimits{RPM: 30} // multiplier 0: as 1
	routes := RoutesFromModel(c, []string{"a.example.com"})
	got := map[string]*RouteLimits{}
	for _, p := range routes[0].Paths {
		got[p.PathType+" "+p.Path] = p.Settings.Limits
	}
	want := map[string]*RouteLimits{
		"Prefix /api": {Zone: "team/web", RPS: 3, RPSBurst: 12, RPM: 100, RPMBurst: 400, Connections: 2,
			Exempt: []string{"10.0.0.0/8"}, ReqStatus: 429, ConnStatus: 503},
		"Prefix /old": {Zone: "team/web", RPM: 30, RPMBurst: 30, ReqStatus: 429, ConnStatus: 503},
		"Exact /api":  nil, "Exact /exact/": nil, "ImplementationSpecific /docs/": nil, "Prefix /": nil,
	}
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s: limits %+v, want %+v", k, got[k], want[k])
			}
		}
	}
	before := routes[0].Version
	api.Settings.Limits.RPS = 4
	if RoutesFromModel(c, []string{"a.example.com"})[0].Version == before {
		t.Error("a changed limit-rps leaves the host's version unchanged: it would never be pushed")
	}
}

// TestRoutesAliases: each server-alias of a host has an entry of its own
// that names the host (no paths), sorted with the hosts; its version
// changes only with the host it names.
func TestRoutesAliases(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	c := &model.Config{Global: model.DefaultGlobal(), DefaultBackend: model.DefaultBackendName, Servers: []model.Server{
		{Hostname: "a.example.com", Aliases: []string{"*.w.example.com", "www.a.example.com"},
			Locations: []model.Location{{Path: "/", PathType: model.PathPrefix, Backend: "b", Ingress: ing, Settings: &model.LocationSettings{}}}},
	}}
	got := RoutesFromModel(c, []string{"a.example.com"})
	var hosts []string
	for _, h := range got {
		hosts = append(hosts, h.Host+" -> "+h.AliasOf)
	}
	if want := []string{"*.w.example.com -> a.example.com", "a.example.com -> ", "www.a.example.com -> a.example.com"}; !reflect.DeepEqual(hosts, want) {
		t.Fatalf("entries %q, want %q", hosts, want)
	}
	if a := got[2]; len(a.Paths) != 0 || a.Version != "alias of a.example.com" {
		t.Errorf("alias entry %+v", a)
	}
	c.Servers[0].Locations[0].Backend = "other"
	again := RoutesFromModel(c, []string{"a.example.com"})
	if again[1].Version == got[1].Version || again[2].Version != got[2].Version {
		t.Errorf("versions: host %s -> %s, alias %s -> %s; want the host's alone to change", got[1].Version, again[1].Version, got[2].Version, again[2].Version)
	}
}
