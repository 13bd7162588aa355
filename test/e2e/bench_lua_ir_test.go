package e2e

// BenchmarkLuaBalancersInstructions: the targets of BenchmarkLuaBalancers,
// measured in the instructions nginx executes per request (valgrind's
// callgrind; each nginx runs again as one process under it, after the
// same start and payloads), which do not move with the load of the
// machine as its CPU time does. Instructions are not time (a cache miss
// costs more than an instruction): the two figures go together. Run by
// hack/bench-lua.sh when valgrind is installed. BENCH_IR_DIR=DIR keeps the
// callgrind dumps in DIR; BENCH_TARGETS limits the targets (see
// balancerTargets).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// underCallgrind stops n's nginx and runs it again, with the same prefix,
// config and ports, as one process (no master: callgrind_control reaches
// no forked worker) under callgrind, which writes its counts to
// dir/cg.<pid>.<part>; then it posts n's payloads again. It returns the
// process's pid.
func underCallgrind(b *testing.B, n *liveNginx, dir string) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	workers, err := n.inst.WorkerPids()
	if err != nil {
		b.Fatal(err)
	}
	if err := n.inst.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	// the workers may outlive the master a moment, holding their
	// listening sockets (reuseport: connections would still go to them)
	for _, pid := range workers {
		for {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
				break
			}
			select {
			case <-ctx.Done():
				b.Fatalf("worker %d of the stopped nginx is still there", pid)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	nginxPath, err := exec.LookPath("nginx")
	if err != nil {
		b.Skip("nginx is not installed")
	}
	// One worker's listening sockets: with more, nginx makes a reuseport
	// socket per worker, and without a master nothing accepts on the
	// others' (the connections the kernel gives them would wait).
	conf := regexp.MustCompile(`(?m)^worker_processes [^;]*;`).ReplaceAllString(string(n.conf), "worker_processes 1;")
	confPath := filepath.Join(n.inst.Prefix(), "callgrind.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("valgrind", "--tool=callgrind", "--smc-check=all-non-file",
		"--callgrind-out-file="+filepath.Join(dir, "cg.%p"),
		nginxPath, "-p", n.inst.Prefix()+"/", "-c", confPath, "-g", "daemon off; master_process off;")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	// serving once its status server answers
	for {
		resp, err := http.Get(n.statusURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-done:
			b.Fatalf("nginx under callgrind ended: %s", out.String())
		case <-ctx.Done():
			b.Fatalf("nginx under callgrind does not answer: %s", out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	postPayloads(b, ctx, luaapi.NewClient(n.statusURL, &http.Client{Timeout: time.Minute}), n.config, n.routes)
	return cmd.Process.Pid
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
			all, _ := filepath.Glob(filepath.Join(dir, "*"))
			b.Fatalf("no callgrind dump of pid %d in %s: %v", pid, dir, all)
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
	// BENCH_IR_DIR keeps the dumps (cg.<pid>.<n>, one per target and
	// nginx) for callgrind_annotate
	dir := os.Getenv("BENCH_IR_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	targets := balancerTargets(b, nginxOptions{})
	pids := map[*liveNginx][]int{}
	for _, tg := range targets {
		if pids[tg.proxy] == nil {
			pids[tg.proxy] = []int{underCallgrind(b, tg.proxy, dir)}
		}
	}
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
				log, _ := os.ReadFile(filepath.Join(tg.proxy.inst.Prefix(), "logs", "error.log"))
				b.Fatalf("%s: %v; error.log ends:\n%s", tg.name, err, errorLogTail(log, 3000))
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
			pids := pids[tg.proxy]
			// warm: the connection, the worker's caches, LuaJIT's traces
			// (ewma's random picks make side traces for a few thousand
			// requests: after 200, compiling them was still about 600
			// instructions a request of the 2,000 counted)
			get(tg, 5000)
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
