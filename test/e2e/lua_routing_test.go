package e2e

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// --routing=lua through real nginx: the fixed nginx.conf of
// nginxconf.NGINXConfLua, the backends, servers and per-host routes
// pushed to Lua, and HTTP over loopback to local backends.

// luaNginx is a started nginx that routes in Lua.
type luaNginx struct {
	*liveNginx
	routes []luaapi.HostRoutes // what was pushed last
	// preloadedRoutes opens preload/routes.json (luaStart.preload)
	preloadedRoutes luaapi.OpenBody
}

// hostRoutes is the route entry of host that nginx got at its start; the
// test fails without one.
func (n *luaNginx) hostRoutes(t testing.TB, host string) luaapi.HostRoutes {
	t.Helper()
	for _, h := range n.routes {
		if h.Host == host {
			return h
		}
	}
	t.Fatalf("no route entry for %s in %+v", host, n.routes)
	return luaapi.HostRoutes{}
}

// refusesEntry posts bad, an entry of a host nginx serves, and fails the
// test unless the routes endpoint drops it for field and keeps the host's
// last good entry.
func (n *luaNginx) refusesEntry(t *testing.T, what string, bad luaapi.HostRoutes, field string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: []luaapi.HostRoutes{bad}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || !dropped[0].Kept || !strings.Contains(dropped[0].Reason, field) {
		t.Errorf("%s: dropped %+v, want the entry dropped for %s and the host kept", what, dropped, field)
	}
}

// refusesRawEntry is refusesEntry for an entry given as JSON fields (a
// field of a type HostRoutes cannot hold).
func (n *luaNginx) refusesRawEntry(t *testing.T, what string, entry map[string]json.RawMessage, field string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"hosts": []any{entry}, "delete": []string{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dropped, err := n.lua.PostBody(ctx, luaapi.PathRoutes, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || !dropped[0].Kept || !strings.Contains(dropped[0].Reason, field) {
		t.Errorf("%s: dropped %+v, want the entry dropped for %s and the host kept", what, dropped, field)
	}
}

// uriBackend starts a loopback backend that answers "<name> <request
// URI>" with X-Backend name and, in X-Got-Host and X-Got-Prefix, the Host
// and X-Forwarded-Prefix it got. A request for a path starting with
// /slow waits for the client to go (at most 10 s); one ending in /big
// gets 250 KiB more.
func uriBackend(t testing.TB, name string) int {
	t.Helper()
	return startURIBackend(t, name, httptest.NewServer)
}

// uriTLSBackend is uriBackend over TLS (a self-signed certificate), for
// backend-protocol HTTPS.
func uriTLSBackend(t testing.TB, name string) int {
	t.Helper()
	return startURIBackend(t, name, httptest.NewTLSServer)
}

// startURIBackend starts uriBackend's handler with start.
func startURIBackend(t testing.TB, name string, start func(http.Handler) *httptest.Server) int {
	t.Helper()
	srv := start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/slow") {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.Header().Set("X-Backend", name)
		w.Header().Set("X-Got-Host", r.Host)
		w.Header().Set("X-Got-Prefix", r.Header.Get("X-Forwarded-Prefix"))
		fmt.Fprintf(w, "%s %s", name, r.RequestURI)
		if strings.HasSuffix(r.URL.Path, "/big") {
			_, _ = w.Write(bytes.Repeat([]byte("."), 250<<10))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// luaIngress is an Ingress of namespace e2e for host ("" for none) with
// the annotations given (without their prefix) and the paths given as
// "PathType path service"; tls lists host under spec.tls.
func luaIngress(name, host string, tls bool, annotations map[string]string, paths ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: e2e\n", name)
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n")
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", k, annotations[k])
		}
	}
	b.WriteString("spec:\n  ingressClassName: nginx\n")
	if tls {
		fmt.Fprintf(&b, "  tls: [{hosts: [%q]}]\n", host)
	}
	b.WriteString("  rules:\n  - ")
	if host != "" {
		fmt.Fprintf(&b, "host: %q\n    ", host)
	}
	b.WriteString("http:\n      paths:\n")
	for _, p := range paths {
		f := strings.Fields(p)
		fmt.Fprintf(&b, "      - {pathType: %s, path: %q, backend: {service: {name: %s, port: {number: 80}}}}\n", f[0], f[1], f[2])
	}
	b.WriteString("---\n")
	return b.String()
}

// startLuaNginx renders manifests, starts nginx with the Lua routing
// nginx.conf on loopback (two workers) and pushes backends, servers and
// routes.
func startLuaNginx(t testing.TB, manifests string) *luaNginx {
	t.Helper()
	return startLuaNginxWith(t, manifests, luaStart{})
}

// luaStart are the options of startLuaNginxWith.
type luaStart struct {
	// preload writes the payloads to the preload files before the start
	// instead of posting them after it.
	preload bool
	// requestMetrics turns lua/monitor.lua on with these buckets.
	requestMetrics map[string][]float64
	// routing sizes the router (zero: the defaults).
	routing nginxconf.LuaRouting
}

// startLuaNginxWith is startLuaNginx with options.
func startLuaNginxWith(t testing.TB, manifests string, o luaStart) *luaNginx {
	t.Helper()
	preload := o.preload
	nginxtest.Require(t)
	cfg, problems := buildConfig(t, manifests)
	n := &luaNginx{liveNginx: &liveNginx{httpPort: freePort(t), httpsPort: freePort(t), config: cfg, problems: problems}}
	statusAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort, co.StatusAddress = n.httpPort, n.httpsPort, statusAddr
	co.WorkerProcesses = "2"
	co.RequestMetricBuckets = o.requestMetrics
	n.confOpts = co
	conf, err := nginxconf.NGINXConfLua(cfg, co, o.routing)
	if err != nil {
		t.Fatal(err)
	}
	n.conf = conf
	n.inst = nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: "http://" + statusAddr})
	if err := n.inst.Layout(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.inst.WriteFiles(ctx, controller.ToNginxFiles(cfg.Files)); err != nil {
		t.Fatal(err)
	}
	if preload {
		backends, servers := luaapi.FromModel(cfg)
		bj, err := json.Marshal(backends)
		if err != nil {
			t.Fatal(err)
		}
		sj, err := json.Marshal(servers)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.inst.Preload(ctx, bj, sj); err != nil {
			t.Fatal(err)
		}
		n.routes = cfgRoutes(cfg)
		u := luaapi.RoutesChanges(nil, n.routes)
		write := func(w io.Writer) error { return luaapi.WriteRoutesUpdate(w, u) }
		open, err := n.inst.PreloadRoutes(ctx, write)
		if err != nil {
			t.Fatal(err)
		}
		n.preloadedRoutes = open
	}
	if err := n.inst.Start(ctx, conf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.inst.Stop(ctx)
		checkLuaErrors(t, filepath.Join(n.inst.Prefix(), "logs", "error.log"))
	})
	n.statusURL = "http://" + statusAddr
	n.lua = luaapi.NewClient(n.statusURL, &http.Client{Timeout: 5 * time.Second})
	if !preload {
		n.pushAll(t, ctx, cfgRoutes(cfg))
	}
	return n
}

// cfgRoutes returns the routes of the Lua-routed hosts of the model n
// renders.
func cfgRoutes(c *model.Config) []luaapi.HostRoutes {
	lua, _ := nginxconf.LuaHosts(c)
	return luaapi.RoutesFromModel(c, lua)
}

// pushAll posts the backends and servers of n.config and the routes that
// changed since the last push; a dropped entry fails the test.
func (n *luaNginx) pushAll(t testing.TB, ctx context.Context, routes []luaapi.HostRoutes) {
	t.Helper()
	backends, servers := luaapi.FromModel(n.config)
	if err := n.lua.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	if err := n.lua.PostServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesChanges(n.routes, routes))
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) > 0 {
		t.Fatalf("nginx dropped route entries: %v", dropped)
	}
	n.routes = routes
}

// update renders manifests and pushes them without a reload: the new
// nginx.conf must be byte for byte the running one.
func (n *luaNginx) update(t *testing.T, manifests string) {
	t.Helper()
	cfg, _ := buildConfig(t, manifests)
	conf, err := nginxconf.NGINXConfLua(cfg, n.confOpts, nginxconf.LuaRouting{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(conf, n.conf) {
		t.Fatalf("the change needs a reload: nginx.conf differs from the running one")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n.config = cfg
	n.pushAll(t, ctx, cfgRoutes(cfg))
}

// luaReq is one request and what must answer it: status, and the body
// ("<backend> <URI>") or the Location header when not "".
type luaReq struct {
	host, path string
	status     int
	body       string
	location   string
	headers    []string // name, value pairs the answer must have
}

// check sends r (on a new connection each time, so that both workers
// answer some) and reports a difference.
func (n *luaNginx) check(t *testing.T, r luaReq) {
	t.Helper()
	resp, body := n.call(t, http.MethodGet, r.host, r.path, "")
	where := fmt.Sprintf("GET http://%s%s", r.host, r.path)
	if resp.StatusCode != r.status {
		t.Errorf("%s: status %d, want %d (body %.80q)", where, resp.StatusCode, r.status, body)
		return
	}
	if r.body != "" && string(body) != r.body {
		t.Errorf("%s: body %q, want %q", where, body, r.body)
	}
	loc := strings.ReplaceAll(r.location, "PORT", strconv.Itoa(n.httpPort))
	if got := resp.Header.Get("Location"); r.location != "" && got != loc {
		t.Errorf("%s: Location %q, want %q", where, got, loc)
	}
	for i := 0; i+1 < len(r.headers); i += 2 {
		if got := resp.Header.Get(r.headers[i]); got != r.headers[i+1] {
			t.Errorf("%s: %s %q, want %q", where, r.headers[i], got, r.headers[i+1])
		}
	}
}

// luaRoutingManifests are the Services of the ports and the Ingresses of
// the routing test; v2 is the changed set.
func luaRoutingManifests(ports map[string]int, v2 bool) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(ports)) {
		b.WriteString(serviceYAML(name, ports[name]))
	}
	apiPaths := []string{"Prefix / root", "Prefix /api api", "Exact /exact exact", "ImplementationSpecific /docs/ api"}
	if v2 {
		apiPaths = append(apiPaths, "Prefix /new exact")
	}
	b.WriteString(luaIngress("site", "a.example.com", false, nil, apiPaths...))
	b.WriteString(luaIngress("regex", "r.example.com", false, map[string]string{"use-regex": "true"},
		"ImplementationSpecific /v[0-9]+/items re", "Prefix / root"))
	target := "/$2"
	if v2 {
		target = "/v2/$2"
	}
	b.WriteString(luaIngress("rewrite", "rw.example.com", false, map[string]string{
		"rewrite-target": target, "upstream-vhost": "internal.example", "x-forwarded-prefix": "/app"},
		"ImplementationSpecific /app(/|$)(.*) api"))
	b.WriteString(luaIngress("wild", "*.w.example.com", false, nil, "Prefix / wild"))
	if !v2 {
		b.WriteString(luaIngress("redir", "redir.example.com", false, map[string]string{
			"permanent-redirect": "https://new.example.com/landing"}, "Prefix / root"))
	} else {
		b.WriteString(luaIngress("fresh", "fresh.example.com", false, nil, "Prefix / wild"))
	}
	b.WriteString(luaIngress("secure", "secure.example.com", true, nil, "Prefix / root"))
	b.WriteString(luaIngress("approot", "approot.example.com", false, map[string]string{"app-root": "/home"}, "Prefix / root"))
	b.WriteString(luaIngress("allow", "allow.example.com", false, map[string]string{"allowlist-source-range": "10.0.0.0/8"}, "Prefix / root"))
	b.WriteString(luaIngress("allowme", "allowme.example.com", false, map[string]string{"allowlist-source-range": "10.0.0.0/8, 127.0.0.0/8"}, "Prefix / root"))
	b.WriteString(luaIngress("deny", "deny.example.com", false, map[string]string{"denylist-source-range": "127.0.0.1/32"}, "Prefix / root"))
	b.WriteString(luaIngress("slow", "slow.example.com", false, map[string]string{"proxy-read-timeout": "1"}, "Prefix / root"))
	b.WriteString(luaIngress("cors", "cors.example.com", false, map[string]string{"enable-cors": "true", "server-snippet": `add_header X-Classic "1";`}, "Prefix / api"))
	b.WriteString(luaIngress("catch", "", false, nil, "Prefix /catch catch"))
	return b.String()
}

func TestLuaRouting(t *testing.T) {
	ports := map[string]int{}
	for _, name := range []string{"root", "api", "exact", "re", "wild", "catch"} {
		ports[name] = uriBackend(t, name)
	}
	n := startLuaNginx(t, luaRoutingManifests(ports, false))
	t.Logf("nginx.conf: %d bytes", len(n.conf))
	if !bytes.Contains(n.conf, []byte(`server_name "cors.example.com"`)) || bytes.Contains(n.conf, []byte("a.example.com")) {
		t.Fatalf("the classic host (a server-snippet's add_header) must have a server block and no Lua-routed host any:\n%s", n.conf)
	}
	for _, r := range []luaReq{
		{host: "a.example.com", path: "/", status: 200, body: "root /"},
		{host: "a.example.com", path: "/api", status: 200, body: "api /api"},
		{host: "a.example.com", path: "/api/x?q=1", status: 200, body: "api /api/x?q=1"},
		{host: "a.example.com", path: "/apix", status: 200, body: "root /apix"},
		{host: "a.example.com", path: "/exact", status: 200, body: "exact /exact"},
		{host: "a.example.com", path: "/exact/", status: 200, body: "root /exact/"},
		{host: "A.Example.COM", path: "/api", status: 200, body: "api /api"},
		{host: "a.example.com", path: "/docs/x", status: 200, body: "api /docs/x"},
		{host: "a.example.com", path: "/docs?x=1", status: 301, location: "http://a.example.com/docs/?x=1"},
		{host: "r.example.com", path: "/V12/items/3", status: 200, body: "re /V12/items/3"},
		{host: "r.example.com", path: "/v/items", status: 200, body: "root /v/items"},
		{host: "rw.example.com", path: "/app/x/y?q=1", status: 200, body: "api /x/y?q=1",
			headers: []string{"X-Got-Host", "internal.example", "X-Got-Prefix", "/app"}},
		{host: "rw.example.com", path: "/APP", status: 200, body: "api /"},
		{host: "rw.example.com", path: "/other", status: 404},
		{host: "x.w.example.com", path: "/p", status: 200, body: "wild /p"},
		{host: "y.x.w.example.com", path: "/p", status: 404},
		{host: "w.example.com", path: "/catch/1", status: 200, body: "catch /catch/1"},
		{host: "unknown.example.org", path: "/catch", status: 200, body: "catch /catch"},
		{host: "unknown.example.org", path: "/", status: 404},
		{host: "redir.example.com", path: "/x", status: 301, location: "https://new.example.com/landing"},
		{host: "secure.example.com", path: "/path/?a=1", status: 308, location: "https://secure.example.com/path/?a=1"},
		{host: "secure.example.com", path: "/path/", status: 308, location: "https://secure.example.com/path"},
		{host: "approot.example.com", path: "/", status: 302, location: "/home"},
		{host: "approot.example.com", path: "/home", status: 200, body: "root /home"},
		{host: "allow.example.com", path: "/", status: 403},
		{host: "allowme.example.com", path: "/", status: 200, body: "root /"},
		{host: "deny.example.com", path: "/", status: 403},
		{host: "slow.example.com", path: "/slow", status: 504},
		{host: "cors.example.com", path: "/c", status: 200, body: "api /c"},
	} {
		n.check(t, r)
	}
	if t.Failed() {
		return
	}

	// Changes go to Lua only: nginx.conf stays (update checks it), and the
	// master and workers stay, while a stable host is asked throughout.
	master := n.inst.Pid()
	workers, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var sent, bad atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := newClient(4)
		defer c.CloseIdleConnections()
		for i := 0; i < 20000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+"/api/load", nil)
			req.Host = "a.example.com"
			resp, err := c.Do(req)
			sent.Add(1)
			if err != nil {
				bad.Add(1)
				continue
			}
			if resp.StatusCode != 200 || resp.Header.Get("X-Backend") != "api" {
				bad.Add(1)
			}
			resp.Body.Close()
		}
	}()
	steps := []struct {
		manifests string
		checks    []luaReq
	}{
		{luaRoutingManifests(ports, true), []luaReq{
			{host: "fresh.example.com", path: "/f", status: 200, body: "wild /f"},
			{host: "a.example.com", path: "/new/1", status: 200, body: "exact /new/1"},
			{host: "a.example.com", path: "/new", status: 200, body: "exact /new"},
			{host: "redir.example.com", path: "/x", status: 404},
			{host: "rw.example.com", path: "/app/x", status: 200, body: "api /v2/x"},
		}},
		{luaRoutingManifests(ports, false), []luaReq{
			{host: "fresh.example.com", path: "/f", status: 404},
			{host: "a.example.com", path: "/new/1", status: 200, body: "root /new/1"},
			{host: "redir.example.com", path: "/x", status: 301, location: "https://new.example.com/landing"},
			{host: "rw.example.com", path: "/app/x", status: 200, body: "api /x"},
		}},
	}
	for round := 0; round < 3; round++ {
		for _, st := range steps {
			n.update(t, st.manifests)
			for _, r := range st.checks {
				for i := 0; i < 4; i++ { // new connections: both workers
					n.check(t, r)
				}
			}
			if t.Failed() {
				break
			}
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("steady traffic: %d requests, %d failed", sent.Load(), bad.Load())
	if bad.Load() > 0 || sent.Load() == 0 {
		t.Errorf("steady traffic during the updates: %d of %d requests failed", bad.Load(), sent.Load())
	}
	after, err := n.inst.WorkerPids()
	if n.inst.Pid() != master || err != nil || !slices.Equal(workers, after) {
		t.Errorf("master %d → %d, workers %v → %v (%v): nginx reloaded", master, n.inst.Pid(), workers, after, err)
	}
}

// TestLuaRoutingDropsOneBadHost: a host entry with a regex that does not
// compile is dropped alone; the others of the payload are applied, and a
// host's last good entry stays when its new one is bad.
func TestLuaRoutingDropsOneBadHost(t *testing.T) {
	ports := map[string]int{"root": uriBackend(t, "root"), "api": uriBackend(t, "api")}
	manifests := serviceYAML("root", ports["root"]) + serviceYAML("api", ports["api"]) +
		luaIngress("a", "a.example.com", false, nil, "Prefix / root") +
		luaIngress("c", "c.example.com", false, nil, "Prefix / api")
	n := startLuaNginx(t, manifests)
	good := n.routes[len(n.routes)-2]
	if good.Host != "a.example.com" {
		t.Fatalf("routes %+v", n.routes)
	}
	bad := good
	bad.Paths = slices.Clone(good.Paths)
	bad.Paths[0].Matchers = []luaapi.RouteMatcher{{Kind: luaapi.MatchRegex, Value: "^/(unclosed"}}
	bad.Version = "bad"
	other := good
	other.Host = "b.example.com"
	other.Paths = []luaapi.RoutePath{good.Paths[0]}
	other.Paths[0].Backend = "e2e-api-80"
	other.Version = "other"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: []luaapi.HostRoutes{bad, other}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0].Name != "a.example.com" || !dropped[0].Kept || !strings.Contains(dropped[0].Reason, "regex") {
		t.Fatalf("dropped = %+v, want a.example.com kept for its regex", dropped)
	}
	n.check(t, luaReq{host: "a.example.com", path: "/", status: 200, body: "root /"})
	n.check(t, luaReq{host: "b.example.com", path: "/x", status: 200, body: "api /x"})
	got, err := n.lua.GetRoutes(ctx, "b.example.com")
	if err != nil || got.Version != "other" {
		t.Errorf("GET routes b.example.com = %+v, %v", got, err)
	}
	if _, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Delete: []string{"b.example.com"}}); err != nil {
		t.Fatal(err)
	}
	n.check(t, luaReq{host: "b.example.com", path: "/x", status: 404})
	if _, err := n.lua.GetRoutes(ctx, "b.example.com"); !luaapi.IsStatus(err, http.StatusNotFound) {
		t.Errorf("GET routes of a deleted host: %v, want 404", err)
	}

	// A body unusable as a whole is refused with 400 and a message, and
	// changes nothing: validate.lua decodes the payload one entry at a
	// time, so a bad byte after good entries must still refuse them all.
	entry, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`not json`,
		`[]`,
		`{"hosts": 1}`,
		`{"hosts": [], "delete": "b.example.com"}`,
		`{"hosts": [` + string(entry) + `, ]}`,
		`{"hosts": [` + string(entry) + `, {"host": "c.example.com",}]}`,
		`{"hosts": [` + string(entry) + `], "delete": [], "x": tru}`,
		`{"hosts": [` + string(entry) + `]} trailing`,
	} {
		status, msg := n.post(t, "/configuration/routes", body)
		if status != http.StatusBadRequest || !strings.HasPrefix(msg, "routes: ") {
			t.Errorf("POST routes %s = %d %q, want 400 with a message", body, status, msg)
		}
	}
	n.check(t, luaReq{host: "b.example.com", path: "/x", status: 404})
	n.check(t, luaReq{host: "c.example.com", path: "/", status: 200, body: "api /"})
}

// TestLuaRoutingUnknownShape: a host entry that names a shape location
// this nginx.conf lacks (posted for the nginx.conf of a reload, while a
// worker of the previous one still serves a connection) is served as if
// it were not there yet, by the catch-all (404, or the wildcard that
// covers it), never 500 (ngx.exec to a missing location); an entry of
// the same host with a shape nginx.conf has is served again at once.
func TestLuaRoutingUnknownShape(t *testing.T) {
	ports := map[string]int{"root": uriBackend(t, "root"), "api": uriBackend(t, "api")}
	manifests := serviceYAML("root", ports["root"]) + serviceYAML("api", ports["api"]) +
		luaIngress("a", "a.example.com", false, nil, "Prefix / root") +
		luaIngress("w", "*.w.example.com", false, nil, "Prefix / api")
	n := startLuaNginx(t, manifests)
	plain := n.hostRoutes(t, "a.example.com")
	entry := func(host, version, shape string) luaapi.HostRoutes {
		h := plain
		h.Host, h.Version = host, version
		h.Paths = slices.Clone(plain.Paths)
		for i := range h.Paths {
			h.Paths[i].Settings.Shape = shape
		}
		return h
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	missing := "@kubectl_ingress_errors_i_599"
	post := func(hosts ...luaapi.HostRoutes) {
		t.Helper()
		if dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: hosts}); err != nil || len(dropped) > 0 {
			t.Fatalf("POST routes: %v, dropped %+v", err, dropped)
		}
	}
	post(entry("new.example.com", "1", missing), entry("x.w.example.com", "1", missing))
	n.check(t, luaReq{host: "new.example.com", path: "/", status: 404})
	n.check(t, luaReq{host: "x.w.example.com", path: "/x", status: 200, body: "api /x"}) // the wildcard's
	post(entry("new.example.com", "2", ""))
	n.check(t, luaReq{host: "new.example.com", path: "/y", status: 200, body: "root /y"})
	log, err := os.ReadFile(filepath.Join(n.inst.Prefix(), "logs", "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte("could not find named location")) {
		t.Errorf("nginx looked for the missing location:\n%s", errorLogTail(log, 2000))
	}
}

// TestLuaRoutingPreload: routes written to preload/routes.json before the
// start (as backends and servers) serve from the first request, before
// anything is posted.
func TestLuaRoutingPreload(t *testing.T) {
	ports := map[string]int{"root": uriBackend(t, "root"), "api": uriBackend(t, "api")}
	manifests := serviceYAML("root", ports["root"]) + serviceYAML("api", ports["api"]) +
		luaIngress("a", "a.example.com", false, nil, "Prefix / root", "Prefix /api api") +
		luaIngress("r", "r.example.com", false, map[string]string{"use-regex": "true"}, "ImplementationSpecific /v[0-9]+ api")
	n := startLuaNginxWith(t, manifests, luaStart{preload: true})
	n.check(t, luaReq{host: "a.example.com", path: "/api/1", status: 200, body: "api /api/1"})
	n.check(t, luaReq{host: "a.example.com", path: "/x", status: 200, body: "root /x"})
	n.check(t, luaReq{host: "r.example.com", path: "/V2", status: 200, body: "api /V2"})

	// The controller posts the preloaded routes after the start, with
	// their Content-MD5: nginx answers from memory, the body unread.
	body, err := n.preloadedRoutes.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(body)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, n.statusURL+luaapi.PathRoutes, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Kubectl-Ingress-Applied") != "remembered" {
		t.Errorf("POST of the preloaded routes: %s, applied %q; want 201, remembered", resp.Status, resp.Header.Get("X-Kubectl-Ingress-Applied"))
	}
	if _, err := n.lua.PostBodyFrom(t.Context(), luaapi.PathRoutes, n.preloadedRoutes); err != nil {
		t.Errorf("PostBodyFrom of the preloaded routes: %v", err)
	}
	n.check(t, luaReq{host: "a.example.com", path: "/api/1", status: 200, body: "api /api/1"})
}

// TestLuaRoutingRequestMetrics: lua/monitor.lua labels a Lua-routed
// request with its host entry, Ingress, Service and path, as a classic
// location's.
func TestLuaRoutingRequestMetrics(t *testing.T) {
	manifests := serviceYAML("api", uriBackend(t, "api")) +
		luaIngress("shop", "shop.example.com", false, nil, "Prefix /cart api") +
		luaIngress("wild", "*.w.example.com", false, nil, "Prefix / api")
	n := startLuaNginxWith(t, manifests, luaStart{requestMetrics: controller.RequestHistogramBuckets(controller.DefaultRequestMetricsOptions())})
	n.check(t, luaReq{host: "shop.example.com", path: "/cart/1", status: 200, body: "api /cart/1"})
	n.check(t, luaReq{host: "x.w.example.com", path: "/", status: 200, body: "api /"})
	n.check(t, luaReq{host: "other.example.com", path: "/", status: 404})
	// series of the answers, by host
	want := map[string]string{
		"shop.example.com": "host=shop.example.com ingress=shop namespace=e2e path=/cart service=api",
		"*.w.example.com":  "host=*.w.example.com ingress=wild namespace=e2e path=/ service=api",
	}
	got := map[string]string{}
	waitFor(t, 10*time.Second, "the request metrics of the Lua-routed hosts", func() bool {
		var series []map[string]any
		if err := json.Unmarshal([]byte(n.monitor(t)), &series); err != nil {
			t.Fatal(err)
		}
		for _, s := range series {
			host, _ := s["host"].(string)
			got[host] = fmt.Sprintf("host=%v ingress=%v namespace=%v path=%v service=%v", s["host"], s["ingress"], s["namespace"], s["path"], s["service"])
		}
		return got["shop.example.com"] != "" && got["*.w.example.com"] != ""
	})
	for host, w := range want {
		if got[host] != w {
			t.Errorf("series of %s: %s, want %s", host, got[host], w)
		}
	}

	// Every request is counted once, across the worker's flushes to the
	// shared dict (its timer, every second): 1,500 more requests on
	// keep-alive connections.
	const more = 1500
	for range more {
		if status, body := n.get(t, "shop.example.com", "/cart/1"); status != http.StatusOK {
			t.Fatalf("GET http://shop.example.com/cart/1: %d %q", status, body)
		}
	}
	var count float64
	waitFor(t, 10*time.Second, "the count of shop.example.com's requests", func() bool {
		var series []map[string]any
		if err := json.Unmarshal([]byte(n.monitor(t)), &series); err != nil {
			t.Fatal(err)
		}
		for _, s := range series {
			if s["host"] == "shop.example.com" && s["status"] == "200" {
				count, _ = s["requests"].(float64)
			}
		}
		return count >= 1+more
	})
	if count != 1+more {
		t.Errorf("shop.example.com: %v requests counted, want %d", count, 1+more)
	}
}

// monitor returns GET /monitor/requests of the status server.
func (n *luaNginx) monitor(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(n.statusURL + nginxconf.MonitorPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLuaRoutingManyHosts: 10,000 hosts in routes_data; a change of one
// host is one small POST, served by both workers at once, without a
// reload, and every other host keeps its routes.
func TestLuaRoutingManyHosts(t *testing.T) {
	const hosts = 10000
	ports := map[string]int{"root": uriBackend(t, "root"), "api": uriBackend(t, "api")}
	manifests := serviceYAML("root", ports["root"]) + serviceYAML("api", ports["api"]) +
		luaIngress("a", "h.example.com", false, nil, "Prefix / root", "Prefix /api api", "Exact /exact api")
	tmpl := cfgRoutesOf(t, manifests, "h.example.com")
	many := copiesOf(tmpl, hosts)
	size, err := luaapi.SizeRoutesDict(many, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := startLuaNginxWith(t, manifests, luaStart{routing: nginxconf.LuaRouting{RoutesDict: size}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: many})
	if err != nil || len(dropped) > 0 {
		t.Fatalf("POST of %d hosts: %v, dropped %v", hosts, err, dropped)
	}
	t.Logf("POST of %d hosts (routes_data %d MiB): %v", hosts, size>>20, time.Since(start).Round(time.Millisecond))
	master := n.inst.Pid()
	workers, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < hosts; i += hosts / 20 {
		host := fmt.Sprintf("h%d.example.com", i)
		n.check(t, luaReq{host: host, path: "/api/x", status: 200, body: "api /api/x"})
		n.check(t, luaReq{host: host, path: "/x", status: 200, body: "root /x"})
	}
	// Change one host: its /api goes to root now.
	changed := many[hosts/2]
	changed.Paths = slices.Clone(changed.Paths)
	for i := range changed.Paths {
		if changed.Paths[i].Path == "/api" {
			changed.Paths[i].Backend = "e2e-root-80"
		}
	}
	changed.Version = "changed"
	for round := 0; round < 5; round++ {
		start = time.Now()
		if _, err := n.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: []luaapi.HostRoutes{changed}}); err != nil {
			t.Fatal(err)
		}
		posted := time.Since(start)
		n.check(t, luaReq{host: changed.Host, path: "/api/x", status: 200, body: "root /api/x"})
		t.Logf("change of 1 host among %d: POST %v, POST and first request %v", hosts, posted.Round(time.Microsecond), time.Since(start).Round(time.Microsecond))
		for i := 0; i < 4; i++ {
			n.check(t, luaReq{host: changed.Host, path: "/api/x", status: 200, body: "root /api/x"})
		}
		n.check(t, luaReq{host: "h1.example.com", path: "/api/x", status: 200, body: "api /api/x"})
		changed.Version = fmt.Sprintf("changed-%d", round)
	}
	after, err := n.inst.WorkerPids()
	if n.inst.Pid() != master || err != nil || !slices.Equal(workers, after) {
		t.Errorf("master %d → %d, workers %v → %v (%v): nginx reloaded", master, n.inst.Pid(), workers, after, err)
	}
}

// cfgRoutesOf renders manifests and returns the route entry of host.
func cfgRoutesOf(t *testing.T, manifests, host string) luaapi.HostRoutes {
	t.Helper()
	cfg, _ := buildConfig(t, manifests)
	for _, h := range cfgRoutes(cfg) {
		if h.Host == host {
			return h
		}
	}
	t.Fatalf("no Lua routes for %s", host)
	return luaapi.HostRoutes{}
}
