package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// BenchmarkLuaRouterCost compares the nginx worker CPU per request (from
// /proc, in µs) and the requests/s of the same host routed by a classic
// server block and by the Lua router with 1 and with 10,000 hosts in
// routes_data, on loopback with a Go client (4 kept-alive connections,
// 4 goroutines): the router's cost per request and that it does not grow
// with the number of hosts. Each round measures every target once, in
// turn; the median of the rounds is reported (BENCH_ROUNDS, default 3).
//
//	go test ./test/e2e -run '^$' -bench LuaRouterCost -benchtime 1x
func BenchmarkLuaRouterCost(b *testing.B) {
	const requests = 20000
	manifests := serviceYAML("api", uriBackend(b, "api")) +
		luaIngress("bench", "bench.example.com", false, nil, "Prefix / api", "Prefix /static api", "ImplementationSpecific /v1/ api")
	classic := startNginx(b, manifests)
	one := startLuaNginx(b, manifests)
	extra := copiesOf(one.routes[len(one.routes)-1], 10000)
	size, err := luaapi.SizeRoutesDict(append(extra, one.routes...), 0)
	if err != nil {
		b.Fatal(err)
	}
	many := startLuaNginxWith(b, manifests, luaStart{routing: nginxconf.LuaRouting{RoutesDict: size}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if dropped, err := many.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: extra}); err != nil || len(dropped) > 0 {
		b.Fatalf("POST of 10,000 hosts: %v, dropped %d", err, len(dropped))
	}
	targets := []struct {
		name string
		n    *liveNginx
	}{{"classic", classic}, {"lua_1_host", one.liveNginx}, {"lua_10000_hosts", many.liveNginx}}
	rounds := benchRounds()
	for range b.N {
		cpu := map[string][]float64{}
		rate := map[string][]float64{}
		for range rounds {
			for _, tg := range targets {
				pids, err := tg.n.inst.WorkerPids()
				if err != nil {
					b.Fatal(err)
				}
				before := cpuTicks(b, pids)
				start := time.Now()
				if failed := loadRequests(tg.n, "bench.example.com", "/static/app.js", requests); failed > 0 {
					b.Fatalf("%s: %d of %d requests failed", tg.name, failed, requests)
				}
				elapsed := time.Since(start)
				used := cpuTicks(b, pids) - before
				cpu[tg.name] = append(cpu[tg.name], float64(used*10000)/requests) // 100 ticks/s
				rate[tg.name] = append(rate[tg.name], requests/elapsed.Seconds())
			}
		}
		for _, tg := range targets {
			b.ReportMetric(median(cpu[tg.name]), "µs-cpu/req-"+tg.name)
			b.ReportMetric(median(rate[tg.name]), "req/s-"+tg.name)
		}
	}
}

// copiesOf gives n host entries h0.example.com … of tmpl's paths.
func copiesOf(tmpl luaapi.HostRoutes, n int) []luaapi.HostRoutes {
	out := make([]luaapi.HostRoutes, 0, n)
	for i := 0; i < n; i++ {
		h := tmpl
		h.Host = fmt.Sprintf("h%d.example.com", i)
		h.Version = fmt.Sprintf("v%d", i)
		out = append(out, h)
	}
	return out
}

// loadRequests sends count GETs over 4 kept-alive connections and returns
// how many did not answer 200.
func loadRequests(n *liveNginx, host, path string, count int) int {
	c := newClient(4)
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < count/4; i++ {
				if r := send(c, n.request(host, path)); r.err != nil || r.status != http.StatusOK {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

// benchRounds is BENCH_ROUNDS, default 3.
func benchRounds() int {
	if r, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && r > 0 {
		return r
	}
	return 3
}
