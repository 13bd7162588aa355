package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// freePort returns a free loopback port outside the ephemeral range
// (internal/testports).
func freePort(t testing.TB) int {
	t.Helper()
	return testports.One(t)
}

// namedBackend starts a loopback HTTP server that answers with its name
// and the path it received, and returns its port.
func namedBackend(t testing.TB, name string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", name)
		fmt.Fprintf(w, "%s %s", name, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// liveNginx is a started nginx with its ports and Lua client.
type liveNginx struct {
	inst      *nginx.Instance
	lua       *luaapi.Client
	httpPort  int
	httpsPort int
	statusURL string
	config    *model.Config
	problems  []model.Problem
	confOpts  nginxconf.ConfOptions
	conf      []byte // the nginx.conf that runs
	// routes are the Lua router's host entries (nil in classic mode).
	routes []luaapi.HostRoutes
}

// nginxOptions change how startNginxWith starts nginx.
type nginxOptions struct {
	// editConf, when set, rewrites the rendered nginx.conf before the start
	// (a smaller shared dict, an extra server …).
	editConf func(conf string) string
	// build, when set, replaces render.DefaultOptions().
	build *render.Options
	// requestMetrics turns lua/monitor.lua on with these buckets.
	requestMetrics map[string][]float64
	// routing, when set, is the routing mode instead of e2eRouting's.
	routing string
}

// buildConfig renders the manifests into the model (no I/O but the file
// the manifest reader needs).
func buildConfig(t testing.TB, manifests string) (*model.Config, []model.Problem) {
	t.Helper()
	return buildConfigWith(t, manifests, render.DefaultOptions())
}

// buildConfigWith is buildConfig with render options.
func buildConfigWith(t testing.TB, manifests string, o render.Options) (*model.Config, []model.Problem) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(in, []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := manifest.Read([]string{in}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, problems := render.Build(res.Snapshot, o)
	return cfg, problems
}

// startNginx renders the manifests, starts nginx on loopback with two
// workers, and pushes the backends and servers.
func startNginx(t testing.TB, manifests string) *liveNginx {
	t.Helper()
	return startNginxWith(t, manifests, nginxOptions{})
}

// startNginxWith is startNginx with options.
func startNginxWith(t testing.TB, manifests string, opts nginxOptions) *liveNginx {
	t.Helper()
	nginxtest.Require(t)
	dir := t.TempDir()
	bo := render.DefaultOptions()
	if opts.build != nil {
		bo = *opts.build
	}
	cfg, problems := buildConfigWith(t, manifests, bo)
	n := &liveNginx{httpPort: freePort(t), httpsPort: freePort(t), config: cfg, problems: problems}
	statusAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort, co.StatusAddress = n.httpPort, n.httpsPort, statusAddr
	co.WorkerProcesses = "2"
	co.RequestMetricBuckets = opts.requestMetrics
	co.Routing = e2eRouting(t)
	if opts.routing != "" {
		co.Routing = opts.routing
	}
	n.confOpts = co
	state, err := ksync.DesiredState(cfg, co)
	if err != nil {
		t.Fatal(err)
	}
	conf := state.NGINXConf
	if opts.editConf != nil {
		conf = []byte(opts.editConf(string(conf)))
	}
	// KUBECTL_INGRESS_E2E_WORKER_LUA: Lua that each worker runs after its
	// start, for a look into LuaJIT while a benchmark runs, e.g.
	// require("jit.v").start("/tmp/jitv-"..ngx.worker.pid()..".log")
	// (which traces abort, and why)
	if extra := os.Getenv("KUBECTL_INGRESS_E2E_WORKER_LUA"); extra != "" {
		conf = []byte(strings.Replace(string(conf), "balancer.init_worker()", "balancer.init_worker() "+extra, 1))
	}
	n.conf = conf
	n.inst = nginx.New(filepath.Join(dir, "nginx"), nginx.Options{StatusURL: "http://" + statusAddr})
	if err := n.inst.Layout(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The files nginx.conf names (htpasswd, CA bundles), as the controller
	// writes them before nginx -t.
	if err := n.inst.WriteFiles(ctx, controller.ToNginxFiles(cfg.Files)); err != nil {
		t.Fatal(err)
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
	n.lua = luaapi.NewClient("http://"+statusAddr, &http.Client{Timeout: 5 * time.Second})
	n.routes = state.Routes
	postPayloads(t, ctx, n.lua, cfg, n.routes)
	return n
}

// luaSays runs code (Lua) in content_by_lua_block of a server of its own
// on loopback, in an nginx started as startNginx starts one (the
// repository's Lua modules, the controller's init), and returns what the
// code said: the response body. A Lua error fails the test with the
// status and the end of nginx's error.log.
func luaSays(t *testing.T, code string) []byte {
	t.Helper()
	port := freePort(t)
	n := startNginxWith(t, "", nginxOptions{editConf: func(conf string) string {
		end := strings.LastIndex(conf, "}")
		server := fmt.Sprintf("\tserver {\n\t\tlisten 127.0.0.1:%d;\n\t\tlocation = /lua {\n\t\t\tcontent_by_lua_block {\n", port)
		return conf[:end] + server + code + "\t\t\t}\n\t\t}\n\t}\n" + conf[end:]
	}})
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/lua")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		log, _ := os.ReadFile(filepath.Join(n.inst.Prefix(), "logs", "error.log"))
		t.Fatalf("the Lua code answered %d; error.log ends:\n%s", resp.StatusCode, errorLogTail(log, 2000))
	}
	return body
}

// postPayloads posts through lua the backends and servers of cfg, then the
// host entries routes (none in classic routing), as the controller does
// after a start.
func postPayloads(t testing.TB, ctx context.Context, lua *luaapi.Client, cfg *model.Config, routes []luaapi.HostRoutes) {
	t.Helper()
	backends, servers := luaapi.FromModel(cfg)
	if err := lua.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	if err := lua.PostServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	if routes != nil {
		if dropped, err := lua.PostRoutes(ctx, luaapi.RoutesChanges(nil, routes)); err != nil || len(dropped) > 0 {
			t.Fatalf("posting the routes: %v (dropped %v)", err, dropped)
		}
	}
}

// e2eRouting is the routing mode of the e2e harness: KUBECTL_INGRESS_E2E_ROUTING
// ("lua" runs every test that starts nginx through the harness with the Lua
// router; "" or "nginx" classic).
func e2eRouting(t testing.TB) string {
	mode := os.Getenv("KUBECTL_INGRESS_E2E_ROUTING")
	if err := nginxconf.CheckRouting(mode); err != nil {
		t.Fatalf("KUBECTL_INGRESS_E2E_ROUTING: %v", err)
	}
	return mode
}

// requireLuaRouted fails t, in the Lua pass, for each of hosts that the
// Lua router does not route (a classic server block serves it): a test
// of a setting the router applies must exercise the router.
func (n *liveNginx) requireLuaRouted(t testing.TB, hosts ...string) {
	t.Helper()
	if e2eRouting(t) != nginxconf.RoutingLua {
		return
	}
	routed := map[string]bool{}
	for _, h := range n.routes {
		routed[h.Host] = true
	}
	for _, h := range hosts {
		if !routed[h] {
			t.Errorf("%s is not Lua-routed", h)
		}
	}
}

// e2eRoutingFlag is e2eRouting as the value of the binary's --routing,
// whose default is lua: "nginx" for the classic pass.
func e2eRoutingFlag(t testing.TB) string {
	if mode := e2eRouting(t); mode != "" {
		return mode
	}
	return nginxconf.RoutingNginx
}

// postRoutes posts the Lua router's changes from running to n.routes (in
// Lua routing; nothing in classic mode).
func (n *liveNginx) postRoutes(t testing.TB, ctx context.Context, running []luaapi.HostRoutes) {
	t.Helper()
	if n.routes == nil {
		return
	}
	dropped, err := n.lua.PostRoutes(ctx, luaapi.RoutesChanges(running, n.routes))
	if err != nil || len(dropped) > 0 {
		t.Fatalf("posting the routes: %v (dropped %v)", err, dropped)
	}
}

// push renders manifests as the controller would after a change that needs
// no reload: it fails the test when the new nginx.conf differs from the one
// that runs, then posts the backends and servers. It returns the new model.
func (n *liveNginx) push(t *testing.T, manifests string) *model.Config {
	t.Helper()
	cfg, _ := buildConfig(t, manifests)
	state, err := ksync.DesiredState(cfg, n.confOpts)
	if err != nil {
		t.Fatal(err)
	}
	conf := state.NGINXConf
	if !bytes.Equal(conf, n.conf) {
		t.Fatalf("the change needs a reload: nginx.conf differs from the running one")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	backends, servers := luaapi.FromModel(cfg)
	if err := n.lua.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	if err := n.lua.PostServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	running := n.routes
	n.routes = state.Routes
	n.postRoutes(t, ctx, running)
	n.config = cfg
	return cfg
}

// get sends GET http://host/path to nginx and returns status and body.
func (n *liveNginx) get(t *testing.T, host, path string) (int, string) {
	t.Helper()
	return n.do(t, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+path, host, nil)
}

// getTLS sends GET https://host/path to nginx with SNI host.
func (n *liveNginx) getTLS(t *testing.T, host, path string) (int, string) {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: host, InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	return n.do(t, "https://127.0.0.1:"+strconv.Itoa(n.httpsPort)+path, host, tr)
}

func (n *liveNginx) do(t *testing.T, url, host string, tr http.RoundTripper) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	c := &http.Client{
		Timeout:       5 * time.Second,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %s): %v", url, host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// call sends method path with body to nginx's HTTP port with Host host
// and the headers given as name, value pairs, without a proxy and without
// following a redirect, and returns the answer (its body read and closed)
// and the body.
func (n *liveNginx) call(t *testing.T, method, host, path, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 5 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s (Host %s): %v", method, path, host, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// echoBackend starts a loopback backend that answers with the request
// headers it got as JSON (Host included) and sends the response headers
// given as name, value pairs. It returns its port.
func echoBackend(t *testing.T, headers ...string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := map[string]string{"Host": r.Host}
		for k, v := range r.Header {
			h[k] = strings.Join(v, " | ")
		}
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// servedCertificate does a TLS handshake with SNI serverName and returns
// the leaf certificate nginx sent.
func (n *liveNginx) servedCertificate(t *testing.T, serverName string) *x509.Certificate {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: true, // the test checks which certificate came, not its chain
	})
	if err != nil {
		t.Fatalf("TLS handshake with SNI %q: %v", serverName, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// tryHandshake does a TLS handshake with SNI serverName ("" for none) and
// returns its error.
func (n *liveNginx) tryHandshake(serverName string) error {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(n.httpsPort), &tls.Config{
		ServerName: serverName, InsecureSkipVerify: true,
	})
	if err != nil {
		return err
	}
	return conn.Close()
}

// sameCert reports whether der is the certificate in pemBytes.
func sameCert(der, pemBytes []byte) bool {
	block, _ := pem.Decode(pemBytes)
	return block != nil && bytes.Equal(block.Bytes, der)
}

// checkLuaErrors fails the test for every Lua runtime error that nginx
// logged: the Lua must never throw, whatever the traffic. When the test
// failed it logs the end of the error log.
func checkLuaErrors(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("reading %s: %v", path, err)
		return
	}
	if t.Failed() {
		t.Logf("end of nginx's error.log, [notice] and setrlimit lines left out:\n%s", errorLogTail(data, 3000))
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "runtime error") || strings.Contains(line, "entry thread aborted") {
			t.Errorf("Lua error in nginx's log: %s", line)
		}
	}
}

// errorLogTail gives the last max bytes of nginx's error.log without its
// [notice] lines (signals, worker starts and exits) and the alert of each
// worker that may not raise its open-file limit here, which would push the
// failure itself out of the short tail a CI log shows.
func errorLogTail(data []byte, max int) string {
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.Contains(line, " [notice] ") && !strings.Contains(line, "setrlimit(RLIMIT_NOFILE") {
			kept = append(kept, line)
		}
	}
	tail := strings.Join(kept, "\n")
	if len(tail) > max {
		tail = "…" + tail[len(tail)-max:]
	}
	return tail
}
