package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// wrkP99 is the 99th percentile of wrk --latency ("99%  1.23ms").
var wrkP99 = regexp.MustCompile(`(?m)^\s+99%\s+([0-9.]+)(us|ms|s)\s*$`)

// BenchmarkRouterThroughput is issue 14's throughput figure: requests/s
// and p99 latency (wrk --latency, 1 thread, BENCH_WRK_CONNECTIONS
// connections, loopback, the same backend) of one host through the Lua
// router with 1 host and with 10,000 and 100,000 hosts in routes_data,
// and through the classic writer with 1,000 hosts (1,000 server blocks),
// each nginx with 2 workers, measured in turn in each round; the medians
// and the ratios to lua_1_host and to classic_1000_hosts are reported.
//
//	BENCH_ROUNDS=3 BENCH_WRK_SECONDS=5 go test ./test/e2e -run '^$' -bench RouterThroughput -benchtime 1x -timeout 30m
func BenchmarkRouterThroughput(b *testing.B) {
	if _, err := exec.LookPath("wrk"); err != nil {
		b.Skip("wrk is not installed (apt-get install wrk)")
	}
	api := uriBackend(b, "api")
	bench := luaIngress("bench", "bench.example.com", false, nil, "Prefix / api", "Prefix /static api", "ImplementationSpecific /v1/ api")
	var many strings.Builder
	many.WriteString(serviceYAML("api", api) + bench)
	for i := 0; i < 999; i++ {
		many.WriteString(luaIngress(fmt.Sprintf("h%d", i), fmt.Sprintf("h%d.example.com", i), false, nil, "Prefix / api", "Prefix /static api"))
	}
	classic := startNginxWith(b, many.String(), nginxOptions{routing: nginxconf.RoutingNginx})
	one := startLuaNginx(b, serviceYAML("api", api)+bench)
	tmpl := one.routes[len(one.routes)-1]
	withHosts := func(n int) *liveNginx {
		extra := copiesOf(tmpl, n)
		size, err := luaapi.SizeRoutesDict(append(extra, one.routes...), 0)
		if err != nil {
			b.Fatal(err)
		}
		ln := startLuaNginxWith(b, serviceYAML("api", api)+bench, luaStart{routing: nginxconf.LuaRouting{RoutesDict: size}})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for at := 0; at < n; at += 10000 {
			part := extra[at:min(at+10000, n)]
			if dropped, err := ln.lua.PostRoutes(ctx, luaapi.RoutesUpdate{Hosts: part}); err != nil || len(dropped) > 0 {
				b.Fatalf("POST of hosts %d…: %v, dropped %d", at, err, len(dropped))
			}
		}
		return ln.liveNginx
	}
	targets := []struct {
		name string
		n    *liveNginx
	}{
		{"classic_1000_hosts", classic}, {"lua_1_host", one.liveNginx},
		{"lua_10000_hosts", withHosts(10000)}, {"lua_100000_hosts", withHosts(100000)},
	}
	rounds := benchRounds()
	for range b.N {
		rate := map[string][]float64{}
		p99 := map[string][]float64{}
		for r := range rounds {
			for _, tg := range targets {
				rps, lat := runWrkLatency(b, "http://127.0.0.1:"+strconv.Itoa(tg.n.httpPort)+"/static/app.js", "bench.example.com")
				rate[tg.name] = append(rate[tg.name], rps)
				p99[tg.name] = append(p99[tg.name], lat)
				b.Logf("round %d %s: %.0f req/s, p99 %.2f ms", r+1, tg.name, rps, lat)
			}
		}
		base, classicRate := median(rate["lua_1_host"]), median(rate["classic_1000_hosts"])
		for _, tg := range targets {
			m := median(rate[tg.name])
			b.ReportMetric(m, "req/s-"+tg.name)
			b.ReportMetric(median(p99[tg.name]), "p99-ms-"+tg.name)
			b.Logf("median %s: %.0f req/s (%.1f%% of lua_1_host, %.1f%% of classic_1000_hosts), p99 %.2f ms",
				tg.name, m, 100*m/base, 100*m/classicRate, median(p99[tg.name]))
		}
	}
}

// runWrkLatency runs wrk --latency against url with Host host and returns
// requests/s and the p99 latency in milliseconds; an error answer fails.
func runWrkLatency(b *testing.B, url, host string) (float64, float64) {
	b.Helper()
	seconds, conns := os.Getenv("BENCH_WRK_SECONDS"), os.Getenv("BENCH_WRK_CONNECTIONS")
	if seconds == "" {
		seconds = "5"
	}
	if conns == "" {
		conns = "32"
	}
	out, err := exec.Command("wrk", "-t1", "-c"+conns, "-d"+seconds+"s", "--latency", "-H", "Host: "+host, url).CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "Non-2xx") || strings.Contains(text, "Socket errors") {
		b.Fatalf("wrk saw errors:\n%s", text)
	}
	m, p := wrkRate.FindStringSubmatch(text), wrkP99.FindStringSubmatch(text)
	if m == nil || p == nil {
		b.Fatalf("no Requests/sec or 99%% in wrk's output:\n%s", text)
	}
	rate, _ := strconv.ParseFloat(m[1], 64)
	lat, _ := strconv.ParseFloat(p[1], 64)
	switch p[2] {
	case "us":
		lat /= 1000
	case "s":
		lat *= 1000
	}
	return rate, lat
}
