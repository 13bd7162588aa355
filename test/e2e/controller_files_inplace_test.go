package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
)

// In-place edits of the files source (issue 11): a manifest file rewritten
// in place (truncated, then written) was read half-written, and a route
// that never changed answered 404 (1,095 of 12,780 requests). Here the file
// that holds two untouched routes is rewritten in place again and again
// while clients ask for those routes. Each rewrite truncates the file,
// waits until the files source has tried to read it empty, writes half of
// it, waits until the source has tried to read it half-written, then
// writes the rest: every rewrite is two races the source has to win (with
// the source reading whatever is there, the same edits gave 45,865 404s in
// 124,732 requests). Named pipes and a link to /dev/zero sit in the
// directory meanwhile.
//
// Length: rewrites (each a reload: a path changes) for at least
// inPlaceMinDuration, and at least inPlaceMinEdits rewrites and
// inPlaceMinRequests requests, whichever takes longest (issue 11: no 404
// over 10,000 requests during 150 s of in-place edits).
const (
	inPlaceMinDuration = 150 * time.Second
	inPlaceMinEdits    = 50
	inPlaceMinRequests = 10000
	inPlaceMaxEdits    = 20000
)

func TestFilesControllerInPlaceEdits(t *testing.T) {
	if !specialfiles.LeasesWork(t) {
		t.Skip("this system grants no read leases (fcntl F_SETLEASE): a file rewritten in place is read as it is")
	}
	alpha, beta := namedBackend(t, "alpha"), namedBackend(t, "beta")
	// shop.example.com/ and stable.example.com/ never change; /vN does.
	edited := func(n int) string {
		return filesIngress("shop", "shop.example.com", nil, "/", "web", fmt.Sprintf("/v%d", n), "other") +
			"---\n" + strings.Replace(filesIngress("stable", "stable.example.com", nil, "/", "web"), "00:00:00Z", "00:00:01Z", 1)
	}
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":     "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":   serviceYAML("web", alpha),
		"svc/other.yaml": serviceYAML("other", beta),
		"ing/shop.yaml":  edited(0),
	}, controllerOptions{debounce: time.Millisecond})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/v0", 200, "beta /v0")
	fc.eventuallyServes(t, 10*time.Second, "stable.example.com", "/", 200, "alpha /")

	// Entries that must never be read, added while the controller runs.
	specialfiles.Fifo(t, filepath.Join(fc.dir, "fifo.yaml"))
	specialfiles.Fifo(t, filepath.Join(fc.dir, "ing/fifo.json"))
	specialfiles.DevZero(t, filepath.Join(fc.dir, "zero.yaml"))

	var (
		stop     atomic.Bool
		requests atomic.Int64
		mu       sync.Mutex
		statuses = map[string]int{} // "host status" → count, non-200 only
		wg       sync.WaitGroup
	)
	hosts := []string{"shop.example.com", "stable.example.com"}
	for i := range 4 {
		// A transport per client, used by one request at a time: it keeps
		// one connection and never dials a spare one that no request uses
		// (http.DefaultTransport shared by 4 clients does, and nginx's
		// graceful stop waits for such a connection until its
		// client_header_timeout). Closed when the traffic stops.
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		wg.Go(func() {
			for n := i; !stop.Load(); n++ {
				host := hosts[n%len(hosts)]
				code, body := fc.getVia(tr, host, "/")
				requests.Add(1)
				if code != 200 || !strings.HasPrefix(body, "alpha /") {
					mu.Lock()
					statuses[fmt.Sprintf("%s %d", host, code)]++
					mu.Unlock()
				}
			}
		})
	}

	path := filepath.Join(fc.dir, "ing", "shop.yaml")
	// The files source's log line for a file open for writing (at -v 1).
	busyLine := fmt.Sprintf("file=%q lastGood=", path)
	start, before := time.Now(), fc.c.Stats()
	edits := 0
	for edits < inPlaceMinEdits || requests.Load() < inPlaceMinRequests || time.Since(start) < inPlaceMinDuration {
		if edits == inPlaceMaxEdits {
			t.Fatalf("%d requests after %d edits", requests.Load(), edits)
		}
		edits++
		content := edited(edits)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Empty, then half-written: each state is read at least once.
		for _, part := range []string{"", content[:len(content)/2]} {
			busy := strings.Count(fc.logs.String(), busyLine)
			if _, err := f.WriteString(part); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, fmt.Sprintf("edit %d: a read of the file with %d of its %d bytes", edits, len(part), len(content)), func() bool {
				return strings.Count(fc.logs.String(), busyLine) > busy
			})
		}
		if _, err := f.WriteString(content[len(content)/2:]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		fc.eventuallyServes(t, 10*time.Second, "shop.example.com", fmt.Sprintf("/v%d", edits), 200, fmt.Sprintf("beta /v%d", edits))
	}
	stop.Store(true)
	wg.Wait()
	after := fc.c.Stats()

	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d in-place edits (each read empty and half-written) in %v: %d requests to the untouched routes, %d reloads; answers other than 200 from alpha: %v",
		edits, time.Since(start).Round(time.Millisecond), requests.Load(), after.Reloads-before.Reloads, statuses)
	for key, n := range statuses {
		t.Errorf("%d answers %s on an untouched route", n, key)
	}
	if after.ReloadErrors != before.ReloadErrors {
		t.Errorf("%d reload errors", after.ReloadErrors-before.ReloadErrors)
	}
	for _, name := range []string{"fifo.yaml", "ing/fifo.json", "zero.yaml"} {
		if !strings.Contains(fc.logs.String(), fmt.Sprintf("file=%q kind=", filepath.Join(fc.dir, name))) {
			t.Errorf("no log line for %s", name)
		}
	}
}
