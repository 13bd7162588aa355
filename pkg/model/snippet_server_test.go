package model

import "testing"

func TestServerLuaBlocker(t *testing.T) {
	g := DefaultGlobal() // server-tokens off
	on, off := true, false
	deny := []SnippetAccess{{Deny: true, Source: "all"}}
	ret := func(code int, text string) []SnippetRewriteStep {
		return []SnippetRewriteStep{{Return: &SnippetReturn{Code: code, Text: text}}}
	}
	loc := func(mod, path string, body Snippet) SnippetLocation {
		return SnippetLocation{Modifier: mod, Path: path, Body: body}
	}
	for _, tc := range []struct {
		name string
		sn   *Snippet
		want string
	}{
		{"none", nil, ""},
		{"server_tokens as the ConfigMap's", &Snippet{ServerTokens: &off}, ""},
		{"server_tokens on", &Snippet{ServerTokens: &on}, "server_tokens"},
		{"a hidden header", &Snippet{HideHeaders: []string{"X-Powered-By"}}, ""},
		{"a header", &Snippet{AddHeaders: []SnippetAddHeader{{Header: Header{Name: "A", Value: "b"}}}}, "add_header"},
		{"client_max_body_size", &Snippet{Proxy: SnippetProxy{BodySize: "0"}}, ""},
		{"proxy_read_timeout", &Snippet{Proxy: SnippetProxy{BodySize: "0", ReadTimeout: "5s"}}, "proxy settings but client_max_body_size"},
		{"a server-level return and rewrite", &Snippet{RewritePhase: append(ret(404, ""), SnippetRewriteStep{Rewrite: &SnippetRewrite{Regex: "^/a", Replacement: "/b", Flag: "last"}})}, ""},
		{"a server-level return of 103", &Snippet{RewritePhase: ret(103, "")}, "return 103"},
		{"a server-level redirect without a URL", &Snippet{RewritePhase: ret(301, "")}, "return 301"},
		{"answering locations", &Snippet{ServerTokens: &off, Locations: []SnippetLocation{
			loc("~", "^/(ping|ready)", Snippet{Access: deny, RewritePhase: ret(404, "")}),
			loc("=", "/.well-known/webfinger", Snippet{RewritePhase: ret(301, "https://x.example/")}),
			loc("^~", "/internal/", Snippet{Access: deny}),
			loc("~*", `\.php$`, Snippet{RewritePhase: ret(403, "no")}),
			loc("", "/status", Snippet{RewritePhase: ret(200, "ok")}),
		}}, ""},
		{"a location serving files", &Snippet{Locations: []SnippetLocation{loc("=", "/robots.txt", Snippet{Access: []SnippetAccess{{Source: "all"}}})}},
			"location = /robots.txt: neither a return nor deny all (it would serve files)"},
		{"a return with a variable", &Snippet{Locations: []SnippetLocation{loc("=", "/x", Snippet{RewritePhase: ret(301, "https://$host/y")})}},
			"location = /x: return with a variable"},
		{"a rewrite", &Snippet{Locations: []SnippetLocation{loc("=", "/x", Snippet{RewritePhase: []SnippetRewriteStep{{Rewrite: &SnippetRewrite{Regex: "^", Replacement: "/y"}}}})}},
			"location = /x: rewrite"},
		{"a header in a location", &Snippet{Locations: []SnippetLocation{loc("=", "/x", Snippet{RewritePhase: ret(200, ""), AddHeaders: []SnippetAddHeader{{Header: Header{Name: "A", Value: "b"}}}})}},
			"location = /x: add_header"},
		{"the fallback location", &Snippet{Locations: []SnippetLocation{loc("", "/", Snippet{RewritePhase: ret(302, "/app/")})}},
			"location /: the fallback location"},
		{"a redirect without URL", &Snippet{Locations: []SnippetLocation{loc("=", "/x", Snippet{RewritePhase: ret(301, "")})}},
			"location = /x: return of a redirect without a URL"},
	} {
		if got := tc.sn.ServerLuaBlocker(&g); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
