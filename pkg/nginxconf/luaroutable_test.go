package nginxconf

import (
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestLuaRoutable(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	other := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "other"}
	g := model.DefaultGlobal()
	yes := true
	loc := func(st model.LocationSettings) model.Location {
		return model.Location{Path: "/", PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Settings: st}
	}
	cases := []struct {
		name   string
		server model.Server
		global func(*model.Global)
		want   []string
	}{
		{name: "plain", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{})}}},
		{name: "what Lua applies", server: model.Server{Hostname: "a", AppRoot: "/app", TLS: true, Locations: []model.Location{
			{Path: "/(.*)", PathType: model.PathImplementationSpecific, Regex: true, Backend: "b", Ingress: ing, HTTPSRedirect: true,
				Settings: model.LocationSettings{RewriteTarget: "/$1", UpstreamVhost: "x", XForwardedPrefix: "/p", CORS: &model.CORS{MaxAge: 5},
					Logs:   model.LocationLogs{AccessOff: true},
					Proxy:  model.ProxySettings{ConnectTimeout: 1, SendTimeout: 2, ReadTimeout: 3, BodySize: g.ProxyBodySize, Buffering: &g.ProxyBuffering},
					Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}, Deny: []string{"10.1.0.0/16"}}}},
			{Path: "/r", PathType: model.PathExact, Ingress: ing, Settings: model.LocationSettings{Redirect: &model.Redirect{URL: "https://x/", Code: 301}}},
			{Path: "/d", PathType: model.PathPrefix, Ingress: ing, Settings: model.LocationSettings{Denied: "custom-headers", Access: model.AccessControl{DenyAll: true}}},
		}}},
		{name: "server settings", server: model.Server{Hostname: "a", Aliases: []string{"b"}, SSLCiphers: "HIGH", Locations: []model.Location{loc(model.LocationSettings{})}},
			want: []string{"server-alias on Ingress team/web", "ssl-ciphers on Ingress team/web"}},
		{name: "location settings", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Limits: model.RateLimits{Connections: 3}, Proxy: model.ProxySettings{BodySize: "8m", RequestBuffering: &yes}}),
			{Path: "/x", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: model.LocationSettings{Limits: model.RateLimits{Connections: 3}, BackendProtocol: "GRPC"}},
		}}, want: []string{"backend-protocol on Ingress team/other", "limit-connections on Ingress team/other", "limit-connections on Ingress team/web", "proxy-body-size on Ingress team/web"}},
		{name: "global auth", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{})}},
			global: func(g *model.Global) { g.GlobalAuth.URL = "http://auth.example/" },
			want:   []string{"global-auth-url on Ingress team/web"}},
		{name: "global auth opted out", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{GlobalAuthOff: true})}},
			global: func(g *model.Global) { g.GlobalAuth.URL = "http://auth.example/" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &model.Config{Global: model.DefaultGlobal()}
			if tc.global != nil {
				tc.global(&c.Global)
			}
			var got []string
			for _, r := range LuaRoutable(c, &tc.server) {
				got = append(got, r.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reasons = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLuaHosts(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	c := &model.Config{Global: model.DefaultGlobal(), Servers: []model.Server{
		{Hostname: "_"},
		{Hostname: "a.example.com"},
		{Hostname: "b.example.com", Locations: []model.Location{{Path: "/", PathType: model.PathPrefix, Ingress: ing, Settings: model.LocationSettings{Limits: model.RateLimits{RPS: 5}}}}},
	}}
	lua, classic := LuaHosts(c)
	if !reflect.DeepEqual(lua, []string{"_", "a.example.com"}) {
		t.Errorf("lua = %v", lua)
	}
	if len(classic) != 1 || len(classic["b.example.com"]) != 1 || classic["b.example.com"][0].Setting != "limit-rps" {
		t.Errorf("classic = %v", classic)
	}
	// A catch-all the router cannot serve keeps every host classic.
	c.Servers[0].Snippet = &model.Snippet{}
	lua, classic = LuaHosts(c)
	if len(lua) != 0 || len(classic) != 3 {
		t.Fatalf("lua = %v, classic = %v", lua, classic)
	}
	if got := classic["a.example.com"]; len(got) != 1 || got[0].Setting != CatchAllClassic {
		t.Errorf("a.example.com = %v", got)
	}
}
