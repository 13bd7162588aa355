package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The tests of the snippet writer build a config with render (one
// Ingress default/fuzz, host a.example.com, Prefix /app to svc:80, the
// annotations given) and set hand-built model.Snippet values on it, as
// pkg/snippet and render would.

var snippetIngress = model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "fuzz"}

// snippetConfig renders the base config with the annotations (name:
// value, without the prefix).
func snippetConfig(t *testing.T, ann map[string]string) *model.Config {
	t.Helper()
	snap := fuzzSnapshot("a.example.com", "/app", "use-regex", "false")
	ing := snap.Ingresses[0]
	ing.Annotations = map[string]string{}
	for k, v := range ann {
		ing.Annotations[annotations.Prefix+k] = v
	}
	cfg, problems := render.Build(snap, render.DefaultOptions())
	if len(problems) > 0 {
		t.Fatalf("base config: %v", problems)
	}
	return cfg
}

// appServer is the server of a.example.com in cfg.
func appServer(t *testing.T, cfg *model.Config) *model.Server {
	t.Helper()
	for i := range cfg.Servers {
		if cfg.Servers[i].Hostname == "a.example.com" {
			return &cfg.Servers[i]
		}
	}
	t.Fatal("no server a.example.com")
	return nil
}

// setLocationSnippet sets sn on every location of a.example.com.
func setLocationSnippet(t *testing.T, cfg *model.Config, sn *model.Snippet) {
	s := appServer(t, cfg)
	for i := range s.Locations {
		s.Locations[i].Settings.Snippet = sn
	}
}

// confBlock returns the lines of the block that opens with header (e.g.
// `location "/app/" {`), without indentation; nested blocks included.
func confBlock(t *testing.T, conf []byte, header string) []string {
	t.Helper()
	var out []string
	depth := -1
	for _, l := range strings.Split(string(conf), "\n") {
		l = strings.TrimSpace(l)
		if depth < 0 {
			if l == header {
				depth = 0
			}
			continue
		}
		if l == "}" && depth == 0 {
			return out
		}
		if strings.HasSuffix(l, "{") {
			depth++
		} else if l == "}" {
			depth--
		}
		out = append(out, l)
	}
	t.Fatalf("no block %q in:\n%s", header, conf)
	return nil
}

func writeConf(t *testing.T, cfg *model.Config) []byte {
	t.Helper()
	conf, err := NGINXConf(cfg, DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	return conf
}

func ptr[T any](v T) *T { return &v }

// fullProxyHeaders is the whole proxy_set_header set a location writes
// again (writeProxyHeadersConn), less the names in skip.
func fullProxyHeaders(skip ...string) []string {
	all := []string{
		"proxy_set_header Host $best_http_host;",
		"proxy_set_header X-Request-ID $req_id;",
		"proxy_set_header X-Real-IP $remote_addr;",
		"proxy_set_header X-Forwarded-For $remote_addr;",
		"proxy_set_header X-Forwarded-Host $best_http_host;",
		"proxy_set_header X-Forwarded-Port $pass_port;",
		"proxy_set_header X-Forwarded-Proto $pass_access_scheme;",
		"proxy_set_header X-Forwarded-Scheme $pass_access_scheme;",
		"proxy_set_header X-Scheme $pass_access_scheme;",
		"proxy_set_header X-Original-Forwarded-For $http_x_forwarded_for;",
		"proxy_set_header X-Original-Forwarded-Host $http_x_forwarded_host;",
		`proxy_set_header Proxy "";`,
		"proxy_set_header Upgrade $http_upgrade;",
		"proxy_set_header Connection $connection_upgrade;",
	}
	var out []string
	for _, l := range all {
		name := strings.Fields(l)[1]
		keep := true
		for _, s := range skip {
			if strings.EqualFold(s, name) {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return out
}

func lines(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// TestSnippetLocationLines: each directive kind of a configuration-snippet
// in the body of location "/app/", line for line.
func TestSnippetLocationLines(t *testing.T) {
	head := []string{
		`set $proxy_upstream_name "default-svc-80";`,
		`set $location_path "/app";`,
	}
	tail := []string{"proxy_pass http://upstream_balancer;", "proxy_redirect off;"}
	for _, tc := range []struct {
		name string
		ann  map[string]string
		sn   model.Snippet
		want []string
	}{
		{
			name: "access after the whitelist",
			ann:  map[string]string{"whitelist-source-range": "10.0.0.0/8"},
			sn:   model.Snippet{Access: []model.SnippetAccess{{Source: "192.168.0.1"}, {Deny: true, Source: "2001:db8::/32"}, {Deny: true, Source: "all"}}},
			want: lines([]string{`allow "10.0.0.0/8";`, "deny all;"}, head, []string{
				`allow "192.168.0.1";`, `deny "2001:db8::/32";`, "deny all;",
			}, tail),
		},
		{
			name: "rewrite and return in order",
			sn: model.Snippet{RewritePhase: []model.SnippetRewriteStep{
				{Rewrite: &model.SnippetRewrite{Regex: `^/app/old/(.*)$`, Replacement: "/app/new/$1", Flag: "permanent"}},
				{Rewrite: &model.SnippetRewrite{Regex: `^/app/(\d{2,})"x`, Replacement: "/app/n/$1?q=$arg_q"}},
				{Return: &model.SnippetReturn{Code: 301, Text: "https://x.example/.well-known/webfinger?$args"}},
				{Return: &model.SnippetReturn{Code: 403}},
				{Return: &model.SnippetReturn{Code: 200, Text: `ok "quoted" \ ; } #`}},
			}},
			want: lines(head, []string{
				`rewrite "^/app/old/(.*)$" "/app/new/$1" permanent;`,
				`rewrite "^/app/(\\d{2,})\"x" "/app/n/$1?q=$arg_q";`,
				`return 301 "https://x.example/.well-known/webfinger?$args";`,
				"return 403;",
				`return 200 "ok \"quoted\" \\ ; } #";`,
			}, tail),
		},
		{
			name: "add_header writes HSTS again first",
			sn: model.Snippet{AddHeaders: []model.SnippetAddHeader{
				{Header: model.Header{Name: "X-Frame-Options", Value: "SAMEORIGIN"}},
				{Header: model.Header{Name: "Content-Security-Policy", Value: "default-src 'self'; img-src *"}, Always: true},
				{Header: model.Header{Name: "X-Served-By", Value: "$hostname $request_id", Vars: true}},
			}},
			want: lines(head, []string{
				"add_header Strict-Transport-Security $hsts_header always;",
				`add_header "X-Frame-Options" "SAMEORIGIN";`,
				`add_header "Content-Security-Policy" "default-src 'self'; img-src *" always;`,
				`add_header "X-Served-By" "$hostname $request_id";`,
			}, tail),
		},
		{
			name: "add_header of HSTS replaces ours",
			sn:   model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "strict-transport-security", Value: "max-age=1"}, Always: true}}},
			want: lines(head, []string{`add_header "strict-transport-security" "max-age=1" always;`}, tail),
		},
		{
			name: "more_set_headers and more_clear_headers",
			sn: model.Snippet{
				MoreSetHeaders: []model.SnippetMoreHeaders{
					{Headers: []model.Header{{Name: "X-A", Value: "1", Vars: true}, {Name: "X-B", Value: "$scheme://$host", Vars: true}}},
					{Statuses: []int{404, 500}, Types: []string{"text/html", "text/plain"}, Headers: []model.Header{{Name: "X-C", Value: "c d", Vars: true}}},
				},
				MoreClearHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{{Name: "X-Powered-By"}, {Name: "X-Hidden-*"}}}},
			},
			want: lines(head, []string{
				`more_set_headers "X-A: 1" "X-B: $scheme://$host";`,
				`more_set_headers -s "404 500" -t "text/html text/plain" "X-C: c d";`,
				`more_clear_headers "X-Powered-By" "X-Hidden-*";`,
			}, tail),
		},
		{
			name: "proxy_hide_header writes the http level's again",
			sn:   model.Snippet{HideHeaders: []string{"X-Powered-By", "strict-transport-security", "Server"}},
			want: lines(head, []string{
				`proxy_hide_header "Strict-Transport-Security";`,
				`proxy_hide_header "X-Powered-By";`,
				`proxy_hide_header "Server";`,
			}, tail),
		},
		{
			name: "proxy_set_header joins the whole set and replaces Host",
			sn: model.Snippet{ProxySetHeaders: []model.Header{
				{Name: "l5d-dst-override", Value: "$service_name.$namespace.svc.cluster.local:$service_port", Vars: true},
				{Name: "host", Value: "$host", Vars: true},
				{Name: "Accept-Encoding", Value: "", Vars: true},
			}},
			want: lines(head, fullProxyHeaders("Host"), []string{
				`set $namespace "default";`,
				`set $service_name "svc";`,
				`set $service_port "80";`,
				`proxy_set_header "l5d-dst-override" "$service_name.$namespace.svc.cluster.local:$service_port";`,
				`proxy_set_header "host" "$host";`,
				`proxy_set_header "Accept-Encoding" "";`,
			}, tail),
		},
		{
			name: "proxy_set_header with upstream-vhost: the snippet's Host wins",
			ann:  map[string]string{"upstream-vhost": "vhost.example"},
			sn:   model.Snippet{ProxySetHeaders: []model.Header{{Name: "Host", Value: "snippet.example", Vars: true}}},
			want: lines(head, fullProxyHeaders("Host"), []string{`proxy_set_header "Host" "snippet.example";`}, tail),
		},
		{
			name: "sub_filter",
			sn: model.Snippet{
				SubFilters:     []model.SnippetSubFilter{{Match: "<head>", Replacement: `<head><base href="$scheme://$host/">`}, {Match: "http://", Replacement: "https://"}},
				SubFilterOnce:  ptr(false),
				SubFilterTypes: []string{"text/css", "application/javascript"},
			},
			want: lines(head, []string{
				`sub_filter "<head>" "<head><base href=\"$scheme://$host/\">";`,
				`sub_filter "http://" "https://";`,
				"sub_filter_once off;",
				`sub_filter_types "text/css" "application/javascript";`,
			}, tail),
		},
		{
			name: "flags",
			sn:   model.Snippet{ServerTokens: ptr(false), ProxyInterceptErrors: ptr(true), ChunkedTransferEncoding: ptr(false)},
			want: lines(head, []string{"server_tokens off;", "proxy_intercept_errors on;", "chunked_transfer_encoding off;"}, tail),
		},
		{
			name: "proxy settings replace the annotations' lines",
			ann: map[string]string{"proxy-read-timeout": "30", "proxy-connect-timeout": "7", "proxy-body-size": "2m",
				"proxy-buffer-size": "16k", "proxy-buffering": "on", "client-body-buffer-size": "64k"},
			sn: model.Snippet{Proxy: model.SnippetProxy{ReadTimeout: "90s", SendTimeout: "1m", BodySize: "20m", BufferSize: "32k",
				Buffering: ptr(false), RequestBuffering: ptr(false), ClientBodyBufSize: "128k"}},
			want: lines(head, []string{
				"proxy_connect_timeout 7s;",
				`proxy_send_timeout "1m";`,
				`proxy_read_timeout "90s";`,
				`client_max_body_size "20m";`,
				`proxy_buffer_size "32k";`,
				`proxy_buffers 4 "32k";`,
				`proxy_busy_buffers_size "64k";`,
				`proxy_max_temp_file_size "1024m";`,
				"proxy_buffering off;",
				"proxy_request_buffering off;",
				`client_body_buffer_size "128k";`,
			}, tail),
		},
		{
			name: "proxy_buffer_size with 2 buffers and a small temporary file size",
			ann:  map[string]string{"proxy-buffers-number": "2", "proxy-buffer-size": "4k", "proxy-max-temp-file-size": "4k", "proxy-busy-buffers-size": "4k"},
			sn:   model.Snippet{Proxy: model.SnippetProxy{BufferSize: "1m"}},
			want: lines(head, []string{
				`proxy_buffer_size "1m";`,
				`proxy_buffers 2 "1m";`,
				`proxy_busy_buffers_size "1m";`,
				`proxy_max_temp_file_size "1m";`,
			}, tail),
		},
		{
			name: "before the rewrite of rewrite-target",
			ann:  map[string]string{"rewrite-target": "/$1", "use-regex": "true"},
			sn:   model.Snippet{AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-A", Value: "a"}}}},
			want: nil, // checked below
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := snippetConfig(t, tc.ann)
			sn := tc.sn
			sn.Annotation, sn.Ingress = "configuration-snippet", snippetIngress
			setLocationSnippet(t, cfg, &sn)
			conf := writeConf(t, cfg)
			if tc.want == nil {
				body := strings.Join(confBlock(t, conf, `location ~* "^/app" {`), "\n")
				if i, j := strings.Index(body, `add_header "X-A" "a";`), strings.Index(body, "rewrite "); i < 0 || j < i {
					t.Errorf("the snippet is not before the rewrite of rewrite-target:\n%s", body)
				}
				return
			}
			got := confBlock(t, conf, `location "/app/" {`)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("location body:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if exact := confBlock(t, conf, `location = "/app" {`); strings.Join(exact, "\n") != strings.Join(got, "\n") {
				t.Errorf("the exact location differs from the prefix one:\n%s", strings.Join(exact, "\n"))
			}
		})
	}
}

// TestSnippetServerLines: a server-snippet's directives at the end of the
// server block, its locations after the Ingress locations (each body
// written as a location's), the fallback "/" left out for a snippet "/".
func TestSnippetServerLines(t *testing.T) {
	cfg := snippetConfig(t, nil)
	s := appServer(t, cfg)
	s.Snippet = &model.Snippet{
		Annotation: "server-snippet", Ingress: snippetIngress,
		Access:       []model.SnippetAccess{{Deny: true, Source: "203.0.113.0/24"}},
		RewritePhase: []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: "^/old$", Replacement: "/app/", Flag: "redirect"}}},
		AddHeaders:   []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}, Always: true}},
		HideHeaders:  []string{"X-Powered-By"},
		ProxySetHeaders: []model.Header{
			{Name: "X-Forwarded-Proto", Value: "https", Vars: true},
			{Name: "X-Tenant", Value: "t1", Vars: true},
		},
		ServerTokens: ptr(false),
		Proxy:        model.SnippetProxy{ReadTimeout: "120s"},
		Locations: []model.SnippetLocation{
			{Modifier: "~", Path: "^/(ping|ready|prometheus)", Body: model.Snippet{
				Access: []model.SnippetAccess{{Deny: true, Source: "all"}}, RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 404}}},
			}},
			{Modifier: "=", Path: "/.well-known/webfinger", Body: model.Snippet{
				RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 301, Text: "https://x.example/.well-known/webfinger$is_args$args"}}},
			}},
			{Modifier: "^~", Path: "/static/", Body: model.Snippet{
				AddHeaders:   []model.SnippetAddHeader{{Header: model.Header{Name: "Cache-Control", Value: "max-age=60"}}},
				HideHeaders:  []string{"Set-Cookie"},
				RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 200, Text: "static"}}},
			}},
			{Modifier: "~*", Path: `\.(bak|old)$`, Body: model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 403}}}}},
			{Path: "/", Body: model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 302, Text: "/app/"}}}}},
		},
	}
	conf := writeConf(t, cfg)
	got := serverBlock(t, conf, "a.example.com")
	ingressLocation := lines([]string{
		`set $proxy_upstream_name "default-svc-80";`,
		`set $location_path "/app";`,
	}, fullProxyHeaders("X-Forwarded-Proto"), []string{
		`proxy_set_header "X-Forwarded-Proto" "https";`,
		`proxy_set_header "X-Tenant" "t1";`,
		"proxy_pass http://upstream_balancer;",
		"proxy_redirect off;",
		"}",
	})
	want := lines([]string{
		"server {",
		`server_name "a.example.com";`,
		`listen "80";`,
		`listen "443" ssl http2;`,
		`set $proxy_upstream_name "-";`,
		"rewrite_by_lua_block {",
		"balancer.rewrite()",
		"}",
		`location "/app/" {`,
	}, ingressLocation, []string{`location = "/app" {`}, ingressLocation, []string{
		`location ~ "^/(ping|ready|prometheus)" {`,
		"rewrite_by_lua_block {",
		"}",
		"deny all;",
		"return 404;",
		"}",
		`location = "/.well-known/webfinger" {`,
		"rewrite_by_lua_block {",
		"}",
		`return 301 "https://x.example/.well-known/webfinger$is_args$args";`,
		"}",
		`location ^~ "/static/" {`,
		"rewrite_by_lua_block {",
		"}",
		`return 200 "static";`,
		"add_header Strict-Transport-Security $hsts_header always;",
		`add_header "X-Frame-Options" "DENY" always;`,
		`add_header "Cache-Control" "max-age=60";`,
		`proxy_hide_header "Strict-Transport-Security";`,
		`proxy_hide_header "X-Powered-By";`,
		`proxy_hide_header "Set-Cookie";`,
		"}",
		`location ~* "\\.(bak|old)$" {`,
		"rewrite_by_lua_block {",
		"}",
		"return 403;",
		"}",
		`location "/" {`,
		"rewrite_by_lua_block {",
		"}",
		`return 302 "/app/";`,
		"}",
		`deny "203.0.113.0/24";`,
		`rewrite "^/old$" "/app/" redirect;`,
		"add_header Strict-Transport-Security $hsts_header always;",
		`add_header "X-Frame-Options" "DENY" always;`,
		`proxy_hide_header "Strict-Transport-Security";`,
		`proxy_hide_header "X-Powered-By";`,
	}, fullProxyHeaders("X-Forwarded-Proto"), []string{
		`proxy_set_header "X-Forwarded-Proto" "https";`,
		`proxy_set_header "X-Tenant" "t1";`,
		"server_tokens off;",
		`proxy_read_timeout "120s";`,
		"}",
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("server block:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// serverBlock returns the lines of the server block of host, without
// indentation.
func serverBlock(t *testing.T, conf []byte, host string) []string {
	t.Helper()
	text := string(conf)
	i := strings.Index(text, "## start server "+host+"\n")
	j := strings.Index(text, "## end server "+host+"\n")
	if i < 0 || j < i {
		t.Fatalf("no server %s", host)
	}
	var out []string
	for _, l := range strings.Split(text[i:j], "\n")[1:] {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestSnippetInherited: a location that sets add_header or
// proxy_hide_header itself writes again what it would inherit: the
// server-snippet's headers (also beside external authentication's own
// add_header lines), the ConfigMap's hide-headers and HSTS's.
func TestSnippetInherited(t *testing.T) {
	cfg := snippetConfig(t, map[string]string{"auth-url": "http://auth.example/check"})
	cfg.Global.Block.HideHeaders = []string{"X-Cm-Hidden"}
	s := appServer(t, cfg)
	s.Snippet = &model.Snippet{Annotation: "server-snippet", Ingress: snippetIngress,
		AddHeaders:  []model.SnippetAddHeader{{Header: model.Header{Name: "X-Frame-Options", Value: "DENY"}, Always: true}, {Header: model.Header{Name: "X-Both", Value: "server"}}},
		HideHeaders: []string{"X-Server-Hidden"},
	}
	setLocationSnippet(t, cfg, &model.Snippet{Annotation: "configuration-snippet", Ingress: snippetIngress,
		AddHeaders:  []model.SnippetAddHeader{{Header: model.Header{Name: "x-both", Value: "location"}}},
		HideHeaders: []string{"X-Location-Hidden", "x-cm-hidden"},
	})
	body := strings.Join(confBlock(t, writeConf(t, cfg), `location "/app/" {`), "\n")
	for _, want := range []string{
		// external authentication's own, HSTS included
		"add_header Set-Cookie $auth_cookie;\nadd_header Strict-Transport-Security $hsts_header always;",
		// the server's, less the one the location sets, then the location's
		`add_header "X-Frame-Options" "DENY" always;` + "\n" + `add_header "x-both" "location";`,
		`proxy_hide_header "Strict-Transport-Security";` + "\n" + `proxy_hide_header "X-Cm-Hidden";` + "\n" +
			`proxy_hide_header "X-Server-Hidden";` + "\n" + `proxy_hide_header "X-Location-Hidden";`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("location body lacks\n%s\nin:\n%s", want, body)
		}
	}
	if strings.Count(body, "Strict-Transport-Security $hsts_header") != 1 || strings.Contains(body, `"X-Both" "server"`) {
		t.Errorf("a header twice:\n%s", body)
	}
}
