package nginxconf

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// luaSnapshot has n hosts the Lua router serves (paths of every type,
// regexes, rewrite-target, redirects, timeouts, source ranges) and one
// classic host (a server-snippet's add_header).
func luaSnapshot(n int) render.Snapshot {
	class := "nginx"
	prefix, exact, impl := networkingv1.PathTypePrefix, networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific
	path := func(p string, t *networkingv1.PathType) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: p, PathType: t, Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}}
	}
	ing := func(name, host string, ann map[string]string, paths ...networkingv1.HTTPIngressPath) *networkingv1.Ingress {
		a := map[string]string{}
		for k, v := range ann {
			a[annotations.Prefix+k] = v
		}
		return &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: a},
			Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{
				Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}},
			}}},
		}
	}
	snap := render.Snapshot{Services: []*corev1.Service{{
		ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "default"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}}}
	snap.Ingresses = append(snap.Ingresses, ing("limited", "limited.example.com", map[string]string{"server-snippet": "add_header X-Limited \"1\";"}, path("/", &prefix)))
	for i := 0; i < n; i++ {
		var ann map[string]string
		switch i % 4 {
		case 0:
			ann = map[string]string{"limit-rps": "5", "limit-rpm": "100", "limit-connections": "3", "limit-allowlist": "10.0.0.0/8",
				"custom-http-errors": "404,503"}
		case 1:
			ann = map[string]string{"rewrite-target": "/$1", "upstream-vhost": "in.example", "proxy-read-timeout": "5",
				"auth-url": "http://auth.example/check", "auth-signin": "https://auth.example/start", "auth-response-headers": "X-User",
				"auth-cache-key": "$remote_user"}
		case 2:
			ann = map[string]string{"permanent-redirect": "https://example.org/", "allowlist-source-range": "10.0.0.0/8", "proxy-body-size": "8m",
				"configuration-snippet": "add_header X-Frame-Options \"DENY\" always;\nproxy_set_header X-Forwarded-Prefix \"/snip\";\n" +
					"more_set_headers \"X-S: $host\";\nproxy_set_header X-Ns $namespace;\nsub_filter 'a' 'b';\nproxy_hide_header X-Powered-By;\n"}
		case 3:
			ann = map[string]string{"app-root": "/app", "x-forwarded-prefix": "/x", "enable-cors": "true", "enable-access-log": "false",
				"proxy-buffering": "on", "proxy-request-buffering": "off", "proxy-buffer-size": "16k", "proxy-next-upstream-tries": "1",
				"client-body-buffer-size": "64k"}
		}
		host := fmt.Sprintf("h%d.example.com", i)
		if i%5 == 4 {
			host = "*." + host
		}
		snap.Ingresses = append(snap.Ingresses, ing(fmt.Sprintf("i%d", i), host, ann,
			path("/", &prefix), path("/exact/", &exact), path("/api", &prefix), path("/v1/(.*)", &impl)))
	}
	return snap
}

// TestNGINXConfLua: the Lua writer's nginx.conf has the classic host's
// server block and nothing of the Lua-routed hosts, so it is the same for
// 10 and 200 of them, and nginx -t accepts it.
func TestNGINXConfLua(t *testing.T) {
	var problems []model.Problem
	confOf := func(n int) ([]byte, *model.Config) {
		cfg, ps := render.Build(luaSnapshot(n), render.DefaultOptions())
		problems = ps
		conf, err := NGINXConfLua(cfg, DefaultConfOptions(), LuaRouting{})
		if err != nil {
			t.Fatal(err)
		}
		return conf, cfg
	}
	small, cfg := confOf(10)
	large, _ := confOf(200)
	if !bytes.Equal(small, large) {
		t.Errorf("nginx.conf depends on the number of Lua-routed hosts: %d bytes for 10, %d for 200", len(small), len(large))
	}
	lua, classic := LuaHosts(cfg)
	if len(lua) != 11 || len(classic) != 1 || classic["limited.example.com"][0].String() != "server-snippet (add_header) on Ingress default/limited" {
		t.Fatalf("lua %v, classic %v", lua, classic)
	}
	conf := string(small)
	for _, want := range []string{`server_name "limited.example.com";`, `client_max_body_size "8m";`, "lua_shared_dict routes_data 8m;", "lua_shared_dict route_limits 16m;", "lua_regex_cache_max_entries 1024;",
		"router.log()", `map "" $kubectl_ingress_conn_key {`,
		// custom-http-errors: one location for the code set, one per code
		`location "` + "@kubectl_ingress_errors_i_404_503" + `" {`, `set $kubectl_ingress_error_shape "@kubectl_ingress_errors_i_404_503";`,
		"proxy_intercept_errors on;", `error_page 404 = "@kubectl_ingress_error_404";`, `error_page 503 = "@kubectl_ingress_error_503";`,
		`location "@kubectl_ingress_error_404" {`, `location "@kubectl_ingress_error_503" {`, "proxy_set_header X-Code 503;",
		// proxy tuning: one location for the set, with its directives,
		// and the streamed body's own limit (the ConfigMap's 1m)
		`location "@kubectl_ingress_shape_`, "proxy_buffering on;", "proxy_request_buffering off;", `proxy_buffers 4 "16k";`,
		"proxy_next_upstream_tries 1;", `client_body_buffer_size "64k";`, `client_max_body_size "1m";`,
		// auth-url: the auth request of the shape, its internal location
		// (answers cached per route), its sign-in, the answer's header
		"auth_request /_kubectl_ingress_auth_", "location = /_kubectl_ingress_auth_", `${kubectl_ingress_auth_scope}$remote_user";`,
		"proxy_cache_path tmp/auth_cache", "location @kubectl_ingress_signin_", `proxy_set_header "X-User" $authHeader0;`,
		`set $kubectl_ingress_auth_target "http://auth.example/check";`,
		`router = require("router")`, "router.init_worker({ cache = 10000, server_name = false, labels = false, keep_route = false, body_limit = ", "router.rewrite()", "router.access()", "router.header_filter()", "absolute_redirect off;",
		// auth-type basic, CORS, custom-headers: the named location the
		// router enters
		`location "@kubectl_ingress_every_phase" {`, `set $kubectl_ingress_error_shape "@kubectl_ingress_every_phase";`} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf has no %q", want)
		}
	}
	// The router's own location evaluates nothing per request that it
	// need not: its variables are maps (read only when used), its
	// proxy_pass has no variable (backend-protocol HTTPS is served by the
	// every-phase location).
	router := conf[strings.Index(conf, "start server _ (Lua routing"):]
	router = router[strings.Index(router, `location "/" {`):]
	router = router[:strings.Index(router, "\n\t\t}\n")]
	for _, line := range strings.Split(router, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "set" && f[1] != "$proxy_upstream_name" && f[1] != "$kubectl_ingress_error_shape" {
			t.Errorf("the router's location sets a variable per request: %s", strings.TrimSpace(line))
		}
	}
	if !strings.Contains(router, "proxy_pass http://upstream_balancer;") || strings.Contains(router, "limit_rate ") {
		t.Errorf("router's location:\n%s", router)
	}
	if !strings.Contains(conf, "proxy_pass $kubectl_ingress_upstream_scheme://upstream_balancer;") {
		t.Error("no location proxies to $kubectl_ingress_upstream_scheme")
	}
	// configuration-snippet: its shape location has the snippet's lines
	// after the router's, less the router's X-Forwarded-Prefix (the
	// snippet's replaces it), with the HSTS header and hidden header
	// written again as a classic location does
	at := strings.Index(conf, `add_header "X-Frame-Options"`)
	if at < 0 {
		t.Fatalf("no snippet in nginx.conf; problems: %.300v", problems)
	}
	snip := conf[at:]
	snip = conf[strings.LastIndex(conf[:len(conf)-len(snip)], "location "):]
	snip = snip[:strings.Index(snip, "proxy_pass")]
	for _, want := range []string{`add_header Strict-Transport-Security $hsts_header always;`, `add_header "X-Frame-Options" "DENY" always;`,
		`proxy_set_header "X-Forwarded-Prefix" "/snip";`, `more_set_headers "X-S: $host";`, `proxy_set_header "X-Ns" "$namespace";`, `sub_filter "a" "b";`,
		`proxy_hide_header "Strict-Transport-Security";`, `proxy_hide_header "X-Powered-By";`, "proxy_set_header X-Real-IP $remote_addr;", "router.rewrite()"} {
		if !strings.Contains(snip, want) {
			t.Errorf("the snippet's shape location has no %q:\n%s", want, snip)
		}
	}
	if !strings.HasPrefix(snip, `location "@kubectl_ingress_shape_`) {
		t.Errorf("the snippet's shape location:\n%s", snip)
	}
	// Only the named locations have an access phase and a header filter:
	// the every-phase one and every shape's.
	own := conf[strings.Index(conf, "start server _ (Lua routing"):]
	own = own[strings.Index(own, `location "/" {`):]
	own = own[:strings.Index(own, "proxy_pass")]
	if strings.Contains(own, "access_by_lua") || strings.Contains(own, "auth_basic") || strings.Contains(own, "header_filter") || !strings.Contains(own, "router.rewrite()") {
		t.Errorf("the router's own location has an access phase or a header filter:\n%s", own)
	}
	// The headers the router sets on some routes only (X-Forwarded-Prefix,
	// the default backend's, ssl-client-*) are set from Lua: a
	// proxy_set_header line with a variable would cost every request.
	for _, h := range []string{"X-Forwarded-Prefix", "X-Code", "X-Format", "X-Original-URI", "ssl-client-verify", "ssl-client-cert"} {
		if strings.Contains(own, "proxy_set_header "+h+" ") {
			t.Errorf("the router's own location has a proxy_set_header %s line:\n%s", h, own)
		}
	}
	named, access, filter := strings.Count(conf, `set $kubectl_ingress_error_shape "@`), strings.Count(conf, "router.access()"), strings.Count(conf, "router.header_filter()")
	if access != named || filter != named || named < 4 {
		t.Errorf("%d named router locations, %d with router.access(), %d with router.header_filter()", named, access, filter)
	}
	if strings.Contains(conf, "h1.example.com") || strings.Contains(conf, "/v1/") || strings.Contains(conf, "limit_req") || strings.Contains(conf, "limit_conn") {
		t.Error("a Lua-routed host reached nginx.conf")
	}
	if n := strings.Count(conf, "default_server"); n != 2 {
		t.Errorf("%d default_server listeners, want the router's 2", n)
	}
	// The classic writer's output has none of the router.
	classicConf, err := NGINXConf(cfg, DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(classicConf, []byte("router")) || bytes.Contains(classicConf, []byte(DictRoutes)) {
		t.Error("the classic nginx.conf names the router")
	}
	nginxtest.Require(t)
	nginxAccepts(t, small)
}

// TestNGINXConfLuaCatchAllClassic: a catch-all the router cannot serve
// gives every host a classic server block (and still declares the router).
func TestNGINXConfLuaCatchAllClassic(t *testing.T) {
	snap := luaSnapshot(2)
	snap.Ingresses[1].Spec.Rules[0].Host = ""
	snap.Ingresses[1].Annotations[annotations.Prefix+"server-snippet"] = "add_header X-Limited \"1\";"
	cfg, _ := render.Build(snap, render.DefaultOptions())
	lua, _ := LuaHosts(cfg)
	if len(lua) != 0 {
		t.Fatalf("lua hosts %v with a classic catch-all", lua)
	}
	conf, err := NGINXConfLua(cfg, DefaultConfOptions(), LuaRouting{RoutesDict: 16 << 20, RouteCache: 5, RegexCache: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`server_name "h1.example.com";`, "lua_shared_dict routes_data 16m;", "lua_regex_cache_max_entries 4096;", "router.init_worker({ cache = 5, server_name = false, labels = false, keep_route = false, body_limit = -1, relative_redirects = \"@kubectl_ingress_shape_"} {
		if !bytes.Contains(conf, []byte(want)) {
			t.Errorf("nginx.conf has no %q", want)
		}
	}
	if bytes.Contains(conf, []byte("router.rewrite()")) {
		t.Error("the router serves with a classic catch-all")
	}
}

// TestNGINXConfLuaRejectHandshake: ssl-reject-handshake keeps the hosts
// Lua-routed; the router's server refuses unknown names in its own
// certificate handler, never with nginx's ssl_reject_handshake (which
// would refuse every Lua-routed host), and a classic default server keeps
// nginx's.
func TestNGINXConfLuaRejectHandshake(t *testing.T) {
	snap := luaSnapshot(2)
	cfg, _ := render.Build(snap, render.DefaultOptions())
	cfg.Global.TLS.RejectHandshake = true
	if lua, _ := LuaHosts(cfg); len(lua) != 3 { // with the catch-all
		t.Fatalf("lua hosts %v, want all", lua)
	}
	conf, err := NGINXConfLua(cfg, DefaultConfOptions(), LuaRouting{RoutesDict: 16 << 20, RouteCache: 5, RegexCache: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(conf, []byte("certificate.call(true, true)")) || bytes.Contains(conf, []byte("ssl_reject_handshake")) {
		t.Errorf("Lua routing: want the router's server to call certificate.call(true, true) and no ssl_reject_handshake:\n%s", conf)
	}
	classic, err := NGINXConf(cfg, DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(classic, []byte("ssl_reject_handshake on;")) || bytes.Contains(classic, []byte("certificate.call(true, true)")) {
		t.Error("classic: want ssl_reject_handshake on in the catch-all server")
	}
}

func TestLuaBodyMax(t *testing.T) {
	for _, tc := range []struct {
		global string
		sizes  []string
		want   string
	}{
		{"1m", []string{"", "512k"}, ""},
		{"1m", []string{"8m", "2m", ""}, "8m"},
		{"1m", []string{"8m", "0", "16m"}, "0"},
		{"0", []string{"8m"}, ""},
		{"1m", []string{"1024k"}, ""},
	} {
		c := &model.Config{Global: model.DefaultGlobal()}
		c.Global.ProxyBodySize = tc.global
		s := model.Server{Hostname: "a"}
		for _, b := range tc.sizes {
			s.Locations = append(s.Locations, model.Location{Path: "/", Settings: &model.LocationSettings{Proxy: model.ProxySettings{BodySize: b}}})
		}
		c.Servers = []model.Server{s, {Hostname: "classic", Locations: []model.Location{{Settings: &model.LocationSettings{Proxy: model.ProxySettings{BodySize: "99m"}}}}}}
		isClassic := []bool{false, true} // the second server keeps a server block
		entries := []*serverSplit{newServerSplit(c, &c.Servers[0]), newServerSplit(c, &c.Servers[1])}
		if _, got := luaLocations(c, entries, isClassic); got != tc.want {
			t.Errorf("global %s, locations %v: %q, want %q", tc.global, tc.sizes, got, tc.want)
		}
	}
}

func TestReplaceVar(t *testing.T) {
	for in, want := range map[string]string{
		"$server_name":                  "$kubectl_ingress_server_name",
		"${server_name}x $server_name;": "${kubectl_ingress_server_name}x $kubectl_ingress_server_name;",
		"$server_name_x $server_names":  "$server_name_x $server_names",
		"$host $server_port":            "$host $server_port",
		"a$":                            "a$",
	} {
		if got := replaceVar(in, "server_name", luaServerNameVar); got != want {
			t.Errorf("replaceVar(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRouterInitWorkerArgs: the router sets $kubectl_ingress_server_name
// when the log format prints $server_name, and the labels for every route
// when the log format reads one of them (else only in the shape
// locations; the request metrics take them from the route, kept in
// ngx.ctx); the router's location checks the ConfigMap's proxy-body-size
// (1m), which the router need not check again.
func TestRouterInitWorkerArgs(t *testing.T) {
	cfg, _ := render.Build(luaSnapshot(2), render.DefaultOptions())
	metrics := DefaultConfOptions()
	metrics.RequestMetricBuckets = map[string][]float64{"request_duration_seconds": {0.1, 1}}
	for _, tc := range []struct {
		format string
		o      ConfOptions
		want   string
	}{
		{model.DefaultLogFormatUpstream, DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = false, labels = false, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		{"$remote_addr $server_name $status", DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = true, labels = false, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		{"$remote_addr ${namespace}/$ingress_name", DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = false, labels = true, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		{"$remote_addr $location_path", DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = false, labels = true, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		{"$remote_addr $service_port $server_name", DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = true, labels = true, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		{"$remote_addr $namespaces", DefaultConfOptions(), "router.init_worker({ cache = 10000, server_name = false, labels = false, keep_route = false, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
		// the request metrics take them from the route (monitor.lua),
		// which every request leaves for the log phase
		{model.DefaultLogFormatUpstream, metrics, "router.init_worker({ cache = 10000, server_name = false, labels = false, keep_route = true, body_limit = 1048576, relative_redirects = \"@kubectl_ingress_shape_"},
	} {
		c := *cfg
		c.Global.Logging.FormatUpstream = tc.format
		conf, err := NGINXConfLua(&c, tc.o, LuaRouting{RoutesDict: 8 << 20, RouteCache: 10000, RegexCache: 1024})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(conf, []byte(tc.want)) {
			t.Errorf("log format %q (metrics %v): nginx.conf has no %q", tc.format, tc.o.RequestMetricBuckets != nil, tc.want)
		}
	}
}
