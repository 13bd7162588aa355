package e2e

// Helpers for the balancer, canary and update tests: groups of named
// backends, Services with several endpoints, Ingresses with annotations,
// and a small worker pool that sends many requests through nginx and
// counts which backend answered.

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// backend is one loopback HTTP server that answers with its name (body
// and X-Backend header), after delay.
type backend struct {
	name string
	port int
	srv  *httptest.Server
}

// startBackend starts a named backend; it stops at the end of the test or
// when stop is called.
func startBackend(t testing.TB, name string, delay time.Duration) *backend {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Header().Set("X-Backend", name)
		fmt.Fprintf(w, "%s %s", name, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return &backend{name: name, port: srv.Listener.Addr().(*net.TCPAddr).Port, srv: srv}
}

// stop closes the backend's listener and connections: its port refuses.
func (b *backend) stop() { b.srv.Close() }

// startBackends starts n backends called prefix-0 … prefix-(n-1).
func startBackends(t *testing.T, prefix string, n int) []*backend {
	t.Helper()
	out := make([]*backend, n)
	for i := range out {
		out[i] = startBackend(t, prefix+"-"+strconv.Itoa(i), 0)
	}
	return out
}

// serviceOf is nsServiceOf in namespace e2e.
func serviceOf(name string, bs ...*backend) string {
	return nsServiceOf("e2e", name, bs...)
}

// nsServiceOf is a Service of namespace ns named name whose endpoints are
// 127.0.0.1 on the ports of bs: one EndpointSlice per backend, as the
// endpoints differ by port only.
func nsServiceOf(ns, name string, bs ...*backend) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Service
metadata: {name: %s, namespace: %s}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
`, name, ns)
	for i, be := range bs {
		fmt.Fprintf(&b, `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-%[2]d
  namespace: %[4]s
  labels: {kubernetes.io/service-name: %[1]s}
addressType: IPv4
ports: [{name: http, port: %[3]d}]
endpoints: [{addresses: ["127.0.0.1"], conditions: {ready: true}}]
---
`, name, i, be.port, ns)
	}
	return b.String()
}

// ingressOf is an Ingress of namespace e2e for host / (Prefix) to
// service:80 with the nginx.ingress.kubernetes.io/ annotations given
// (without their prefix). created orders Ingresses as ingress-nginx does
// (oldest first).
func ingressOf(name, host, service, created string, annotations map[string]string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		pairs = append(pairs, k, annotations[k])
	}
	return nsIngressOf("e2e", name, created, host, "Prefix", "/", service, pairs...)
}

// nsIngressOf is an Ingress of namespace ns on host with one path to
// service:80 and the annotations given as name, value pairs (without
// their prefix).
func nsIngressOf(ns, name, created, host, pathType, path, service string, annotations ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: %s\n  creationTimestamp: %q\n", name, ns, created)
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n")
		for i := 0; i+1 < len(annotations); i += 2 {
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", annotations[i], annotations[i+1])
		}
	}
	fmt.Fprintf(&b, `spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: %q, pathType: %s, backend: {service: {name: %s, port: {number: 80}}}}
---
`, host, path, pathType, service)
	return b.String()
}

// client is an HTTP client for load: kept-alive connections, up to
// conns of them (a kept-alive connection stays with one nginx worker; the
// kernel spreads new ones over both).
func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// reply is what one request through nginx gave.
type reply struct {
	status  int
	backend string // X-Backend of the answer, "" when none
	header  http.Header
	err     error
}

// send sends req with c and reads the whole answer.
func send(c *http.Client, req *http.Request) reply {
	resp, err := c.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return reply{status: resp.StatusCode, err: err}
	}
	return reply{status: resp.StatusCode, backend: resp.Header.Get("X-Backend"), header: resp.Header}
}

// request is GET http://127.0.0.1:<http port><path> with Host host and
// the headers given as name, value pairs. It may run on any goroutine.
func (n *liveNginx) request(host, path string, headers ...string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+path, nil)
	if err != nil {
		panic(err) // a bad path in the test itself
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	return req
}

// tally counts answers by backend; errors and non-200 answers are kept
// apart (at most a few of each are remembered for the message).
type tally struct {
	mu       sync.Mutex
	byName   map[string]int
	total    int
	failures int
	examples []string
}

func newTally() *tally { return &tally{byName: map[string]int{}} }

func (ta *tally) add(r reply) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ta.total++
	if r.err != nil || r.status != http.StatusOK {
		ta.failures++
		if len(ta.examples) < 5 {
			ta.examples = append(ta.examples, fmt.Sprintf("status %d, err %v", r.status, r.err))
		}
		return
	}
	ta.byName[r.backend]++
}

func (ta *tally) String() string {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	names := make([]string, 0, len(ta.byName))
	for k := range ta.byName {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names)+1)
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%d", k, ta.byName[k]))
	}
	if ta.failures > 0 {
		parts = append(parts, fmt.Sprintf("failures=%d %v", ta.failures, ta.examples))
	}
	return strings.Join(parts, " ")
}

// load sends count requests made by mk (given the request's index) with
// workers goroutines sharing one client, and tallies the answers.
func load(c *http.Client, count, workers int, mk func(i int) *http.Request) *tally {
	ta := newTally()
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ta.add(send(c, mk(i)))
			}
		}()
	}
	for i := range count {
		next <- i
	}
	close(next)
	wg.Wait()
	return ta
}

// within reports whether got is want ± tolerance (a fraction of want).
func within(got, want int, tolerance float64) bool {
	d := float64(got - want)
	return d <= tolerance*float64(want) && -d <= tolerance*float64(want)
}
