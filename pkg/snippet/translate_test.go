package snippet

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func ptr[T any](v T) *T { return &v }

// TestTranslateGood: every allowlisted directive with good arguments.
func TestTranslateGood(t *testing.T) {
	cs, ss := ConfigurationSnippet, ServerSnippet
	h := func(name, value string) model.Header { return model.Header{Name: name, Value: value, Vars: true} }
	cases := []struct {
		name, ann, text string
		want            model.Snippet // Annotation and Translated filled by the test when nil
	}{
		{"add_header", cs, "add_header X-Frame-Options SAMEORIGIN;\nadd_header X-XSS-Protection \"1; mode=block\" always;\nadd_header Content-Security-Policy \"frame-ancestors 'none'\";",
			model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: h("X-Frame-Options", "SAMEORIGIN")}, {Header: h("X-XSS-Protection", "1; mode=block"), Always: true}, {Header: h("Content-Security-Policy", "frame-ancestors 'none'")}}}},
		{"add_header with a response variable", cs, `add_header X-Up $upstream_http_x_id;`,
			model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: h("X-Up", "$upstream_http_x_id")}}}},
		{"more_set_headers", cs, `more_set_headers "X-Frame-Options: DENY" 'Request-Id: $req_id';` + "\n" + `more_set_headers -s '404 500' -t 'text/html' "X-A:b";`,
			model.Snippet{MoreSetHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{h("X-Frame-Options", "DENY"), h("Request-Id", "$req_id")}}, {Statuses: []int{404, 500}, Types: []string{"text/html"}, Headers: []model.Header{h("X-A", "b")}}}}},
		{"more_set_headers empty value", cs, `more_set_headers "Server:";`,
			model.Snippet{MoreSetHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{h("Server", "")}}}}},
		{"more_clear_headers", cs, `more_clear_headers Server 'X-Hidden-*';`,
			model.Snippet{MoreClearHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{{Name: "Server"}, {Name: "X-Hidden-*"}}}}}},
		{"proxy_hide_header", cs, "proxy_hide_header \"x-webkit-csp\";\nproxy_hide_header l5d-remote-ip;",
			model.Snippet{HideHeaders: []string{"x-webkit-csp", "l5d-remote-ip"}}},
		{"proxy_set_header empty and linkerd", cs, "proxy_set_header Accept-Encoding \"\";\nproxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;",
			model.Snippet{ProxySetHeaders: []model.Header{h("Accept-Encoding", ""), h("l5d-dst-override", "$service_name.$namespace.svc.cluster.local:$service_port")}}},
		{"proxy_set_header request variables", ss, `proxy_set_header X-Real ${remote_addr}:$http_x_a;`,
			model.Snippet{ProxySetHeaders: []model.Header{h("X-Real", "${remote_addr}:$http_x_a")}}},
		{"server_tokens", ss, "server_tokens off;", model.Snippet{ServerTokens: ptr(false)}},
		{"return code", ss, "return 404;", model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 404}}}}},
		{"return code text", cs, `return 200 "ok\n";`, model.Snippet{}}, // refused below: \n is a control character
		{"return redirect", ss, "return 301 $scheme://$host/remote.php/dav;", model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 301, Text: "$scheme://$host/remote.php/dav"}}}}},
		{"return URL", cs, "return https://example.com$request_uri;", model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 302, Text: "https://example.com$request_uri"}}}}},
		{"return 444", cs, "return 444;", model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 444}}}}},
		{"rewrite", cs, "rewrite /api/(.*) /$1 break;\nrewrite ^/.well-known/host-meta.json /public.php?service=host-meta-json;",
			model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "/api/(.*)", Replacement: "/$1", Flag: "break"}}, {Rewrite: &model.SnippetRewrite{Regex: "^/.well-known/host-meta.json", Replacement: "/public.php?service=host-meta-json"}}}}},
		{"rewrite and return keep their order", ss, "rewrite ^/a /b last;\nreturn 403;\nrewrite ^/c /d permanent;",
			model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/a", Replacement: "/b", Flag: "last"}}, {Return: &model.SnippetReturn{Code: 403}}, {Rewrite: &model.SnippetRewrite{Regex: "^/c", Replacement: "/d", Flag: "permanent"}}}}},
		{"allow deny", cs, "allow 10.1.2.3/8;\nallow 2001:db8::1;\ndeny all;",
			model.Snippet{Access: []model.SnippetAccess{{Source: "10.0.0.0/8"}, {Source: "2001:db8::1/128"}, {Deny: true, Source: "all"}}}},
		{"proxy_intercept_errors", cs, "proxy_intercept_errors on;", model.Snippet{ProxyInterceptErrors: ptr(true)}},
		{"chunked_transfer_encoding", cs, "chunked_transfer_encoding off;", model.Snippet{ChunkedTransferEncoding: ptr(false)}},
		{"sub_filter", cs, "sub_filter '</head>' '<link rel=\"stylesheet\" type=\"text/css\" href=\"https://theme-park.example.com/css/base/sonarr/dracula.css\"></head>';\nsub_filter_once on;\nsub_filter_types text/css application/javascript;",
			model.Snippet{SubFilters: []model.SnippetSubFilter{{Match: "</head>", Replacement: `<link rel="stylesheet" type="text/css" href="https://theme-park.example.com/css/base/sonarr/dracula.css"></head>`}}, SubFilterOnce: ptr(true), SubFilterTypes: []string{"text/css", "application/javascript"}}},
		{"proxy settings", cs, "proxy_connect_timeout 10;\nproxy_send_timeout 5m;\nproxy_read_timeout 300s;\nclient_max_body_size 0;\nproxy_buffer_size 16k;\nclient_body_buffer_size 1m;\nproxy_buffering off;\nproxy_request_buffering on;",
			model.Snippet{Proxy: model.SnippetProxy{ConnectTimeout: "10s", SendTimeout: "300s", ReadTimeout: "300s", BodySize: "0", BufferSize: "16k", ClientBodyBufSize: "1m", Buffering: ptr(false), RequestBuffering: ptr(true)}}},
		{"proxy_ssl_verify off writes nothing", ss, "proxy_ssl_verify off;", model.Snippet{}},
		{"comments, blank lines and multi-line values", cs, "# security headers\n\nadd_header X-A   # trailing comment\n  'a b' ; # more\n",
			model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: h("X-A", "a b")}}}},
		{"nested locations", ss, "server_tokens off;\nlocation ~ ^/(ping|ready|prometheus) {\n  deny all;\n  return 404;\n}\nlocation = /.well-known/webfinger {\n    return 301 https://mastodon.example.net/.well-known/webfinger;\n}\nlocation ^~ /static { return 404; }\nlocation =/exact { rewrite ^/exact$ /other last; return 404; }\nlocation ~*\\.php$ { deny all; }",
			model.Snippet{ServerTokens: ptr(false), Locations: []model.SnippetLocation{
				{Modifier: "~", Path: "^/(ping|ready|prometheus)", Body: model.Snippet{Annotation: ss, Access: []model.SnippetAccess{{Deny: true, Source: "all"}}, RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 404}}}}},
				{Modifier: "=", Path: "/.well-known/webfinger", Body: model.Snippet{Annotation: ss, RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 301, Text: "https://mastodon.example.net/.well-known/webfinger"}}}}},
				{Modifier: "^~", Path: "/static", Body: model.Snippet{Annotation: ss, RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 404}}}}},
				{Modifier: "=", Path: "/exact", Body: model.Snippet{Annotation: ss, RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/exact$", Replacement: "/other", Flag: "last"}}, {Return: &model.SnippetReturn{Code: 404}}}}},
				{Modifier: "~*", Path: `\.php$`, Body: model.Snippet{Annotation: ss, Access: []model.SnippetAccess{{Deny: true, Source: "all"}}}},
			}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, refusals := Translate(c.ann, c.text)
			if c.name == "return code text" {
				if got != nil || len(refusals) != 1 || !strings.Contains(refusals[0].Reason, "visible ASCII") {
					t.Errorf("got %+v, %v; want the newline refused", got, refusals)
				}
				return
			}
			if len(refusals) > 0 {
				t.Fatalf("refused: %v", refusals)
			}
			if got == nil {
				t.Fatal("nil Snippet")
			}
			want := c.want
			want.Annotation = c.ann
			want.Translated = got.Translated
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("Translate(%q)\n got %+v\nwant %+v", c.text, *got, want)
			}
			n := 0
			for _, v := range got.Translated {
				n += v
			}
			tokens, _ := Tokenize(c.text)
			ds, _ := parse(tokens)
			if n != count(ds) {
				t.Errorf("Translated counts %d directives (%v), the snippet has %d", n, got.Translated, count(ds))
			}
		})
	}
}

func TestTranslateCounts(t *testing.T) {
	got, _ := Translate(ServerSnippet, "server_tokens off;\nlocation ~ ^/(ping|ready) {\n  deny all;\n  return 404;\n}\n")
	want := map[string]int{"server_tokens": 1, "location": 1, "deny": 1, "return": 1}
	if !reflect.DeepEqual(got.Translated, want) {
		t.Errorf("Translated = %v, want %v", got.Translated, want)
	}
}

func TestTranslateEmpty(t *testing.T) {
	for _, text := range []string{"", "  \n", "# only a comment\n"} {
		if s, r := Translate(ConfigurationSnippet, text); s != nil || r != nil {
			t.Errorf("Translate(%q) = %v, %v; want nil, nil", text, s, r)
		}
	}
}

// TestTranslateRefused: bad arguments, refused directives and CVE shapes,
// each named with its line; any refusal applies nothing.
func TestTranslateRefused(t *testing.T) {
	cs, ss := ConfigurationSnippet, ServerSnippet
	cases := []struct {
		name, ann, text string
		line            int
		directive       string
		reason          string // a part of the reason
	}{
		// bad arguments of each directive
		{"add_header one arg", cs, "add_header X;", 1, "add_header", "takes 2 to 3 arguments"},
		{"add_header bad flag", cs, "add_header X y sometimes;", 1, "add_header", `must be "always"`},
		{"add_header bad name", cs, "add_header X:Y z;", 1, "add_header", "header name"},
		{"add_header unknown variable", cs, "add_header X $secret_var;", 1, "add_header", "$secret_var"},
		{"add_header newline escape", cs, `add_header X "a\nInjected: 1";`, 1, "add_header", "visible ASCII"},
		{"add_header raw newline in quotes", cs, "add_header X \"a\nb\";", 1, "add_header", "visible ASCII"},
		{"add_header lone dollar", cs, `add_header X "a$";`, 1, "add_header", `"$"`},
		{"more_set_headers no colon", cs, `more_set_headers "X-A";`, 1, "more_set_headers", `"NAME: VALUE"`},
		{"more_set_headers bad status", cs, `more_set_headers -s 99 "X-A: b";`, 1, "more_set_headers", "100 to 599"},
		{"more_set_headers bad type", cs, `more_set_headers -t 'text' "X-A: b";`, 1, "more_set_headers", "-t type"},
		{"more_set_headers -s without value", cs, `more_set_headers "X-A: b" -s;`, 1, "more_set_headers", "needs a value"},
		{"more_set_headers nothing", cs, `more_set_headers -s 200;`, 1, "more_set_headers", "names no header"},
		{"more_clear_headers bad name", cs, `more_clear_headers "a b";`, 1, "more_clear_headers", "header name"},
		{"proxy_hide_header two", cs, "proxy_hide_header a b;", 1, "proxy_hide_header", "takes 1 argument"},
		{"proxy_set_header response variable", cs, "proxy_set_header X $upstream_http_x;", 1, "proxy_set_header", "$upstream_http_x"},
		{"proxy_set_header service vars only in configuration-snippet", ss, "proxy_set_header X $service_name;", 1, "proxy_set_header", "$service_name"},
		{"server_tokens build", ss, "server_tokens build;", 1, "server_tokens", `"on" or "off"`},
		{"server_tokens twice", ss, "server_tokens off;\nserver_tokens on;", 2, "server_tokens", "twice"},
		{"return bad code", cs, "return 1000;", 1, "return", "100 to 599"},
		{"return word", cs, "return /x;", 1, "return", "status code"},
		{"return bad variable", cs, "return 302 https://$evil;", 1, "return", "$evil"},
		{"return three args", cs, "return 200 a b;", 1, "return", "takes 1 to 2"},
		{"rewrite bad regex", cs, "rewrite ^/(a /b;", 1, "rewrite", "regex"},
		{"rewrite bad flag", cs, "rewrite ^/a /b next;", 1, "rewrite", "flag"},
		{"rewrite capture 0", cs, "rewrite ^/(a) /$0;", 1, "rewrite", "$0"},
		{"rewrite PCRE-only regex", cs, `rewrite "^/(?<n>a)\K" /b;`, 1, "rewrite", "regex"},
		{"allow bad", cs, "allow 10.0.0.0/33;", 1, "allow", "CIDR"},
		{"deny unix", cs, "deny unix:;", 1, "deny", "CIDR"},
		{"flag bad", cs, "proxy_intercept_errors yes;", 1, "proxy_intercept_errors", `"on" or "off"`},
		{"sub_filter empty match", cs, "sub_filter '' x;", 1, "sub_filter", "empty"},
		{"sub_filter variable", cs, "sub_filter a $foo;", 1, "sub_filter", "$foo"},
		{"sub_filter_types bad", cs, "sub_filter_types text;", 1, "sub_filter_types", "type"},
		{"timeout ms", cs, "proxy_read_timeout 500ms;", 1, "proxy_read_timeout", "seconds"},
		{"size bad", cs, "client_max_body_size 1t;", 1, "client_max_body_size", "size"},
		{"buffer zero", cs, "proxy_buffer_size 0;", 1, "proxy_buffer_size", "buffer size"},
		{"proxy_ssl_verify on", ss, "proxy_ssl_verify on;", 1, "proxy_ssl_verify", "proxy-ssl-verify"},
		{"directive with a block", cs, "add_header X y { }", 1, "add_header", "takes no block"},
		// nested locations
		{"location in a configuration-snippet", cs, "location /x { deny all; }", 1, "location", "only in a server-snippet"},
		{"location nested twice", ss, "location /a {\n  location /b { deny all; }\n}", 2, "location", "nested in a location"},
		{"location refused body", ss, "location /a {\n  deny all;\n  try_files $uri =404;\n}", 3, "try_files", "files"},
		{"location named", ss, "location @x { return 404; }", 1, "location", "named locations"},
		{"location relative", ss, "location x { return 404; }", 1, "location", `start with "/"`},
		{"location bad modifier", ss, "location !~ /x { return 404; }", 1, "location", "modifier"},
		{"location bad regex", ss, "location ~ ^/(x { return 404; }", 1, "location", "regex"},
		{"location without block", ss, "location /x;", 1, "location", "needs a block"},
		{"location twice", ss, "location /x { return 404; }\nlocation /x { return 403; }", 2, "location", "twice"},
		// a nested location that would reach nginx's content phase (its root's files)
		{"location without an answer", ss, "location /x { }", 1, "location", "answer by itself"},
		{"location allowing before deny all", ss, "location /x {\n allow 10.0.0.0/8;\n deny all;\n}", 1, "location", "answer by itself"},
		{"location return after rewrite break", ss, "location /x {\n rewrite ^ /y break;\n return 404;\n}", 1, "location", "answer by itself"},
		{"location with headers only", ss, "location /x { add_header X y; }", 1, "location", "answer by itself"},
		{"location body duplicate", ss, "location /x {\n server_tokens off;\n server_tokens off;\n}", 3, "server_tokens", "twice"},
		// refused directives, each with what to use instead
		{"lua", cs, "add_header X y;\naccess_by_lua_block { ngx.exit(403) }", 2, "access_by_lua_block", "Lua"},
		{"lua_need_request_body", cs, "lua_need_request_body on;", 1, "lua_need_request_body", "Lua"},
		{"include", cs, "include /etc/passwd;", 1, "include", "file"},
		{"load_module", ss, "load_module /tmp/evil.so;", 1, "load_module", "loads code"},
		{"ssl", ss, "ssl_protocols TLSv1;", 1, "ssl_protocols", "ssl-protocols"},
		{"root", cs, "root /;", 1, "root", "filesystem"},
		{"alias", cs, "alias /etc/;", 1, "alias", "filesystem"},
		{"if", ss, "set $a 0;\nif ($http_user_agent ~* \"(Mobile)\" ){\n  set $a 1;\n}", 1, "set", "variable"},
		{"if line", ss, "server_tokens off;\nif ($a) { return 404; }", 2, "if", "conditions"},
		{"auth_request_set", cs, "auth_request_set $required_groups 'casa_editors';", 1, "auth_request_set", "auth-response-headers"},
		{"error_page", ss, "error_page 404 \"https://example.com/404.html\";\nproxy_intercept_errors on;", 1, "error_page", "custom-http-errors"},
		{"unknown", cs, "frobnicate on;", 1, "frobnicate", "allowlist"},
		// CVE shapes
		{"brace closes the location", cs, "return 200;\n}\nserver { listen 1; }", 2, "", `unexpected "}"`},
		{"brace after args", cs, "add_header X y }", 1, "", `unexpected "}"`},
		{"semicolon in quotes stays a value", cs, "add_header X \"a; include /etc/passwd\";\ninclude /x;", 2, "include", "file"},
		{"unterminated block", ss, "location /x {\n deny all;", 2, "", "not closed"},
		{"unterminated quote", cs, "add_header X \"abc;\n", 1, "", "unterminated"},
		{"missing semicolon", cs, "add_header X y", 1, "", `must end in ";"`},
		{"stray semicolon", cs, ";", 1, "", `unexpected ";"`},
		{"hash hides the rest of the line", cs, "add_header X y # ;\n", 1, "", `must end in ";"`},
		{"dollar brace variable", cs, "add_header X ${evil};", 1, "add_header", "$evil"},
		{"CR LF injection in more_set_headers", cs, `more_set_headers "X: a\r\nSet-Cookie: b";`, 1, "more_set_headers", "visible ASCII"},
		{"unknown annotation", "auth-snippet", "add_header X y;", 1, "", "not a snippet annotation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, refusals := Translate(c.ann, c.text)
			if got != nil {
				t.Errorf("Translate(%q) applied %+v despite refusals %v", c.text, got, refusals)
			}
			if len(refusals) == 0 {
				t.Fatalf("Translate(%q): no refusal", c.text)
			}
			r := refusals[0]
			if r.Line != c.line || r.Directive != c.directive || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("Translate(%q) first refusal = %+v (%s), want line %d directive %q reason containing %q", c.text, r, r, c.line, c.directive, c.reason)
			}
		})
	}
}

// Lua is refused directive by directive, its block skipped as nginx's Lua
// module reads it.
func TestTranslateLua(t *testing.T) {
	_, refusals := Translate(ConfigurationSnippet, "lua_need_request_body on;\naccess_by_lua_block {\n  if ngx.var.x then ngx.exit(403) end\n}\nadd_header X y;")
	var got []string
	for _, r := range refusals {
		got = append(got, r.String())
	}
	want := []string{`line 1: directive "lua_need_request_body": not translated: configures Lua code inside nginx`, `line 2: directive "access_by_lua_block": runs Lua code inside nginx`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refusals %q, want %q", got, want)
	}
}

// A snippet with several refusals reports each, with the snippet's total.
func TestTranslateAllRefusals(t *testing.T) {
	text := "add_header X y;\nset $a 1;\nif ($a) {\n  return 404;\n}\ninclude x;\n"
	got, refusals := Translate(ServerSnippet, text)
	if got != nil {
		t.Fatal("applied")
	}
	var names []string
	for _, r := range refusals {
		names = append(names, r.Directive)
		if r.Directives != 5 {
			t.Errorf("%v: Directives = %d, want 5", r, r.Directives)
		}
	}
	if want := []string{"set", "if", "include"}; !reflect.DeepEqual(names, want) {
		t.Errorf("refused %v, want %v", names, want)
	}
}

func TestDirectivesDocs(t *testing.T) {
	docs := Directives()
	for i, d := range docs {
		if d.Name == "" || d.Grammar == "" || d.Becomes == "" || d.Description == "" || d.Example == "" || len(d.Where) == 0 {
			t.Errorf("incomplete doc %+v", d)
		}
		if i > 0 && docs[i-1].Name >= d.Name {
			t.Errorf("not sorted at %s", d.Name)
		}
		// Every example translates (a location only in a server-snippet).
		ann := ConfigurationSnippet
		if d.Where[0] != "configuration-snippet" {
			ann = ServerSnippet
		}
		s, refusals := Translate(ann, d.Example)
		if len(refusals) > 0 || s == nil || s.Translated[d.Name] != 1 {
			t.Errorf("example of %s: %v %v", d.Name, s, refusals)
		}
		if lookup(d.Name) == nil || refusedReason(d.Name) == "" {
			t.Errorf("%s: lookup", d.Name)
		}
	}
	docs[0].Name = "changed"
	if Directives()[0].Name == "changed" {
		t.Error("Directives shares its table")
	}
	for _, r := range RefusedDirectives() {
		if lookup(strings.Trim(r.Name, "*")) != nil {
			t.Errorf("%s is both allowlisted and refused", r.Name)
		}
	}
}
