package e2e

// BenchmarkLuaBalancersInstructions: the targets of BenchmarkLuaBalancers,
// measured in instructions that nginx's workers execute per request
// (valgrind's callgrind), which do not move with the load of the machine
// as its CPU time does. Run by hack/bench-lua.sh when valgrind is there.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// callgrindWrapper writes an executable that runs nginx under callgrind
// (its check, -t, without: nothing of it is measured), each process's
// counts to dir/cg.<pid>, and returns its path.
func callgrindWrapper(b *testing.B, dir string) string {
	b.Helper()
	nginxPath, err := exec.LookPath("nginx")
	if err != nil {
		b.Skip("nginx is not installed")
	}
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do
	if [ "$a" = "-t" ]; then exec %[1]q "$@"; fi
done
exec valgrind --tool=callgrind --collect-atstart=yes --smc-check=all-non-file \
	--callgrind-out-file=%[2]q/cg.%%p %[1]q "$@"
`, nginxPath, dir)
	path := filepath.Join(dir, "nginx-callgrind")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	return path
}

// callgrind runs callgrind_control with the command (-z: zero the counts,
// -d: dump them) for each pid.
func callgrind(b *testing.B, command string, pids []int) {
	b.Helper()
	for _, pid := range pids {
		if out, err := exec.Command("callgrind_control", command, strconv.Itoa(pid)).CombinedOutput(); err != nil {
			b.Fatalf("callgrind_control %s %d: %v: %s", command, pid, err, out)
		}
	}
}

// dumpedInstructions sums the instructions of the newest dump of each pid
// (dir/cg.<pid>.<part>, the "summary:" line).
func dumpedInstructions(b *testing.B, dir string, pids []int) int64 {
	b.Helper()
	var total int64
	for _, pid := range pids {
		parts, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("cg.%d.*", pid)))
		newest, newestPart := "", -1
		for _, p := range parts {
			if n, err := strconv.Atoi(p[strings.LastIndex(p, ".")+1:]); err == nil && n > newestPart {
				newest, newestPart = p, n
			}
		}
		if newest == "" {
			b.Fatalf("no callgrind dump of pid %d in %s", pid, dir)
		}
		data, err := os.ReadFile(newest)
		if err != nil {
			b.Fatal(err)
		}
		found := false
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "summary: "); ok {
				n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				if err != nil {
					b.Fatalf("%s: %q: %v", newest, line, err)
				}
				total += n
				found = true
				break
			}
		}
		if !found {
			b.Fatalf("%s has no summary line", newest)
		}
	}
	return total
}

func BenchmarkLuaBalancersInstructions(b *testing.B) {
	for _, tool := range []string{"valgrind", "callgrind_control"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skip(tool + " is not installed (apt-get install valgrind)")
		}
	}
	dir := b.TempDir()
	targets := balancerTargets(b, nginxOptions{binary: callgrindWrapper(b, dir)})
	requests := 2000
	if n, err := strconv.Atoi(os.Getenv("BENCH_IR_REQUESTS")); err == nil && n > 0 {
		requests = n
	}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	get := func(tg balancerTarget, n int) {
		for range n {
			req, err := http.NewRequest(http.MethodGet, tg.url, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Host = tg.host
			for _, h := range tg.headers {
				k, v, _ := strings.Cut(h, ": ")
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Fatalf("%s: %v", tg.name, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: status %d", tg.name, resp.StatusCode)
			}
		}
	}
	for range b.N {
		per := map[string]float64{}
		for _, tg := range targets {
			pids, err := tg.proxy.inst.WorkerPids()
			if err != nil {
				b.Fatal(err)
			}
			// warm: the connection, the worker's caches, LuaJIT's traces
			get(tg, 200)
			callgrind(b, "-z", pids)
			get(tg, requests)
			callgrind(b, "-d", pids)
			per[tg.name] = float64(dumpedInstructions(b, dir, pids)) / float64(requests)
		}
		static := per["static"]
		for _, tg := range targets {
			v := per[tg.name]
			b.ReportMetric(v, tg.name+"_instructions/req")
			b.Logf("%-27s %7.0f instructions/req (static/this %5.1f%%)", tg.name, v, 100*static/v)
		}
	}
}
