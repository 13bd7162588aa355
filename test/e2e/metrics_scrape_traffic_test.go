package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// Bounds of TestRequestMetricsScrapeDuringTraffic. requestBound is far
// above what a request takes here (milliseconds) and far below what a
// request waiting on a scrape would take: the test tells "never blocks"
// from "answers", it measures nothing.
const (
	scrapeTrafficHosts    = 20
	scrapeTrafficClients  = 4
	scrapeTrafficMinReqs  = 400
	scrapeTrafficMinScrap = 20
	requestBound          = 3 * time.Second
	scrapeTrafficDeadline = 60 * time.Second
)

// TestRequestMetricsScrapeDuringTraffic: /metrics is scraped back to back
// (each scrape reads the request totals of nginx's shared dict through the
// status server) while clients send requests to 20 Ingresses through a
// real nginx. Every request answers 200 within requestBound, every
// scrape succeeds, and afterwards the counters hold exactly the requests
// sent: a scrape neither blocks nor loses a request.
func TestRequestMetricsScrapeDuringTraffic(t *testing.T) {
	web := namedBackend(t, "web")
	files := map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml": serviceYAML("web", web),
	}
	host := func(i int) string { return fmt.Sprintf("h%02d.example.com", i) }
	for i := range scrapeTrafficHosts {
		files[fmt.Sprintf("ing/h%02d.yaml", i)] = filesIngress(fmt.Sprintf("h%02d", i), host(i), nil, "/", "web")
	}
	fc := startRequestMetricsController(t, files, controller.DefaultRequestMetricsOptions())
	for i := range scrapeTrafficHosts {
		fc.eventuallyServes(t, 20*time.Second, host(i), "/", 200, "web")
	}
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()
	series := func(i int) string {
		return `nginx_ingress_controller_requests{canary="",` + ingressNginxConst + `,host="` + host(i) + `",ingress="` + fmt.Sprintf("h%02d", i) +
			`",method="GET",namespace="e2e",path="/",service="web",status="200"}`
	}
	// What eventuallyServes sent is counted too: wait until every host
	// shows, then count from there.
	base := make([]float64, scrapeTrafficHosts)
	waitFor(t, 10*time.Second, "every host on /metrics", func() bool {
		text := scrape(t, srv.URL)
		for i := range base {
			if base[i] = metricValue(t, text, series(i)); base[i] < 1 {
				return false
			}
		}
		return true
	})
	// A worker flushes its counts every second: settled is the same
	// totals for longer than that.
	var first string
	var since time.Time
	waitFor(t, 10*time.Second, "the counters to settle", func() bool {
		text := requestLines(scrape(t, srv.URL))
		if text != first {
			first, since = text, time.Now()
		}
		return time.Since(since) > 1500*time.Millisecond
	})
	for i := range base {
		base[i] = metricValue(t, first, series(i))
	}

	// The scraper: back to back until the clients are done.
	var (
		scrapes    atomic.Int64
		scrapeErrs []error
		stop       = make(chan struct{})
		scraperWG  sync.WaitGroup
		scrapeTime []time.Duration
	)
	scraperWG.Go(func() {
		hc := &http.Client{Timeout: 30 * time.Second}
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			resp, err := hc.Get(srv.URL + "/metrics")
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("GET /metrics: %s", resp.Status)
				}
			}
			if err != nil {
				scrapeErrs = append(scrapeErrs, err)
				return
			}
			scrapeTime = append(scrapeTime, time.Since(start))
			scrapes.Add(1)
		}
	})

	// The clients: each on its own keep-alive connection, round robin over
	// the hosts, until enough requests and scrapes overlapped (bounded by
	// scrapeTrafficDeadline).
	type result struct {
		sent    []int // per host
		slowest time.Duration
		times   []time.Duration
		err     error
	}
	results := make([]result, scrapeTrafficClients)
	var sent atomic.Int64
	deadline := time.Now().Add(scrapeTrafficDeadline)
	scrapesAtStart := scrapes.Load()
	var clientsWG sync.WaitGroup
	for c := range scrapeTrafficClients {
		clientsWG.Go(func() {
			r := &results[c]
			r.sent = make([]int, scrapeTrafficHosts)
			hc := &http.Client{Timeout: 10 * time.Second}
			for n := c; ; n++ {
				if (sent.Load() >= scrapeTrafficMinReqs && scrapes.Load()-scrapesAtStart >= scrapeTrafficMinScrap) || time.Now().After(deadline) {
					return
				}
				i := n % scrapeTrafficHosts
				req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(fc.httpPort)+"/", nil)
				if err != nil {
					r.err = err
					return
				}
				req.Host = host(i)
				start := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					r.err = fmt.Errorf("GET %s/: %w", host(i), err)
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took := time.Since(start)
				if err != nil || resp.StatusCode != http.StatusOK {
					r.err = fmt.Errorf("GET %s/: %d %v", host(i), resp.StatusCode, err)
					return
				}
				r.sent[i]++
				sent.Add(1)
				r.times = append(r.times, took)
				r.slowest = max(r.slowest, took)
			}
		})
	}
	clientsWG.Wait()
	overlapped := scrapes.Load() - scrapesAtStart
	close(stop)
	scraperWG.Wait()

	for _, err := range scrapeErrs {
		t.Errorf("scrape: %v", err)
	}
	var times []time.Duration
	want := slices.Clone(base)
	for c, r := range results {
		if r.err != nil {
			t.Errorf("client %d: %v", c, r.err)
		}
		if r.slowest > requestBound {
			t.Errorf("client %d: a request took %v, want at most %v while /metrics is scraped", c, r.slowest, requestBound)
		}
		for i, n := range r.sent {
			want[i] += float64(n)
		}
		times = append(times, r.times...)
	}
	if t.Failed() {
		return
	}
	if sent.Load() < scrapeTrafficMinReqs || overlapped < scrapeTrafficMinScrap {
		t.Fatalf("in %v: %d requests and %d scrapes overlapped, want at least %d and %d", scrapeTrafficDeadline, sent.Load(), overlapped, scrapeTrafficMinReqs, scrapeTrafficMinScrap)
	}

	// Every request counted once, under its host.
	counted := func(text string) bool {
		for i := range want {
			if metricValue(t, text, series(i)) != want[i] {
				return false
			}
		}
		return true
	}
	for end := time.Now().Add(10 * time.Second); ; {
		text := scrape(t, srv.URL)
		if counted(text) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the counters do not hold the requests sent (base %v, sent %v):\n%s", base, want, requestLines(text))
		}
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(times)
	slices.Sort(scrapeTime)
	t.Logf("%d requests by %d clients during %d scrapes: request p50 %v p99 %v max %v; scrape p50 %v max %v",
		len(times), scrapeTrafficClients, overlapped, times[len(times)/2], times[len(times)*99/100], times[len(times)-1],
		scrapeTime[len(scrapeTime)/2], scrapeTime[len(scrapeTime)-1])
}
