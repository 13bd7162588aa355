package e2e

// Backend updates without a reload while traffic runs, and a reload: the
// workers it forks serve the current backends from their first request.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadUntil sends requests made by mk with workers goroutines sharing c
// until stop is closed, and tallies the answers; sent counts the answers
// as they come, so that a test waits on the load's progress.
func loadUntil(c *http.Client, workers int, stop <-chan struct{}, sent *atomic.Int64, mk func(i int) *http.Request) *tally {
	ta := newTally()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += workers {
				select {
				case <-stop:
					return
				default:
				}
				ta.add(send(c, mk(i)))
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	return ta
}

func TestBackendUpdatesUnderLoadLoseNothing(t *testing.T) {
	pool := startBackends(t, "u", 5)
	pick := func(idx ...int) []*backend {
		out := make([]*backend, 0, len(idx))
		for _, i := range idx {
			out = append(out, pool[i])
		}
		return out
	}
	hosts := []string{"rr.example.com", "ewma.example.com", "chash.example.com"}
	manifests := func(bs []*backend) string {
		return serviceOf("rr", bs...) + ingressOf("rr", hosts[0], "rr", "2026-01-01T00:00:00Z", nil) +
			serviceOf("ewma", bs...) + ingressOf("ewma", hosts[1], "ewma", "2026-01-01T00:00:01Z", map[string]string{"load-balance": "ewma"}) +
			serviceOf("chash", bs...) + ingressOf("chash", hosts[2], "chash", "2026-01-01T00:00:02Z", map[string]string{"upstream-hash-by": "$request_uri"})
	}
	n := startNginx(t, manifests(pick(0, 1, 2)))
	before, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}

	// Endpoints added and removed while 8 clients send requests; every set
	// keeps at least one endpoint (an empty set answers 503, by design).
	steps := [][]int{{0, 1, 2, 3}, {1, 2, 3}, {1, 3, 4}, {4}, {0, 4}, {0, 1, 2, 3, 4}, {2}, {0, 1, 2}}
	// Each set serves a share of the load: the test waits for
	// requestsPerStep more answers after each push (not for a time).
	const requestsPerStep = 200
	stop := make(chan struct{})
	result := make(chan *tally)
	var sent atomic.Int64
	go func() {
		result <- loadUntil(newClient(8), 8, stop, &sent, func(i int) *http.Request {
			return n.request(hosts[i%len(hosts)], "/item/"+string(rune('a'+i%26)))
		})
	}()
	moreRequests := func(step int) {
		target := sent.Load() + requestsPerStep
		waitFor(t, 30*time.Second, fmt.Sprintf("%d answers after step %d", requestsPerStep, step), func() bool { return sent.Load() >= target })
	}
	moreRequests(0)
	for i, s := range steps {
		n.push(t, manifests(pick(s...)))
		moreRequests(i + 1)
	}
	close(stop)
	ta := <-result
	if ta.failures > 0 || ta.total < 500 {
		t.Fatalf("%d requests during %d pushes: %s", ta.total, len(steps), ta)
	}
	for _, b := range pool {
		if ta.byName[b.name] == 0 {
			t.Errorf("%s never served though it was pushed: %s", b.name, ta)
		}
	}
	t.Logf("%d requests during %d pushes, none lost: %s", ta.total, len(steps), ta)

	// After the last push only its endpoints serve, on every worker.
	final := map[string]bool{"u-0": true, "u-1": true, "u-2": true}
	check := func(t *testing.T, what string) {
		t.Helper()
		for i := range 24 {
			c := newClient(1) // a new connection: either worker
			r := send(c, n.request(hosts[i%len(hosts)], "/x"))
			if r.err != nil || r.status != http.StatusOK || !final[r.backend] {
				t.Fatalf("%s: %s: %d %q %v, want one of %v", what, hosts[i%len(hosts)], r.status, r.backend, r.err, final)
			}
		}
	}
	check(t, "after the pushes")
	if after, err := n.inst.WorkerPids(); err != nil || !slices.Equal(before, after) {
		t.Fatalf("worker pids changed from %v to %v (%v): a reload happened", before, after, err)
	}

	t.Run("workers forked by a reload serve at once", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := n.inst.Reload(ctx, n.conf); err != nil {
			t.Fatal(err)
		}
		after, err := n.inst.WorkerPids()
		if err != nil || !slices.ContainsFunc(after, func(p int) bool { return !slices.Contains(before, p) }) {
			t.Fatalf("no new worker after the reload: pids %v, then %v (%v)", before, after, err)
		}
		// New connections reach only the new workers (the old ones closed
		// their listeners); they must know the backends before any push.
		check(t, "right after the reload")
	})
}
