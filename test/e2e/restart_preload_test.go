package e2e

// A master that the controller starts (the first time, or after it died)
// serves the backends from the first request it accepts: the payloads are
// preloaded under the prefix and loaded by init_by_lua before the workers
// listen, instead of being posted after the start (issue 11: 3 requests
// got 503 after a killed master was restarted).

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// hammer sends GET host/ to port, each on a new connection, one after the
// other, until stop says so or max requests were sent. It counts the
// answers by status (0: no answer: refused, reset, timed out). After a
// request without answer it calls unanswered, which may wait for nginx
// to come back (refused connections are fast and would use up max).
type hammer struct {
	port       int
	host       string
	max        int
	unanswered func()
	counts     map[int]int
	answered   atomic.Int64 // answers with an HTTP status
	sent       atomic.Int64
}

func (h *hammer) run(stop func() bool) {
	h.counts = map[int]int{}
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	}
	defer client.CloseIdleConnections()
	for i := 0; i < h.max && !stop(); i++ {
		h.sent.Add(1)
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", h.port), nil)
		if err != nil {
			panic(err)
		}
		req.Host = h.host
		resp, err := client.Do(req)
		if err != nil {
			h.counts[0]++
			if h.unanswered != nil {
				h.unanswered()
			}
			continue
		}
		resp.Body.Close()
		h.counts[resp.StatusCode]++
		h.answered.Add(1)
	}
}

// await polls cond until it holds or timeout passes; unlike waitFor it
// may run outside the test's goroutine (the caller checks the outcome).
func await(timeout time.Duration, cond func() bool) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			return
		}
	}
}

const restartFilesClass = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n"

// TestFilesControllerFirstStartServesFromTheFirstRequest: requests sent
// while the controller starts nginx get no answer until nginx listens,
// then 200: never a 503 for a backend Lua has not received yet.
func TestFilesControllerFirstStartServesFromTheFirstRequest(t *testing.T) {
	nginxtest.Require(t)
	alpha := namedBackend(t, "alpha")
	fc := &filesController{dir: t.TempDir()}
	co := fc.prepare(t)
	fc.write(t, "class.yaml", restartFilesClass)
	fc.write(t, "web.yaml", serviceYAML("web", alpha))
	fc.write(t, "ingress.yaml", filesIngress("shop", "shop.example.com", nil, "/", "web"))
	src, err := controller.NewFileSource(fc.dir, controller.FileSourceOptions{Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	h := &hammer{port: fc.httpPort, host: "shop.example.com", max: 20000, unanswered: func() {
		await(30*time.Second, func() bool { return fc.inst.Pid() != 0 })
	}}
	var ready atomic.Bool
	var afterReady atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.run(func() bool {
			if ready.Load() {
				return afterReady.Add(1) > 200
			}
			return false
		})
	}()
	ctx, cancel := fc.logContext()
	fc.run(t, ctx, cancel, controller.Config{Source: src, Problems: controller.NewLogReporter(), Build: render.DefaultOptions(), Conf: co}, 20*time.Second)
	ready.Store(true)
	<-done
	t.Logf("%d requests: %v", h.sent.Load(), h.counts)
	if h.answered.Load() == 0 {
		t.Fatal("no request was answered")
	}
	for status, n := range h.counts {
		if status != 0 && status != http.StatusOK {
			t.Errorf("%d requests got %d, want only 200 once nginx answers", n, status)
		}
	}
}

// TestFilesControllerRestartServesFromTheFirstRequest: kill -9 the master
// under a running controller while requests go on: the orphaned workers
// answer, then nothing, then the new master's workers, each with 200.
func TestFilesControllerRestartServesFromTheFirstRequest(t *testing.T) {
	alpha := namedBackend(t, "alpha")
	fc := startFilesController(t, map[string]string{
		"class.yaml":   restartFilesClass,
		"web.yaml":     serviceYAML("web", alpha),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web"),
	})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")
	master := fc.inst.Pid()

	for round := range 3 {
		h := &hammer{port: fc.httpPort, host: "shop.example.com", max: 20000}
		h.unanswered = func() {
			await(30*time.Second, func() bool { p := fc.inst.Pid(); return p != 0 && p != master })
		}
		var killed atomic.Bool
		var afterRestart atomic.Int64
		h.run(func() bool {
			if !killed.Load() {
				// Some answers of the old master first.
				if h.answered.Load() >= 20 {
					if err := syscall.Kill(master, syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
						t.Fatal(err)
					}
					killed.Store(true)
				}
				return false
			}
			if p := fc.inst.Pid(); p == 0 || p == master {
				return false
			}
			// The new master runs (its start returned once it served
			// the status server): 300 more requests.
			return afterRestart.Add(1) > 300
		})
		t.Logf("round %d: %d requests: %v", round, h.sent.Load(), h.counts)
		if afterRestart.Load() <= 300 {
			t.Fatalf("round %d: the new master did not come up within %d requests", round, h.max)
		}
		for status, n := range h.counts {
			if status != 0 && status != http.StatusOK {
				t.Errorf("round %d: %d requests got %d, want only 200 (or no answer while no master runs)", round, n, status)
			}
		}
		waitFor(t, 20*time.Second, "the controller ready again", fc.c.Ready)
		master = fc.inst.Pid()
	}
	if st := fc.settle(t); st.Restarts != 3 {
		t.Errorf("restarts %d, want 3", st.Restarts)
	}
}
