package nginxconf

import (
	"reflect"
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestLuaRoutable(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	other := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "other"}
	g := model.DefaultGlobal()
	yes := true
	loc := func(st model.LocationSettings) model.Location {
		return model.Location{Path: "/", PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Settings: &st}
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
				Settings: &model.LocationSettings{RewriteTarget: "/$1", UpstreamVhost: "x", XForwardedPrefix: "/p", CORS: &model.CORS{MaxAge: 5},
					Logs:   model.LocationLogs{AccessOff: true},
					Proxy:  model.ProxySettings{ConnectTimeout: 1, SendTimeout: 2, ReadTimeout: 3, BodySize: g.ProxyBodySize, Buffering: &g.ProxyBuffering},
					Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}, Deny: []string{"10.1.0.0/16"}}}},
			{Path: "/l", PathType: model.PathPrefix, Backend: "b", Ingress: ing, Settings: &model.LocationSettings{
				Limits: model.RateLimits{RPS: 1, RPM: 2, Connections: 3, BurstMultiplier: 2, Exempt: []string{"10.0.0.0/8"}}}},
			{Path: "/r", PathType: model.PathExact, Ingress: ing, Settings: &model.LocationSettings{Redirect: &model.Redirect{URL: "https://x/", Code: 301}}},
			{Path: "/d", PathType: model.PathPrefix, Ingress: ing, Settings: &model.LocationSettings{Denied: "custom-headers", Access: model.AccessControl{DenyAll: true}}},
		}}},
		{name: "ssl-ciphers and ssl-prefer-server-ciphers: the handshake's", server: model.Server{Hostname: "a", Aliases: []string{"b"}, SSLCiphers: "HIGH",
			SSLPreferServerCiphers: new(false), Locations: []model.Location{loc(model.LocationSettings{})}}},
		{name: "location settings", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Logs: model.LocationLogs{Rewrite: true}, Proxy: model.ProxySettings{BodySize: "8m", RequestBuffering: &yes}}),
			{Path: "/x", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{Logs: model.LocationLogs{Rewrite: true}, BackendProtocol: "FCGI"}},
			{Path: "/g", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{BackendProtocol: "grpcs"}},
		}}},
		{name: "body size without request buffering: a shape location", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Proxy: model.ProxySettings{BodySize: "8m"}})}},
			global: func(g *model.Global) { g.ProxyRequestBuffering = false }},
		{name: "proxy tuning: a shape location", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Proxy: model.ProxySettings{Buffering: new(true), RequestBuffering: new(false), BufferSize: "16k",
				NextUpstream: []string{"off"}, HTTPVersion: "1.0", ClientBodyBufferSize: "1m"}})}}},
		{name: "proxy-redirect (default and off too) and connection-proxy-header: a shape location", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Proxy: model.ProxySettings{Redirect: &model.TextRewrite{From: "http://in/", To: "/"}, ConnectionHeader: "keep-alive"}}),
			{Path: "/d", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{Proxy: model.ProxySettings{Redirect: &model.TextRewrite{Default: true}}}},
			{Path: "/o", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{Proxy: model.ProxySettings{Redirect: &model.TextRewrite{Off: true}}}},
		}}},
		{name: "global auth: a shape location", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{})}},
			global: func(g *model.Global) { g.GlobalAuth.URL = "http://auth.example/" }},
		{name: "satisfy any between source ranges and one authentication", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{ExternalAuth: &model.ExternalAuth{URL: "http://auth.example/"}, Satisfy: "any",
				Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}}}),
			{Path: "/b", PathType: model.PathPrefix, Backend: "b", Ingress: ing, Settings: &model.LocationSettings{
				BasicAuth: &model.BasicAuth{Realm: "r", File: "f"}, Satisfy: "any", Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}}}},
		}}},
		{name: "client certificates", server: model.Server{Hostname: "a", ClientAuth: &model.ClientAuth{CAFile: "ca/x.pem", Verify: "on", Depth: 1, ErrorPage: "https://e/", MatchCN: "CN=a", PassCertificate: true},
			Locations: []model.Location{loc(model.LocationSettings{ClientAuth: &model.ClientAuth{CAFile: "ca/x.pem", Verify: "on", Depth: 1, MatchCN: "CN=a"}})}}},
		{name: "client certificates with a revocation list", server: model.Server{Hostname: "a", ClientAuth: &model.ClientAuth{CAFile: "ca/x.pem", CRLFile: "crl/x.pem", Verify: "on", Depth: 1, Ingress: ing},
			Locations: []model.Location{loc(model.LocationSettings{})}}},
		{name: "client certificates with an error page path", server: model.Server{Hostname: "a", ClientAuth: &model.ClientAuth{CAFile: "ca/x.pem", Verify: "on", Depth: 1, ErrorPage: "/cert-error", Ingress: ing},
			Locations: []model.Location{loc(model.LocationSettings{})}}},
		{name: "satisfy any between basic and external auth", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{
			ExternalAuth: &model.ExternalAuth{URL: "http://auth.example/"}, BasicAuth: &model.BasicAuth{Realm: "r", File: "f"}, Satisfy: "any"})}},
			want: []string{"satisfy on Ingress team/web"}},
		{name: "satisfy any beside a snippet's allow/deny", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{
			ExternalAuth: &model.ExternalAuth{URL: "http://auth.example/"}, Satisfy: "any",
			Snippet: &model.Snippet{Access: []model.SnippetAccess{{Source: "10.0.0.0/8"}, {Deny: true, Source: "all"}}}})}},
			want: []string{"satisfy on Ingress team/web"}},
		{name: "server-snippet of rewrites and a hidden header", server: model.Server{Hostname: "a", Snippet: &model.Snippet{Ingress: ing, HideHeaders: []string{"X-Powered-By"},
			RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/a", Replacement: "/b", Flag: "last"}}}},
			Locations: []model.Location{loc(model.LocationSettings{})}}},
		{name: "server-snippet hiding a header a configuration-snippet sets", server: model.Server{Hostname: "a", Snippet: &model.Snippet{Ingress: ing, HideHeaders: []string{"X-Powered-By"}},
			Locations: []model.Location{loc(model.LocationSettings{Snippet: &model.Snippet{MoreSetHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{{Name: "x-powered-by", Value: "me"}}}}}})}},
			want: []string{"server-snippet (proxy_hide_header X-Powered-By, which a configuration-snippet sets) on Ingress team/web"}},
		{name: "server-snippet hiding the affinity cookie", server: model.Server{Hostname: "a", Snippet: &model.Snippet{Ingress: ing, HideHeaders: []string{"set-cookie"}},
			Locations: []model.Location{loc(model.LocationSettings{})}},
			want: []string{"server-snippet (proxy_hide_header set-cookie, which the router sets) on Ingress team/web"}},
		{name: "server-snippet rewrites beside app-root", server: model.Server{Hostname: "a", AppRoot: "/app", Snippet: &model.Snippet{Ingress: ing,
			RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/index", Replacement: "/"}}}},
			Locations: []model.Location{loc(model.LocationSettings{})}},
			want: []string{"server-snippet (rewrite/return beside app-root) on Ingress team/web"}},
		{name: "configuration-snippet rewrites beside app-root", server: model.Server{Hostname: "a", AppRoot: "/app",
			Locations: []model.Location{loc(model.LocationSettings{Snippet: &model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/x", Replacement: "/", Flag: "last"}}}}})}},
			want: []string{"configuration-snippet (rewrite/return beside app-root) on Ingress team/web"}},
		{name: "configuration-snippet of headers and access: a shape location", server: model.Server{Hostname: "a", Locations: []model.Location{loc(model.LocationSettings{
			Snippet: &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X", Value: "1"}}},
				ProxySetHeaders: []model.Header{{Name: "Y", Value: "$host", Vars: true}}, Access: []model.SnippetAccess{{Source: "10.0.0.0/8"}, {Deny: true, Source: "all"}}}})}}},
		{name: "configuration-snippet rewrite (the router's), timeout, access beside a source range, return 1xx", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{Snippet: &model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/a", Replacement: "/b"}},
				{Return: &model.SnippetReturn{Code: 301, Text: "https://$host$request_uri"}}}}}),
			{Path: "/r", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{Snippet: &model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 103}}}}}},
			{Path: "/t", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{Snippet: &model.Snippet{Proxy: model.SnippetProxy{ReadTimeout: "5s"}}}},
			{Path: "/s", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{
				Access: model.AccessControl{Allow: []string{"10.0.0.0/8"}}, Snippet: &model.Snippet{Access: []model.SnippetAccess{{Deny: true, Source: "10.1.1.1"}}}}},
		}}, want: []string{"configuration-snippet (allow/deny beside a source range) on Ingress team/other",
			"configuration-snippet (proxy_read_timeout) on Ingress team/other", "configuration-snippet (return) on Ingress team/other"}},
		{name: "configuration-snippet over custom-headers", server: model.Server{Hostname: "a", Locations: []model.Location{
			loc(model.LocationSettings{CustomHeaders: []model.Header{{Name: "X-Shop"}}, Snippet: &model.Snippet{
				MoreSetHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{{Name: "x-shop", Value: "s"}}}}}}),
			{Path: "/t", PathType: model.PathPrefix, Backend: "b", Ingress: other, Settings: &model.LocationSettings{CustomHeaders: []model.Header{{Name: "X-Shop"}},
				Snippet: &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-Shop", Value: "s"}}}}}},
		}}, want: []string{"configuration-snippet (a header of custom-headers in add_header or for some answers only) on Ingress team/other"}},
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
		{Hostname: "b.example.com", Snippet: &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}}}}, Locations: []model.Location{{Path: "/", PathType: model.PathPrefix, Ingress: ing, Settings: &model.LocationSettings{}}}},
	}}
	lua, classic := LuaHosts(c)
	if !reflect.DeepEqual(lua, []string{"_", "a.example.com"}) {
		t.Errorf("lua = %v", lua)
	}
	if len(classic) != 1 || len(classic["b.example.com"]) != 1 || classic["b.example.com"][0].Setting != "server-snippet (add_header)" {
		t.Errorf("classic = %v", classic)
	}
	// A catch-all the router cannot serve keeps every host classic.
	c.Servers[0].Snippet = &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}}}}
	lua, classic = LuaHosts(c)
	if len(lua) != 0 || len(classic) != 3 {
		t.Fatalf("lua = %v, classic = %v", lua, classic)
	}
	if got := classic["a.example.com"]; len(got) != 1 || got[0].Setting != CatchAllClassic {
		t.Errorf("a.example.com = %v", got)
	}
}

// TestLuaHostsUnderClassicWildcards: a host of one label under a classic
// wildcard host, or under a classic server's wildcard server-alias, is
// classic too (nginx matches that server_name before the router's default
// server); a deeper host, or one under a Lua-routed wildcard, is not.
func TestLuaHostsUnderClassicWildcards(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	loc := []model.Location{{Path: "/", PathType: model.PathPrefix, Ingress: ing, Settings: &model.LocationSettings{}}}
	c := &model.Config{Global: model.DefaultGlobal(), Servers: []model.Server{
		{Hostname: "_"},
		{Hostname: "*.wild.example", Snippet: &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}}}}, Locations: loc},
		{Hostname: "*.lua.example", Locations: loc},
		{Hostname: "a.lua.example", Locations: loc},
		{Hostname: "a.wild.example", Locations: loc},
		{Hostname: "aliased.example", Aliases: []string{"*.alias.example"}, Snippet: &model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}}}}, Locations: loc},
		{Hostname: "b.alias.example", Locations: loc},
		{Hostname: "deep.b.alias.example", Locations: loc},
	}}
	lua, classic := LuaHosts(c)
	if want := []string{"_", "*.lua.example", "a.lua.example", "deep.b.alias.example"}; !reflect.DeepEqual(lua, want) {
		t.Errorf("lua = %v, want %v", lua, want)
	}
	// a Lua-routed server whose alias a classic wildcard covers is classic
	c.Servers = append(c.Servers, model.Server{Hostname: "own.example", Aliases: []string{"x.wild.example"}, Locations: loc},
		model.Server{Hostname: "c.wild.example", Aliases: []string{"d.wild.example"}, Locations: loc})
	lua, classic = LuaHosts(c)
	if slices.Contains(lua, "own.example") {
		t.Errorf("own.example is Lua-routed, its alias x.wild.example under the classic *.wild.example")
	}
	for host, wc := range map[string]string{"a.wild.example": "*.wild.example", "b.alias.example": "*.alias.example", "own.example": "*.wild.example", "c.wild.example": "*.wild.example"} {
		if got := classic[host]; len(got) != 1 || got[0].Setting != WildcardClassic+wc {
			t.Errorf("%s: reasons %v, want %q", host, got, WildcardClassic+wc)
		}
	}
}

// TestLuaRoutableCoversModel holds the rule that every setting of the
// model is either applied by the Lua router (luaapi.RoutesFromModel) or
// keeps its host classic (a row of classicServerSettings or
// classicLocationSettings): a field added to the model fails here until it
// is put in one of the two.
func TestLuaRoutableCoversModel(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range classicServerSettings {
		rows[r.setting] = true
	}
	for _, r := range classicLocationSettings {
		rows[r.setting] = true
	}
	// field → "lua" (the router applies it), "model" (not a setting: what
	// routing is made of, or read by render only) or the row that keeps
	// the host classic.
	fields := map[reflect.Type]map[string]string{
		reflect.TypeOf(model.Server{}): {
			"Hostname": "model", "Aliases": "lua", "CertificateID": "lua", "TLS": "lua", "AppRoot": "lua",
			"SSLCiphers": "lua", "SSLPreferServerCiphers": "lua", "Locations": "model",
			"ClientAuth": "model", "Snippet": "model", // model.Snippet.ServerLuaBlocker
		},
		reflect.TypeOf(model.Location{}): {
			"Path": "lua", "PathType": "lua", "Regex": "lua", "Backend": "lua", "Ingress": "lua", "Service": "lua",
			"ServicePort": "lua", "HTTPSRedirect": "lua", "Settings": "model",
		},
		reflect.TypeOf(model.LocationSettings{}): {
			"RewriteTarget": "lua", "XForwardedPrefix": "lua", "AppRoot": "model", "SSLRedirect": "lua", "ForceSSLRedirect": "lua",
			"BackendProtocol": "lua", "UpstreamVhost": "lua", "Proxy": "model", "Redirect": "lua", "Access": "lua",
			"CORS": "lua", "Limits": "model", "CustomDefaultBackend": "model", "ErrorPages": "lua",
			"Mirror": "lua", "CustomHeaders": "lua", "FastCGI": "lua", "Denied": "lua",
			"ExternalAuth": "lua", "GlobalAuthOff": "lua", "Satisfy": "satisfy", "BasicAuth": "lua",
			"ClientAuth": "model", "ProxySSL": "lua", "Logs": "model", "PreserveTrailingSlash": "lua",
			"ModSecurity": "lua", "UsePortInRedirects": "lua", "Snippet": "configuration-snippet",
		},
		reflect.TypeOf(model.ProxySettings{}): {
			// "lua" here includes the shape locations (model.LocationShape)
			"BodySize": "lua", "ConnectTimeout": "lua", "SendTimeout": "lua", "ReadTimeout": "lua",
			"Buffering": "lua", "BufferSize": "lua", "RequestBuffering": "lua",
			"BuffersNumber": "lua", "BusyBuffersSize": "lua",
			"MaxTempFileSize": "lua", "NextUpstream": "lua",
			"NextUpstreamTries": "lua", "NextUpstreamTimeout": "lua",
			"HTTPVersion": "lua", "CookieDomain": "lua", "CookiePath": "lua",
			"RedirectFrom": "model", "RedirectTo": "model", "Redirect": "lua",
			"ClientBodyBufferSize": "lua", "ConnectionHeader": "lua",
		},
		reflect.TypeOf(model.RateLimits{}): {
			"RPS": "lua", "Connections": "lua", "BurstMultiplier": "lua", "Exempt": "lua",
			"RPM": "lua", "Rate": "lua", "RateAfter": "lua",
		},
		reflect.TypeOf(model.LocationLogs{}): {"AccessOff": "lua", "Rewrite": "lua"},
		// a server's, copied into its locations (render's finishClientAuth)
		reflect.TypeOf(model.ClientAuth{}): {
			"Secret": "model", "CAFile": "lua", "CRLFile": "lua", "Verify": "lua", "Depth": "lua",
			"ErrorPage": "lua", "PassCertificate": "lua", "MatchCN": "lua", "Ingress": "model",
		},
	}
	for typ, known := range fields {
		for i := 0; i < typ.NumField(); i++ {
			name := typ.Field(i).Name
			class, ok := known[name]
			switch {
			case !ok:
				t.Errorf("%s.%s: neither applied by the Lua router nor a classic reason (LuaRoutable's tables)", typ.Name(), name)
			case class != "lua" && class != "model" && !rows[class]:
				t.Errorf("%s.%s: classic reason %q is not a row of LuaRoutable's tables", typ.Name(), name, class)
			}
		}
	}
}
