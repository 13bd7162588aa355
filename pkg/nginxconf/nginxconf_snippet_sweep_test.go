package nginxconf

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// snippetSweepAnnotations are the annotation sets of the sweep's hosts:
// each writes lines that a snippet meets in its location (access lists,
// the whole proxy_set_header set, error pages, the proxy settings a
// snippet overrides, a redirect, rewrite-target, gRPC, auth).
var snippetSweepAnnotations = []map[string]string{
	{},
	{"whitelist-source-range": "10.0.0.0/8,2001:db8::/32", "denylist-source-range": "10.1.0.0/16"},
	{"upstream-vhost": "vhost.example", "x-forwarded-prefix": "/p"},
	{"custom-http-errors": "404,503"},
	{"proxy-read-timeout": "30", "proxy-send-timeout": "31", "proxy-connect-timeout": "5", "proxy-body-size": "3m",
		"proxy-buffer-size": "16k", "proxy-buffering": "on", "proxy-request-buffering": "off", "client-body-buffer-size": "32k"},
	{"permanent-redirect": "https://moved.example/x"},
	{"rewrite-target": "/$2", "use-regex": "true"},
	{"backend-protocol": "GRPC"},
	{"auth-url": "http://auth.example/check", "auth-response-headers": "X-User", "auth-signin": "https://login.example/start"},
	{"enable-cors": "true", "limit-rps": "5"},
	{"proxy-buffers-number": "2", "proxy-buffer-size": "4k", "proxy-busy-buffers-size": "4k", "proxy-max-temp-file-size": "4k"},
	{"proxy-busy-buffers-size": "8k", "proxy-max-temp-file-size": "8k"},
}

// snippetSweepValue holds what a value may: allowlisted variables, quotes,
// backslashes, braces, semicolons and "#".
const snippetSweepValue = `a "quoted" \back\slash ; { } # 'single' $host ${remote_addr}x $request_uri $namespace-$service_name:$service_port`

// sweepLocationSnippet is a configuration-snippet with every directive kind.
func sweepLocationSnippet(ing model.ObjectRef) *model.Snippet {
	v := snippetSweepValue
	return &model.Snippet{
		Annotation: "configuration-snippet", Ingress: ing,
		Access: []model.SnippetAccess{{Source: "192.168.1.1"}, {Source: "172.16.0.0/12"}, {Deny: true, Source: "2001:db8:1::/48"}, {Source: "all"}},
		RewritePhase: []model.SnippetRewriteStep{
			{Rewrite: &model.SnippetRewrite{Regex: `^/old/(?<rest>.*)$`, Replacement: "/new/$1?x=$arg_x", Flag: "last"}},
			{Rewrite: &model.SnippetRewrite{Regex: `^/(\d{2,4})/"q"\s{1}`, Replacement: "/n/$1", Flag: "break"}},
			{Rewrite: &model.SnippetRewrite{Regex: `(?i)^/perm$`, Replacement: "https://x.example$request_uri", Flag: "permanent"}},
			{Rewrite: &model.SnippetRewrite{Regex: `^/tmp;{}#`, Replacement: "/t", Flag: "redirect"}},
			{Rewrite: &model.SnippetRewrite{Regex: `^/plain$`, Replacement: "/p"}},
		},
		AddHeaders: []model.SnippetAddHeader{
			{Header: model.Header{Name: "X-Frame-Options", Value: "SAMEORIGIN"}},
			{Header: model.Header{Name: "Content-Security-Policy", Value: v, Vars: true}, Always: true},
			{Header: model.Header{Name: "X-Literal", Value: "cost $5 and $host"}},
		},
		MoreSetHeaders: []model.SnippetMoreHeaders{
			{Headers: []model.Header{{Name: "X-More", Value: v, Vars: true}}},
			{Statuses: []int{200, 404}, Types: []string{"text/html", "application/json"}, Headers: []model.Header{{Name: "X-S", Value: "s", Vars: true}, {Name: "X-T", Value: "$scheme", Vars: true}}},
		},
		MoreClearHeaders: []model.SnippetMoreHeaders{{Headers: []model.Header{{Name: "X-Powered-By"}, {Name: "X-Internal-*"}}}, {Statuses: []int{500}, Headers: []model.Header{{Name: "Server"}}}},
		HideHeaders:      []string{"X-Backend", "Server", "Strict-Transport-Security"},
		ProxySetHeaders: []model.Header{
			{Name: "l5d-dst-override", Value: "$service_name.$namespace.svc.cluster.local:$service_port", Vars: true},
			{Name: "X-Forwarded-Proto", Value: "https", Vars: true},
			{Name: "X-Value", Value: v, Vars: true},
			{Name: "Accept-Encoding", Value: "", Vars: true},
		},
		SubFilters:              []model.SnippetSubFilter{{Match: "<head>", Replacement: `<head><base href="$scheme://$host/">`}, {Match: v, Replacement: "r"}},
		SubFilterOnce:           ptr(false),
		SubFilterTypes:          []string{"text/css", "application/javascript"},
		ServerTokens:            ptr(false),
		ProxyInterceptErrors:    ptr(false),
		ChunkedTransferEncoding: ptr(true),
		Proxy: model.SnippetProxy{ConnectTimeout: "3s", SendTimeout: "1m", ReadTimeout: "1500ms", BodySize: "20m", BufferSize: "32k",
			Buffering: ptr(false), RequestBuffering: ptr(true), ClientBodyBufSize: "1m"},
	}
}

// sweepServerSnippet is a server-snippet with every directive kind and a
// nested location of each modifier.
func sweepServerSnippet(ing model.ObjectRef, root bool) *model.Snippet {
	body := *sweepLocationSnippet(ing)
	body.RewritePhase = append(body.RewritePhase, model.SnippetRewriteStep{Return: &model.SnippetReturn{Code: 200, Text: snippetSweepValue}})
	sn := sweepLocationSnippet(ing)
	sn.Annotation = "server-snippet"
	sn.RewritePhase = append(sn.RewritePhase,
		model.SnippetRewriteStep{Return: &model.SnippetReturn{Code: 404}})
	sn.Locations = []model.SnippetLocation{
		{Modifier: "~", Path: "^/(ping|ready|prometheus)", Body: model.Snippet{Access: []model.SnippetAccess{{Deny: true, Source: "all"}},
			RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 404}}}}},
		{Modifier: "=", Path: "/.well-known/webfinger", Body: model.Snippet{
			RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 301, Text: "https://x.example/.well-known/webfinger?$args"}}}}},
		{Modifier: "^~", Path: "/static/", Body: body},
		{Modifier: "~*", Path: `\.(bak|old|"q")$`, Body: model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 403}}}}},
		{Path: "/prefix {x}", Body: model.Snippet{RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 302, Text: "/app/"}}}}},
	}
	if root {
		sn.Locations = append(sn.Locations, model.SnippetLocation{Path: "/", Body: model.Snippet{
			RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 308, Text: "https://$host/app/"}}}}})
	}
	return sn
}

// snippetSweepConfig renders one host per annotation set (host h<i>.sweep.test,
// Ingress default/s<i>, path /app), with the sweep's snippets on every
// location and server (a nested "/" on the even ones).
func snippetSweepConfig(t *testing.T) *model.Config {
	t.Helper()
	var snap render.Snapshot
	for i, ann := range snippetSweepAnnotations {
		path := "/app"
		if ann["use-regex"] == "true" {
			path = "/app(/|$)(.*)"
		}
		one := fuzzSnapshot("h"+strconv.Itoa(i)+".sweep.test", path, "use-regex", "false")
		ing := one.Ingresses[0]
		ing.Name = "s" + strconv.Itoa(i)
		ing.Annotations = map[string]string{}
		for k, v := range ann {
			ing.Annotations[annotations.Prefix+k] = v
		}
		snap.Ingresses = append(snap.Ingresses, ing)
		snap.Services = one.Services
	}
	cfg, problems := render.Build(snap, render.DefaultOptions())
	if len(problems) > 0 {
		t.Fatalf("base config: %v", problems)
	}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if !strings.HasSuffix(s.Hostname, ".sweep.test") {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s.Hostname, "h"), ".sweep.test"))
		ing := model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "s" + strconv.Itoa(n)}
		s.Snippet = sweepServerSnippet(ing, n%2 == 0)
		for j := range s.Locations {
			s.Locations[j].Settings.Snippet = sweepLocationSnippet(ing)
		}
	}
	return cfg
}

// TestSnippetNGINXAccepts runs nginx -t on every directive kind of a
// snippet, at location and server level and in nested locations of every
// modifier, beside the annotations that write lines of their own.
func TestSnippetNGINXAccepts(t *testing.T) {
	nginxtest.Require(t)
	cfg := snippetSweepConfig(t)
	var trace []confEvent
	conf, err := writeNGINXConf(&confWriter{trace: &trace}, cfg, DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	requireTraceRead(t, conf, trace)
	nginxAccepts(t, conf)
	// The same with a server-snippet alone (its headers join the
	// locations' sets) and with location snippets alone.
	for _, keep := range []string{"server", "location"} {
		cfg := snippetSweepConfig(t)
		for i := range cfg.Servers {
			s := &cfg.Servers[i]
			if keep == "location" {
				s.Snippet = nil
			}
			for j := range s.Locations {
				if keep == "server" {
					s.Locations[j].Settings.Snippet = nil
				}
			}
		}
		t.Run(keep, func(t *testing.T) { nginxAccepts(t, writeConf(t, cfg)) })
	}
}

// TestSnippetNoDuplicateDirective: no block holds a directive twice that
// nginx refuses twice, and no header is set twice in one block.
func TestSnippetNoDuplicateDirective(t *testing.T) {
	cfg := snippetSweepConfig(t)
	var trace []confEvent
	if _, err := writeNGINXConf(&confWriter{trace: &trace}, cfg, DefaultConfOptions()); err != nil {
		t.Fatal(err)
	}
	checkNoDuplicateDirective(t, trace)
}

// checkNoDuplicateDirective fails t when a block of the writer's trace
// holds twice a directive that nginx refuses twice, or sets a header
// twice.
func checkNoDuplicateDirective(t *testing.T, trace []confEvent) {
	t.Helper()
	once := map[string]bool{"proxy_connect_timeout": true, "proxy_send_timeout": true, "proxy_read_timeout": true,
		"client_max_body_size": true, "proxy_buffer_size": true, "proxy_buffers": true, "proxy_buffering": true,
		"proxy_request_buffering": true, "client_body_buffer_size": true, "proxy_intercept_errors": true,
		"server_tokens": true, "chunked_transfer_encoding": true, "sub_filter_once": true, "sub_filter_types": true}
	type block struct{ seen map[string]bool }
	stack := []block{{seen: map[string]bool{}}}
	for _, e := range trace {
		switch {
		case e.end:
			stack = stack[:len(stack)-1]
		case e.block:
			stack = append(stack, block{seen: map[string]bool{}})
		default:
			key := e.tokens[0]
			switch key {
			case "proxy_set_header", "add_header", "proxy_hide_header":
				key += " " + strings.ToLower(unquoteToken(e.tokens[1]))
			default:
				if !once[key] {
					continue
				}
			}
			top := stack[len(stack)-1]
			if top.seen[key] {
				t.Errorf("%s twice in one block", key)
			}
			top.seen[key] = true
		}
	}
}

// requireTraceRead fails t unless nginx reads conf as the directives the
// writer meant (its trace).
func requireTraceRead(t *testing.T, conf []byte, trace []confEvent) {
	t.Helper()
	got, err := tokenizeConf(string(conf))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, trace) {
		t.Fatalf("nginx would see other directives than the writer meant\n%s", firstEventDiff(trace, got))
	}
}

// TestSnippetShapeNGINXAccepts: the sweep's location snippets, less what
// keeps a host classic (model.Snippet.ShapeBlocker), in the Lua router's
// shape locations beside every annotation set of the sweep: nginx reads
// the directives the writer meant, no block holds one twice, and nginx -t
// accepts the file.
func TestSnippetShapeNGINXAccepts(t *testing.T) {
	cfg := snippetSweepConfig(t)
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		s.Snippet = nil
		for j := range s.Locations {
			if sn := s.Locations[j].Settings.Snippet; sn != nil {
				sn.RewritePhase = nil
				sn.Proxy = model.SnippetProxy{Buffering: sn.Proxy.Buffering, ClientBodyBufSize: sn.Proxy.ClientBodyBufSize}
			}
		}
	}
	var trace []confEvent
	conf, err := writeNGINXConfLua(&confWriter{trace: &trace}, cfg, DefaultConfOptions(), LuaRouting{}, LuaSplitOf(cfg))
	if err != nil {
		t.Fatal(err)
	}
	lua, classic := LuaHosts(cfg)
	shapes := strings.Count(string(conf), `add_header "Content-Security-Policy"`)
	t.Logf("%d hosts Lua-routed, %d classic, %d shape locations with the snippet", len(lua), len(classic), shapes)
	if len(lua) <= len(classic) || shapes < 2 {
		t.Errorf("%d hosts Lua-routed, %d classic (%v), %d snippet shapes: the sweep must reach the shape locations", len(lua), len(classic), classic, shapes)
	}
	requireTraceRead(t, conf, trace)
	checkNoDuplicateDirective(t, trace)
	nginxtest.Require(t)
	nginxAccepts(t, conf)
}

// TestSnippetValuesAreData: values holding nginx's syntax go through as
// data (the tokenizer gives back exactly the value); a control character
// is refused by the writer.
func TestSnippetValuesAreData(t *testing.T) {
	for _, v := range []string{`"; } server { listen 1; #`, `\";return 200 x;#`, `$ $$ ${ \$host`, `}}}{{{`, "tab\tinside", "nl\ninside", "cr\rinside", "nul\x00", "del\x7f"} {
		cfg := snippetConfig(t, nil)
		s := appServer(t, cfg)
		sn := &model.Snippet{
			Annotation: "configuration-snippet", Ingress: snippetIngress,
			RewritePhase:    []model.SnippetRewriteStep{{Rewrite: &model.SnippetRewrite{Regex: v, Replacement: v}}, {Return: &model.SnippetReturn{Code: 200, Text: v}}},
			AddHeaders:      []model.SnippetAddHeader{{Header: model.Header{Name: "X-A", Value: v, Vars: true}}},
			MoreSetHeaders:  []model.SnippetMoreHeaders{{Types: []string{v}, Headers: []model.Header{{Name: "X-M", Value: v, Vars: true}}}},
			HideHeaders:     []string{v},
			ProxySetHeaders: []model.Header{{Name: "X-P", Value: v, Vars: true}},
			SubFilters:      []model.SnippetSubFilter{{Match: v, Replacement: v}},
			SubFilterTypes:  []string{v},
			Proxy:           model.SnippetProxy{ReadTimeout: v, BodySize: v},
		}
		for i := range s.Locations {
			s.Locations[i].Settings.Snippet = sn
		}
		server := *sn
		server.Locations = []model.SnippetLocation{{Modifier: "~", Path: v, Body: *sn}, {Path: v + "/", Body: *sn}}
		s.Snippet = &server
		var trace []confEvent
		conf, err := writeNGINXConf(&confWriter{trace: &trace}, cfg, DefaultConfOptions())
		control := strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
		if control {
			if err == nil {
				t.Errorf("%q: the writer wrote a control character", v)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		got, err := tokenizeConf(string(conf))
		if err != nil {
			t.Fatalf("%q: nginx would not parse the config: %v", v, err)
		}
		if !reflect.DeepEqual(got, trace) {
			t.Fatalf("%q: nginx would see other directives than the writer meant\n%s", v, firstEventDiff(trace, got))
		}
		// every value arrives whole: count the tokens that are exactly v
		n := 0
		for _, e := range got {
			for _, tok := range e.tokens {
				if strings.HasPrefix(tok, `"`) && unquoteToken(tok) == v {
					n++
				}
			}
		}
		if n < 10 {
			t.Errorf("%q arrived whole in %d tokens only", v, n)
		}
	}
}

// TestSnippetOwners: nginx -t's error on a line of a snippet names the
// snippet's Ingress, in a location, at server level and in a nested
// location.
func TestSnippetOwners(t *testing.T) {
	other := model.ObjectRef{Kind: "Ingress", Namespace: "tenant", Name: "snippets"}
	for _, where := range []string{"location", "server", "nested"} {
		t.Run(where, func(t *testing.T) {
			cfg := snippetConfig(t, nil)
			s := appServer(t, cfg)
			// a size nginx refuses: the failing line is the snippet's
			bad := &model.Snippet{Annotation: "configuration-snippet", Ingress: other, Proxy: model.SnippetProxy{BodySize: "12q"},
				AddHeaders: []model.SnippetAddHeader{{Header: model.Header{Name: "X-A", Value: "a"}}}}
			switch where {
			case "location":
				for i := range s.Locations {
					s.Locations[i].Settings.Snippet = bad
				}
			case "server":
				bad.Annotation = "server-snippet"
				s.Snippet = bad
			case "nested":
				s.Snippet = &model.Snippet{Annotation: "server-snippet", Ingress: other,
					Locations: []model.SnippetLocation{{Modifier: "=", Path: "/bad", Body: *bad}}}
			}
			conf, owners, err := NGINXConfWithOwners(cfg, DefaultConfOptions())
			if err != nil {
				t.Fatal(err)
			}
			line := 0
			for i, l := range strings.Split(string(conf), "\n") {
				if strings.Contains(l, `client_max_body_size "12q"`) {
					line = i + 1
					break
				}
			}
			if line == 0 {
				t.Fatal("the bad line is not written")
			}
			b, ok := owners.At(line)
			if !ok || len(b.Ingresses) != 1 || b.Ingresses[0] != other || b.Host != "a.example.com" {
				t.Errorf("line %d owned by %+v (%v), want %v on a.example.com", line, b, ok, other)
			}
			if nginxtest.Require(t); true {
				in := nginxtest.Tester(t)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var te *nginx.TestError
				if err := in.Test(ctx, conf); !errors.As(err, &te) || te.Line != line {
					t.Errorf("nginx -t: %v, want an error on line %d", err, line)
				}
			}
		})
	}
}

// The snippet values of the annotation sweep (nginxsweep_test.go): what
// the corpus's snippets hold, and every allowlisted directive.
var (
	sweepConfigurationSnippets = []string{
		`more_set_headers "X-Frame-Options: DENY";
proxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;`,
		`add_header X-Frame-Options SAMEORIGIN always;
add_header Content-Security-Policy "default-src 'self'; script-src 'self' 'unsafe-inline'" always;
add_header X-Served-By $hostname;
more_set_headers -s "404 500" -t "text/html" "X-Err: yes";
more_clear_headers X-Powered-By;
proxy_hide_header X-Powered-By;
proxy_hide_header Server;
proxy_set_header X-Forwarded-Proto https;
proxy_set_header Accept-Encoding "";
sub_filter '<head>' '<head><meta name="x" content="$host">';
sub_filter_once off;
sub_filter_types text/css application/javascript;
rewrite ^/old/(.*)$ /new/$1 permanent;
rewrite "^/a\"b(\d{2})$" /c/$1 break;
allow 10.0.0.0/8;
deny all;
proxy_intercept_errors on;
proxy_read_timeout 120s;
proxy_send_timeout 2m;
proxy_connect_timeout 15s;
client_max_body_size 50m;
proxy_buffer_size 64k;
proxy_buffering off;
proxy_request_buffering off;
client_body_buffer_size 1m;
chunked_transfer_encoding off;
server_tokens off;`,
		`return 301 https://x.example$request_uri;`,
	}
	sweepServerSnippets = []string{
		`location ~ ^/(ping|ready|prometheus) { deny all; return 404; }
location = /.well-known/webfinger { return 301 https://x.example/.well-known/webfinger?$args; }`,
		`server_tokens off;
add_header X-Frame-Options DENY always;
proxy_set_header X-Tenant "t-$host";
proxy_hide_header X-Powered-By;
rewrite ^/legacy/(.*)$ /$1 redirect;
location ^~ /static/ { add_header Cache-Control "max-age=60"; return 200 "static"; }
location ~* \.(bak|old)$ { return 403; }
location /health { return 200 "ok"; }
location = /robots.txt { return 200 "User-agent: * Disallow: /"; }`,
	}
)
