package controller

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// orderedNginx is a fakeNginx whose Stop records what the controller
// looked like when it came.
type orderedNginx struct {
	*fakeNginx
	mu    sync.Mutex
	steps *[]string
	c     **Controller
}

func (o *orderedNginx) Stop(ctx context.Context) error {
	o.mu.Lock()
	*o.steps = append(*o.steps, "stop ready="+boolWord((*o.c).Ready()))
	o.mu.Unlock()
	return o.fakeNginx.Stop(ctx)
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestGracefulShutdownOrder: when ctx ends, /readyz answers 503 at once
// while nginx still runs for the grace period, then the hooks run, then
// nginx stops, and Run returns nil.
func TestGracefulShutdownOrder(t *testing.T) {
	var steps []string
	var mu sync.Mutex
	var c *Controller
	fn := &fakeNginx{}
	src := newFakeSource(snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()))
	c, err := New(Config{
		Source: src, Problems: &recordingReporter{}, Nginx: &orderedNginx{fakeNginx: fn, steps: &steps, c: &c}, Lua: &fakeLua{},
		Build: render.DefaultOptions(), Conf: nginxconf.DefaultConfOptions(),
		ShutdownGracePeriod: 2 * time.Second,
		ShutdownHooks: []ShutdownHook{func(ctx context.Context) {
			mu.Lock()
			defer mu.Unlock()
			_, deadline := ctx.Deadline()
			steps = append(steps, "hook ready="+boolWord(c.Ready())+" nginx-up="+boolWord(!isClosed(fn.Done()))+" deadline="+boolWord(deadline))
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handler()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	eventually(t, 5*time.Second, "ready", c.Ready)
	cancel()
	eventually(t, 5*time.Second, "/readyz 503", func() bool { return get(t, h, ReadyzPath) == http.StatusServiceUnavailable })
	if !c.Draining() {
		t.Error("not draining after ctx ended")
	}
	if isClosed(fn.Done()) {
		t.Error("nginx stopped before the grace period passed")
	}
	if code := get(t, h, HealthzPath); code != http.StatusOK {
		t.Errorf("/healthz during the drain: %d", code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"hook ready=false nginx-up=true deadline=true", "stop ready=false"}
	if len(steps) != len(want) || steps[0] != want[0] || steps[1] != want[1] {
		t.Errorf("steps %q, want %q", steps, want)
	}
}

// TestProfilingOnlyWithTheFlag: /debug/pprof/ is served on the metrics
// server with Profiling, and is a 404 without.
func TestProfilingOnlyWithTheFlag(t *testing.T) {
	for _, on := range []bool{false, true} {
		c, err := New(Config{Source: newFakeSource(render.Snapshot{}), Problems: &recordingReporter{}, Nginx: &fakeNginx{}, Lua: &fakeLua{}, Profiling: on})
		if err != nil {
			t.Fatal(err)
		}
		want := http.StatusNotFound
		if on {
			want = http.StatusOK
		}
		for name, h := range map[string]http.Handler{"shared": c.Handler(), "metrics": c.metricsMux()} {
			for _, path := range []string{PprofPath, PprofPath + "goroutine?debug=1", PprofPath + "cmdline"} {
				if code := get(t, h, path); code != want {
					t.Errorf("profiling=%v, %s server: GET %s = %d, want %d", on, name, path, code, want)
				}
			}
		}
		if code := get(t, c.HealthHandler(), PprofPath); code != http.StatusNotFound {
			t.Errorf("profiling=%v: the health-only server answers %s with %d", on, PprofPath, code)
		}
	}
}
