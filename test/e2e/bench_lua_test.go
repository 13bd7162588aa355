package e2e

// Benchmarks of the Lua data plane (run by hack/bench-lua.sh, never by
// plain `go test`, which runs no benchmarks):
//
//   BenchmarkLuaBalancers  requests/s through the Lua balancer for each
//                          mode, measured with wrk, against the same nginx
//                          config with a static upstream block of the same
//                          endpoints;
//   BenchmarkPost10kBackends  the time for a POST of 10,000 backends to be
//                          live on both workers.
//
// The endpoints are a separate plain nginx (one worker, no Lua) answering
// from memory, so that the proxy is what is measured.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// staticEndpoints starts a plain nginx with one worker serving n small
// answers on loopback ports, and returns them as backends.
func staticEndpoints(b *testing.B, n int) []*backend {
	b.Helper()
	dir := b.TempDir()
	var servers strings.Builder
	out := make([]*backend, n)
	for i := range out {
		port := freePort(b)
		out[i] = &backend{name: "ep-" + strconv.Itoa(i), port: port}
		fmt.Fprintf(&servers, "  server { listen 127.0.0.1:%d reuseport; location / { add_header X-Backend ep-%d; return 200 \"ep-%d\\n\"; } }\n", port, i, i)
	}
	conf := fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000;
  client_body_temp_path %[1]s/cb; proxy_temp_path %[1]s/pt; fastcgi_temp_path %[1]s/ft; uwsgi_temp_path %[1]s/ut; scgi_temp_path %[1]s/st;
%[2]s}
`, dir, servers.String())
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("nginx", "-p", dir+"/", "-c", path, "-g", "daemon off;")
	if out, err := exec.Command("nginx", "-t", "-p", dir+"/", "-c", path).CombinedOutput(); err != nil {
		b.Fatalf("nginx -t of the endpoints: %v\n%s", err, out)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	c := newClient(1)
	deadline := time.Now().Add(5 * time.Second)
	for _, e := range out {
		for {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(e.port)+"/", nil)
			if r := send(c, req); r.err == nil && r.status == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("the endpoint nginx does not answer on %d", e.port)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return out
}

var (
	wrkRate     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkRequests = regexp.MustCompile(`([0-9]+) requests in`)
)

// runWrk runs wrk against url with Host host (and extra headers) and
// returns requests/s and the number of requests. It fails on socket errors
// or non-2xx answers.
func runWrk(b *testing.B, url, host string, headers ...string) (float64, int) {
	b.Helper()
	seconds := os.Getenv("BENCH_WRK_SECONDS")
	if seconds == "" {
		seconds = "5"
	}
	conns := os.Getenv("BENCH_WRK_CONNECTIONS")
	if conns == "" {
		conns = "32"
	}
	args := []string{"-t1", "-c" + conns, "-d" + seconds + "s", "-H", "Host: " + host}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	out, err := exec.Command("wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Non-2xx") || strings.Contains(string(out), "Socket errors") {
		b.Fatalf("wrk saw errors:\n%s", out)
	}
	m := wrkRate.FindStringSubmatch(string(out))
	if m == nil {
		b.Fatalf("no Requests/sec in wrk's output:\n%s", out)
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		b.Fatal(err)
	}
	count := 0
	if c := wrkRequests.FindStringSubmatch(string(out)); c != nil {
		count, _ = strconv.Atoi(c[1])
	}
	if count == 0 {
		b.Fatalf("no request count in wrk's output:\n%s", out)
	}
	return rate, count
}

// cpuTicks returns the user+system CPU time, in clock ticks, that the
// processes pids have used (fields 14 and 15 of /proc/<pid>/stat).
func cpuTicks(b *testing.B, pids []int) int64 {
	b.Helper()
	var total int64
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			b.Fatal(err)
		}
		stat := string(data)
		fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
		// fields[0] is field 3 (state): utime is field 14, stime 15.
		for _, f := range fields[11:13] {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			total += v
		}
	}
	return total
}

// staticServer is an upstream block of eps and a server on port that
// proxies to it, with the http-level settings of the rendered config. Its
// location sets $proxy_upstream_name, as every proxying location of a
// rendered config does: the access log's format reads it, and nginx
// writes a warning to the error log for each request where it is unset,
// which made the static figure pay for an error-log line per request.
func staticServer(port int, eps []*backend) string {
	var b strings.Builder
	b.WriteString("\tupstream static_pool {\n")
	for _, e := range eps {
		fmt.Fprintf(&b, "\t\tserver 127.0.0.1:%d;\n", e.port)
	}
	b.WriteString("\t\tkeepalive 320;\n\t}\n")
	fmt.Fprintf(&b, "\tserver {\n\t\tlisten 127.0.0.1:%d;\n\t\tlocation / { set $proxy_upstream_name \"static\"; proxy_pass http://static_pool; }\n\t}\n", port)
	return b.String()
}

// floorServer is the least that a Lua router and balancer cost on top of
// staticServer: an empty rewrite_by_lua (the router's phase handler), a
// balancer_by_lua that sets the next of eps (round robin, no lookup), and
// the http level's log_by_lua of the rendered config. No router nor
// balancer of lua/ runs, so its figure bounds what they can reach.
func floorServer(port int, eps []*backend) string {
	ports := make([]string, len(eps))
	for i, e := range eps {
		ports[i] = strconv.Itoa(e.port)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `	upstream floor_pool {
		server 0.0.0.1;
		balancer_by_lua_block {
			local s = package.loaded.kubectl_ingress_bench_floor
			if not s then
				s = { i = 0, ports = { %s }, set = package.loaded["ngx.balancer"].set_current_peer }
				package.loaded.kubectl_ingress_bench_floor = s
			end
			s.i = s.i %% #s.ports + 1
			s.set("127.0.0.1", s.ports[s.i])
		}
		keepalive 320;
	}
	server {
		listen 127.0.0.1:%d;
		location / { set $proxy_upstream_name "floor"; rewrite_by_lua_block { } proxy_pass http://floor_pool; }
	}
`, strings.Join(ports, ", "), port)
	return b.String()
}

// withFloor adds floorServer on port before the end of the http block.
func withFloor(port int, eps []*backend) func(string) string {
	return func(conf string) string {
		end := strings.LastIndex(conf, "}")
		return conf[:end] + floorServer(port, eps) + conf[end:]
	}
}

// httpLogByLua is the http level's log_by_lua_block of a rendered
// nginx.conf (one tab deep).
var httpLogByLua = regexp.MustCompile(`(?m)^\tlog_by_lua_block \{\n(?:\t\t[^\n]*\n)*\t\}\n`)

// withStatic adds the static server before the end of the http block, and
// removes the log_by_lua_block when pure (so that the static figure pays
// for no Lua at all).
func withStatic(port int, eps []*backend, pure bool) func(string) string {
	return func(conf string) string {
		if pure {
			// the http level's log_by_lua_block, whatever it calls
			// (balancer.log, and router.log in Lua routing)
			conf = httpLogByLua.ReplaceAllString(conf, "")
		}
		end := strings.LastIndex(conf, "}")
		return conf[:end] + staticServer(port, eps) + conf[end:]
	}
}

// balancerTarget is one server that BenchmarkLuaBalancers and
// BenchmarkLuaBalancersInstructions measure: its URL, the Host and headers
// of its requests, and the nginx that serves it.
type balancerTarget struct {
	name, url, host string
	headers         []string
	proxy           *liveNginx
}

// balancerTargets starts the nginx instances of the balancer benchmarks
// (opts adds to each; BENCH_TARGETS names the targets to measure besides
// static, the reference) and returns their targets: static (a static
// upstream block, no Lua at all), static+log_by_lua, lua_phases_alone
// (floorServer), the Lua router with each balancer, and round_robin with
// the request metrics.
func balancerTargets(b *testing.B, opts nginxOptions) []balancerTarget {
	eps := staticEndpoints(b, 3)
	modes := []struct {
		name, host  string
		annotations map[string]string
	}{
		{"round_robin", "rr.bench", nil},
		{"ewma", "ewma.bench", map[string]string{"load-balance": "ewma"}},
		{"chash", "chash.bench", map[string]string{"upstream-hash-by": "$request_uri"}},
		{"sticky", "sticky.bench", map[string]string{"affinity": "cookie", "session-cookie-name": "route"}},
		// round_robin on a route the Lua router serves in its every-phase
		// location (an ngx.exec per request); the classic writer's
		// location of it has CORS's "if" blocks
		{"round_robin+cors", "cors.bench", map[string]string{"enable-cors": "true"}},
	}
	var manifests string
	for i, m := range modes {
		svc := strings.NewReplacer("_", "-", "+", "-").Replace(m.name)
		manifests += serviceOf(svc, eps...) + ingressOf(svc, m.host, svc, fmt.Sprintf("2026-01-01T00:00:0%dZ", i), m.annotations)
	}
	// The proxies run side by side (an idle nginx costs nothing).
	staticPort := freePort(b)
	pureOpts := opts
	pureOpts.editConf = withStatic(staticPort, eps, true)
	pure := startNginxWith(b, manifests, pureOpts)
	logPort, floorPort := freePort(b), freePort(b)
	nOpts := opts
	nOpts.editConf = func(conf string) string {
		return withFloor(floorPort, eps)(withStatic(logPort, eps, false)(conf))
	}
	n := startNginxWith(b, manifests, nOpts)
	// The same with ingress-nginx's request metrics (lua/monitor.lua).
	monitoredOpts := opts
	monitoredOpts.editConf = withStatic(freePort(b), eps, false)
	monitoredOpts.requestMetrics = controller.RequestHistogramBuckets(controller.DefaultRequestMetricsOptions())
	monitored := startNginxWith(b, manifests, monitoredOpts)
	targets := []balancerTarget{
		{"static", "http://127.0.0.1:" + strconv.Itoa(staticPort) + "/", "static.bench", nil, pure},
		{"static+log_by_lua", "http://127.0.0.1:" + strconv.Itoa(logPort) + "/", "static.bench", nil, n},
		// the Lua phase handlers alone (floorServer)
		{"lua_phases_alone", "http://127.0.0.1:" + strconv.Itoa(floorPort) + "/", "floor.bench", nil, n},
	}
	for _, m := range modes {
		targets = append(targets, balancerTarget{m.name, "http://127.0.0.1:" + strconv.Itoa(n.httpPort) + "/", m.host, nil, n})
	}
	targets = append(targets, balancerTarget{"round_robin+request_metrics", "http://127.0.0.1:" + strconv.Itoa(monitored.httpPort) + "/", "rr.bench", nil, monitored})
	// Every target gets the same request: sticky's, a returning client
	// whose cookie names an endpoint (the others ignore it; nginx parses
	// it for all, static included).
	r := send(newClient(1), n.request("sticky.bench", "/"))
	value, _ := setCookie(r.header, "route")
	if value == "" {
		b.Fatalf("sticky: no cookie in %v", r.header)
	}
	for i := range targets {
		targets[i].headers = []string{"Cookie: route=" + value}
	}
	// BENCH_TARGETS=round_robin,round_robin+request_metrics measures
	// those only (and static, the reference).
	if only := os.Getenv("BENCH_TARGETS"); only != "" {
		names := strings.Split(only, ",")
		targets = slices.DeleteFunc(targets, func(tg balancerTarget) bool { return tg.name != "static" && !slices.Contains(names, tg.name) })
	}
	return targets
}

func BenchmarkLuaBalancers(b *testing.B) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Skip("wrk is not installed")
	}
	// The machine may be shared, so every round measures every target
	// once, in turn, each between two runs of the static upstream, and the
	// median of the rounds is reported.
	targets := balancerTargets(b, nginxOptions{})
	if targets[0].name != "static" {
		b.Fatalf("the first target is %s, not the static upstream", targets[0].name)
	}
	rounds := 3
	if r, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && r > 0 {
		rounds = r
	}
	// Two figures per target: requests/s (sensitive to whatever else runs
	// on the machine) and the CPU time the proxy's workers spent per
	// request (much less so), in µs; 100 ticks per second on Linux.
	const tickMicros = 10000
	for range b.N {
		rates := make(map[string][]float64)
		costs := make(map[string][]float64)
		// static/this of each target in each round, against the static
		// upstream measured right before and right after it (their mean):
		// the machine's speed moves between the rounds, and within one,
		// more than between neighbouring runs
		paired := make(map[string][]float64)
		measure := func(tg balancerTarget) float64 {
			pids, err := tg.proxy.inst.WorkerPids()
			if err != nil {
				b.Fatal(err)
			}
			before := cpuTicks(b, pids)
			rate, count := runWrk(b, tg.url, tg.host, tg.headers...)
			used := cpuTicks(b, pids) - before
			cost := float64(used*tickMicros) / float64(count)
			rates[tg.name] = append(rates[tg.name], rate)
			costs[tg.name] = append(costs[tg.name], cost)
			return cost
		}
		for range rounds {
			var static float64
			for i, tg := range targets {
				if i == 0 {
					static = measure(tg) // targets[0] is the static upstream
					paired[tg.name] = append(paired[tg.name], 100)
					continue
				}
				cost := measure(tg)
				after := measure(targets[0])
				paired[tg.name] = append(paired[tg.name], 100*(static+after)/2/cost)
				static = after
			}
		}
		static, staticCost := median(rates["static"]), median(costs["static"])
		for _, tg := range targets {
			m, c := median(rates[tg.name]), median(costs[tg.name])
			b.ReportMetric(m, tg.name+"_req/s")
			b.ReportMetric(c, tg.name+"_µs_cpu/req")
			b.ReportMetric(median(paired[tg.name]), tg.name+"_cpu_parity_%")
			b.Logf("%-18s median %7.0f req/s (%5.1f%% of static), %5.1f µs nginx CPU/req (static/this %5.1f%%, median of the rounds' %5.1f%%); per round: req/s %.0f, static/this %.1f",
				tg.name, m, 100*m/static, c, 100*staticCost/c, median(paired[tg.name]), rates[tg.name], paired[tg.name])
		}
	}
}

// median returns the median of xs (not empty).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func BenchmarkPost10kBackends(b *testing.B) {
	one := startBackend(b, "one", 0)
	two := startBackend(b, "two", 0)
	n := startNginx(b, serviceOf("live", one)+ingressOf("live", "live.bench", "live", "2026-01-01T00:00:00Z", nil))
	base, _ := luaapi.FromModel(n.config)
	live := -1
	for i := range base {
		if base[i].Name == "e2e-live-80" {
			live = i
		}
	}
	if live < 0 {
		b.Fatalf("no backend e2e-live-80 in %v", base)
	}
	// payload returns 10,000 backends: the rendered ones, with the live one
	// pointing at target, and fillers with two endpoints each.
	payload := func(target *backend) []luaapi.Backend {
		out := append([]luaapi.Backend(nil), base...)
		out[live].Endpoints = []luaapi.Endpoint{{Address: "127.0.0.1", Port: strconv.Itoa(target.port)}}
		for i := len(out); i < 10000; i++ {
			out = append(out, luaapi.Backend{
				Name:    fmt.Sprintf("bench-svc-%05d-80", i),
				Service: &luaapi.Service{Metadata: luaapi.ServiceMetadata{Name: fmt.Sprintf("svc-%05d", i), Namespace: "bench"}},
				Port:    "80",
				Endpoints: []luaapi.Endpoint{
					{Address: fmt.Sprintf("10.%d.%d.1", i/256, i%256), Port: "8080"},
					{Address: fmt.Sprintf("10.%d.%d.2", i/256, i%256), Port: "8080"},
				},
				LoadBalance: "round_robin",
			})
		}
		return out
	}
	targets := []*backend{two, one}
	payloads := [][]luaapi.Backend{payload(two), payload(one)}
	hc := &http.Client{Timeout: 30 * time.Second}
	var encodeTotal, postTotal, liveTotal time.Duration
	var postTicks, liveTicks int64
	size := 0
	pids, err := n.inst.WorkerPids()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		target := targets[i%2]
		start := time.Now()
		body, err := json.Marshal(payloads[i%2])
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
		encoded := time.Now()
		t0 := cpuTicks(b, pids)
		resp, err := hc.Post(n.statusURL+luaapi.PathBackends, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST 10,000 backends: %s", resp.Status)
		}
		posted := time.Now()
		t1 := cpuTicks(b, pids)
		// Live on both workers: 8 new connections in a row (spread over
		// the workers by the kernel, reuseport) answer from the target.
		for ok := 0; ok < 8; {
			r := send(newClient(1), n.request("live.bench", "/"))
			if r.err != nil || r.status != http.StatusOK {
				b.Fatalf("during the switch: %d %v", r.status, r.err)
			}
			if r.backend == target.name {
				ok++
			} else {
				ok = 0
			}
		}
		live := time.Now()
		t2 := cpuTicks(b, pids)
		postTicks += t1 - t0
		liveTicks += t2 - t1
		encodeTotal += encoded.Sub(start)
		postTotal += posted.Sub(encoded)
		liveTotal += live.Sub(posted)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(encodeTotal), "ms/encode")
	b.ReportMetric(per(postTotal), "ms/POST")
	b.ReportMetric(per(liveTotal), "ms/live-after-POST")
	b.ReportMetric(per(encodeTotal+postTotal+liveTotal), "ms/total")
	b.ReportMetric(float64(size)/1e6, "MB/payload")
	// The CPU the nginx workers spent (10 ms ticks): what the phases take on
	// an idle machine, whatever else runs on this one. The live phase runs
	// on both workers at once, so its wall time is about half its CPU.
	b.ReportMetric(float64(postTicks*10)/float64(b.N), "ms_cpu/POST")
	b.ReportMetric(float64(liveTicks*10)/float64(b.N), "ms_cpu/live-after-POST")
}
