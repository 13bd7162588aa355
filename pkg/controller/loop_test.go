package controller

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// loopTest is a Controller on fakes, running until the test ends.
type loopTest struct {
	c        *Controller
	src      *fakeSource
	nginx    *fakeNginx
	lua      *fakeLua
	reporter *recordingReporter
	runErr   chan error
	cancel   context.CancelFunc
}

func startLoop(t *testing.T, initial render.Snapshot, tweak func(*Config, *fakeNginx), before ...func(*Controller)) *loopTest {
	t.Helper()
	lt := &loopTest{src: newFakeSource(initial), nginx: &fakeNginx{}, lua: &fakeLua{}, reporter: &recordingReporter{}, runErr: make(chan error, 1)}
	cfg := Config{
		Source: lt.src, Problems: lt.reporter, Nginx: lt.nginx, Lua: lt.lua,
		Build: render.DefaultOptions(), Conf: nginxconf.DefaultConfOptions(),
		SyncRate: 20, RetryBase: time.Minute,
	}
	if tweak != nil {
		tweak(&cfg, lt.nginx)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lt.c = c
	for _, f := range before { // before Run
		f(c)
	}
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(),
		textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&logs)))))
	lt.cancel = cancel
	go func() { lt.runErr <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-lt.runErr:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", logs.String())
		}
	})
	return lt
}

func TestLoopStartDynamicReload(t *testing.T) {
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), nil)
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	if s, r := lt.nginx.counts(); s != 1 || r != 0 {
		t.Fatalf("starts %d reloads %d, want 1 and 0", s, r)
	}
	if got := lt.lua.endpoints("t-app-80"); len(got) != 1 || got[0] != "127.0.0.1:18001" {
		t.Fatalf("endpoints %v", got)
	}
	if st := lt.c.Stats(); st.Reloads != 1 || st.DynamicUpdates != 0 {
		t.Fatalf("stats %+v", st)
	}

	// Endpoints: Lua only.
	lt.src.set(snapshot(t, app{ports: []int{18001, 18002}, paths: []string{"/"}}.yaml()))
	eventually(t, 5*time.Second, "new endpoints in Lua", func() bool { return len(lt.lua.endpoints("t-app-80")) == 2 })
	if _, r := lt.nginx.counts(); r != 0 {
		t.Fatalf("%d reloads for an endpoint change", r)
	}
	eventually(t, time.Second, "a dynamic update counted", func() bool { return lt.c.Stats().DynamicUpdates == 1 })

	// A path: one reload.
	lt.src.set(snapshot(t, app{ports: []int{18001, 18002}, paths: []string{"/", "/cart"}}.yaml()))
	eventually(t, 5*time.Second, "a reload with /cart", func() bool { return lt.nginx.serves("/cart") })
	eventually(t, time.Second, "the reload counted", func() bool { return lt.c.Stats().Reloads == 2 })
	if _, r := lt.nginx.counts(); r != 1 {
		t.Fatalf("%d reloads for one new path", r)
	}
}

func TestLoopCoalescesBursts(t *testing.T) {
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), nil)
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	snaps := make([]render.Snapshot, 1000)
	for i := range snaps {
		snaps[i] = snapshot(t, app{ports: []int{18001, 20000 + i}, paths: []string{"/"}}.yaml())
	}
	before := lt.c.Stats().Syncs
	for _, s := range snaps {
		lt.src.set(s)
	}
	eventually(t, 10*time.Second, "the last endpoints in Lua", func() bool {
		eps := lt.lua.endpoints("t-app-80")
		return len(eps) == 2 && eps[1] == "127.0.0.1:20999"
	})
	time.Sleep(200 * time.Millisecond) // let a coalesced sync that is due run
	syncs := lt.c.Stats().Syncs - before
	t.Logf("1,000 changes → %d syncs", syncs)
	if syncs > 20 {
		t.Errorf("1,000 changes made %d syncs; the key should coalesce them", syncs)
	}
	if _, r := lt.nginx.counts(); r != 0 {
		t.Errorf("%d reloads for endpoint changes", r)
	}
}

func TestLoopHoldsRejectedConfig(t *testing.T) {
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(_ *Config, n *fakeNginx) {
		n.reloadErr = func(conf []byte) error {
			if bytes.Contains(conf, []byte("/rejected")) {
				return &nginx.TestError{Output: `nginx: [emerg] unknown directive`, Err: errors.New("exit status 1")}
			}
			return nil
		}
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)

	lt.src.set(snapshot(t, app{ports: []int{18001}, paths: []string{"/", "/rejected"}}.yaml()))
	eventually(t, 5*time.Second, "the reload error counted", func() bool { return lt.c.Stats().ReloadErrors == 1 })
	if lt.nginx.serves("/rejected") {
		t.Fatal("nginx serves the rejected config")
	}
	if !lt.c.Ready() {
		t.Fatal("a rejected config made the controller unready: the old config still serves")
	}

	// The same nginx.conf with new endpoints: not tested again, but the
	// endpoints reach Lua for the running config.
	lt.src.set(snapshot(t, app{ports: []int{18001, 18002}, paths: []string{"/", "/rejected"}}.yaml()))
	eventually(t, 5*time.Second, "endpoints posted while held", func() bool { return len(lt.lua.endpoints("t-app-80")) == 2 })
	if _, r := lt.nginx.counts(); r != 1 {
		t.Fatalf("%d reload attempts: the rejected bytes were tested again", r)
	}
	if st := lt.c.Stats(); st.ReloadErrors != 1 {
		t.Fatalf("reload errors %d, want 1", st.ReloadErrors)
	}

	// A change of the config: tried at once, and it passes.
	lt.src.set(snapshot(t, app{ports: []int{18001, 18002}, paths: []string{"/", "/fixed"}}.yaml()))
	eventually(t, 5*time.Second, "the fixed config", func() bool { return lt.nginx.serves("/fixed") })
	eventually(t, time.Second, "the reload counted", func() bool { return lt.c.Stats().Reloads == 2 })
}

func TestLoopRetriesRejectedConfigAfterBackoff(t *testing.T) {
	var fail = true
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(c *Config, n *fakeNginx) {
		c.RetryBase = 20 * time.Millisecond
		n.reloadErr = func([]byte) error {
			if fail {
				return &nginx.TestError{Output: "cannot load certificate", Err: errors.New("exit status 1")}
			}
			return nil
		}
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	lt.src.set(snapshot(t, app{ports: []int{18001}, paths: []string{"/", "/b"}}.yaml()))
	eventually(t, 5*time.Second, "two failed attempts", func() bool { return lt.c.Stats().ReloadErrors >= 2 })
	lt.nginx.mu.Lock()
	fail = false // the file nginx -t tripped on is fixed
	lt.nginx.mu.Unlock()
	eventually(t, 5*time.Second, "the retry to pass with the same bytes", func() bool { return lt.nginx.serves("/b") })
}

func TestLoopRestartsNginx(t *testing.T) {
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(c *Config, _ *fakeNginx) {
		c.MaxRestarts = 2
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	h := lt.c.HealthHandler()
	for i := 1; i <= 2; i++ {
		posts := lt.lua.backendPosts()
		lt.nginx.kill()
		eventually(t, 5*time.Second, "a new master", func() bool { s, _ := lt.nginx.counts(); return s == i+1 })
		eventually(t, 5*time.Second, "the payloads posted again", func() bool { return lt.lua.backendPosts() > posts && lt.c.Ready() })
		if code := get(t, h, HealthzPath); code != http.StatusOK {
			t.Fatalf("/healthz %d after the restart", code)
		}
	}
	if st := lt.c.Stats(); st.Restarts != 2 {
		t.Fatalf("restarts %d, want 2", st.Restarts)
	}
	lt.nginx.kill()
	select {
	case err := <-lt.runErr:
		if err == nil || !strings.Contains(err.Error(), "giving up") {
			t.Fatalf("Run returned %v, want the restart budget error", err)
		}
		lt.runErr <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("a third exit within the window did not end Run")
	}
}

func TestLoopStartFailuresEndRun(t *testing.T) {
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(c *Config, n *fakeNginx) {
		c.RetryBase = time.Millisecond
		n.startErr = func() error { return errors.New("bind() to 127.0.0.1:80 failed (98: Address already in use)") }
	})
	select {
	case err := <-lt.runErr:
		if err == nil || !strings.Contains(err.Error(), "Address already in use") {
			t.Fatalf("Run returned %v", err)
		}
		lt.runErr <- err
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not give up")
	}
	if s, _ := lt.nginx.counts(); s != DefaultMaxRestarts+1 {
		t.Errorf("%d starts, want %d", s, DefaultMaxRestarts+1)
	}
}

func TestLoopReportsProblems(t *testing.T) {
	bad := app{ports: []int{18001}, paths: []string{"/"}, annotations: map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "lots"}}
	lt := startLoop(t, snapshot(t, bad.yaml()), nil)
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	ps := lt.reporter.problems()
	if len(ps) != 1 || !strings.Contains(ps[0].Field, "proxy-body-size") {
		t.Fatalf("problems %v", ps)
	}
	body := metricsText(t, lt.c)
	if !strings.Contains(body, `kubectl_ingress_problems{family="annotation"} 1`) {
		t.Errorf("metrics lack the annotation problem:\n%s", grep(body, "problems"))
	}
}

func TestHealthAndMetrics(t *testing.T) {
	src := newFakeSource(snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()))
	c, err := New(Config{Source: src, Problems: &recordingReporter{}, Nginx: &fakeNginx{}, Lua: &fakeLua{}, Build: render.DefaultOptions(), Conf: nginxconf.DefaultConfOptions()})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handler()
	if code := get(t, h, ReadyzPath); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the first config: %d", code)
	}
	if code := get(t, h, HealthzPath); code != http.StatusOK {
		t.Errorf("/healthz before the first config: %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	eventually(t, 5*time.Second, "ready", c.Ready)
	if code := get(t, h, ReadyzPath); code != http.StatusOK {
		t.Errorf("/readyz after the first config: %d", code)
	}
	body := metricsText(t, c)
	for _, want := range []string{
		"kubectl_ingress_reloads_total 1",
		"kubectl_ingress_reload_errors_total 0",
		"kubectl_ingress_dynamic_updates_total 0",
		`kubectl_ingress_config_info{checksum="`,
		"kubectl_ingress_config_last_success_timestamp_seconds ",
		`kubectl_ingress_sync_duration_seconds_count{result="success",verdict="reload"} 1`,
		"process_resident_memory_bytes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Ready() {
		t.Error("still ready after Run returned")
	}
}

func TestListenSharesOneServer(t *testing.T) {
	c, err := New(Config{Source: newFakeSource(render.Snapshot{}), Problems: &recordingReporter{}, Nginx: &fakeNginx{}, Lua: &fakeLua{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Listen("127.0.0.1:-1", ""); err == nil {
		t.Error("a bad address must fail at once")
	}
	serve, err := c.Listen("127.0.0.1:0", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := serve(ctx); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, h http.Handler, path string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code
}

func metricsText(t *testing.T, c *Controller) string {
	t.Helper()
	rec := httptest.NewRecorder()
	c.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	b, err := io.ReadAll(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grep(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Stats.Busy is true while a sync runs (here a reload that waits) and
// false once it ended and nothing is queued: what a test's "settled" reads.
func TestLoopStatsBusy(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(_ *Config, n *fakeNginx) {
		n.reloadErr = func([]byte) error {
			entered <- struct{}{}
			<-release
			return nil
		}
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	eventually(t, 5*time.Second, "idle after the start", func() bool { return !lt.c.Stats().Busy })
	lt.src.set(snapshot(t, app{ports: []int{18001}, paths: []string{"/", "/cart"}}.yaml()))
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the reload did not begin")
	}
	if st := lt.c.Stats(); !st.Busy || st.Reloads != 1 {
		t.Errorf("during the reload: %+v, want busy with 1 reload", st)
	}
	close(release)
	eventually(t, 5*time.Second, "idle after the reload", func() bool { st := lt.c.Stats(); return !st.Busy && st.Reloads == 2 })
}
