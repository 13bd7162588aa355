package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gcRecorder stands in for debug.SetGCPercent: it records every call and
// holds the percent.
type gcRecorder struct {
	mu      sync.Mutex
	current int
	calls   []int
}

func (r *gcRecorder) set(percent int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.current
	r.current = percent
	r.calls = append(r.calls, percent)
	return prev
}

func (r *gcRecorder) state() (int, []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current, slices.Clone(r.calls)
}

// TestBuildGC: lower sets the build's percent and restore the one found;
// a process percent already as low, the collector off, a zero percent and
// a nil buildGC are left alone; lowering twice restores once.
func TestBuildGC(t *testing.T) {
	for _, tc := range []struct {
		name           string
		build, process int
		wantLowered    int
		wantCalls      []int // of two lowers
	}{
		{"lowered", 20, 50, 20, []int{20}},
		{"the process's is lower", 20, 10, 10, []int{20, 10, 20, 10}},
		{"the same", 20, 20, 20, []int{20, 20, 20, 20}},
		{"the collector off", 20, -1, -1, []int{20, -1, 20, -1}},
		{"no build percent", 0, 50, 50, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &gcRecorder{current: tc.process}
			g := &buildGC{percent: tc.build, set: r.set}
			g.lower()
			g.lower()
			if cur, calls := r.state(); cur != tc.wantLowered || !slices.Equal(calls, tc.wantCalls) {
				t.Errorf("lowered: percent %d, calls %v; want %d, %v", cur, calls, tc.wantLowered, tc.wantCalls)
			}
			g.restore()
			g.restore()
			if cur, calls := r.state(); cur != tc.process || len(calls) > len(tc.wantCalls)+1 {
				t.Errorf("restored: percent %d (calls %v), want %d", cur, calls, tc.process)
			}
		})
	}
	var none *buildGC
	none.lower()
	none.restore()
}

// TestLoopLowersGCInWholeBuilds: with WholeBuildGCPercent, the first sync
// runs lowered (from before the source's first reading), as does a sync
// whose build is whole (a Secret changed); an incremental sync (an
// endpoint) leaves the collector alone; the percent is restored after
// each.
func TestLoopLowersGCInWholeBuilds(t *testing.T) {
	r := &gcRecorder{current: 50}
	// Ingresses of another Service, so that an endpoint of app touches
	// less than half of them
	var others string
	for i := range 3 {
		others += fmt.Sprintf(`---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: other%d, namespace: t}
spec:
  ingressClassName: nginx
  rules: [{host: other%d.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: other, port: {number: 80}}}}]}}]
`, i, i)
	}
	first := snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()+others)
	var c *Controller
	var atSourceRun int
	lt := startLoop(t, first, func(cfg *Config, _ *fakeNginx) {
		cfg.WholeBuildGCPercent = 20
		cfg.Source = runHook{Source: cfg.Source, run: func() { atSourceRun, _ = r.state() }}
	}, func(ctl *Controller) {
		c = ctl
		ctl.buildGC.set = r.set
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	if c != lt.c {
		t.Fatal("the hook saw another controller")
	}
	eventually(t, 5*time.Second, "the first sync's percent restored", func() bool {
		cur, calls := r.state()
		return cur == 50 && slices.Equal(calls, []int{20, 50})
	})
	if atSourceRun != 20 {
		t.Errorf("the source's first reading ran at GC percent %d, want 20", atSourceRun)
	}

	// the same objects but the EndpointSlices, as a source hands them on
	endpoints := first
	endpoints.EndpointSlices = snapshot(t, app{ports: []int{18001, 18002}, paths: []string{"/"}}.yaml()).EndpointSlices
	lt.src.set(endpoints)
	eventually(t, 5*time.Second, "new endpoints in Lua", func() bool { return len(lt.lua.endpoints("t-app-80")) == 2 })
	eventually(t, 5*time.Second, "the endpoints' sync ended", func() bool { return !lt.c.Stats().Busy })
	if _, calls := r.state(); len(calls) != 2 {
		t.Fatalf("an incremental sync set the GC percent: calls %v (last build %+v)", calls, c.state.builder.Last)
	}

	secret := endpoints
	secret.Secrets = snapshot(t, `apiVersion: v1
kind: Secret
metadata: {name: unrelated, namespace: t}
stringData: {a: b}
`).Secrets
	lt.src.set(secret)
	eventually(t, 5*time.Second, "the whole build's percent restored", func() bool {
		cur, calls := r.state()
		return cur == 50 && slices.Equal(calls, []int{20, 50, 20, 50})
	})
}

// runHook is a Source that calls run as its Run starts.
type runHook struct {
	Source
	run func()
}

func (h runHook) Run(ctx context.Context, changed func()) error {
	h.run()
	return h.Source.Run(ctx, changed)
}

// TestLoopLowersGCUntilNginxStarts: a first sync whose start failed is
// retried lowered as well (it is not a whole build any more, but it
// preloads every payload and starts nginx).
func TestLoopLowersGCUntilNginxStarts(t *testing.T) {
	r := &gcRecorder{current: 50}
	var failed atomic.Bool
	lt := startLoop(t, snapshot(t, app{ports: []int{18001}, paths: []string{"/"}}.yaml()), func(cfg *Config, n *fakeNginx) {
		cfg.WholeBuildGCPercent = 20
		cfg.RetryBase, cfg.RetryMax = 10*time.Millisecond, 10*time.Millisecond
		n.startErr = func() error {
			if failed.CompareAndSwap(false, true) {
				return errors.New("bind() to 127.0.0.1:80 failed (98: Address already in use)")
			}
			return nil
		}
	}, func(ctl *Controller) { ctl.buildGC.set = r.set })
	eventually(t, 5*time.Second, "first config after a failed start", lt.c.Ready)
	eventually(t, 5*time.Second, "both syncs lowered and restored", func() bool {
		cur, calls := r.state()
		return cur == 50 && slices.Equal(calls, []int{20, 50, 20, 50})
	})
}
