package controller

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fakeSource holds a snapshot that tests replace with set.
type fakeSource struct {
	mu      sync.Mutex
	snap    render.Snapshot
	changed func()
	ready   chan struct{}
}

func newFakeSource(s render.Snapshot) *fakeSource {
	return &fakeSource{snap: s, ready: make(chan struct{})}
}

func (f *fakeSource) Run(ctx context.Context, changed func()) error {
	f.mu.Lock()
	f.changed = changed
	f.mu.Unlock()
	close(f.ready)
	<-ctx.Done()
	return nil
}

func (f *fakeSource) WaitForSync(ctx context.Context) bool {
	select {
	case <-f.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

func (f *fakeSource) Snapshot() (render.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, nil
}

// set replaces the snapshot and signals the change, as an informer would.
func (f *fakeSource) set(s render.Snapshot) {
	f.mu.Lock()
	f.snap = s
	changed := f.changed
	f.mu.Unlock()
	changed()
}

// fakeNginx is an nginx that records what it was asked.
type fakeNginx struct {
	mu      sync.Mutex
	starts  int
	reloads int // attempts, failed ones included
	conf    []byte
	done    chan struct{}
	// startErr and reloadErr, when set, decide the error of a call.
	startErr  func() error
	reloadErr func(conf []byte) error
}

func (f *fakeNginx) Start(_ context.Context, conf []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	if f.startErr != nil {
		if err := f.startErr(); err != nil {
			return err
		}
	}
	f.conf = conf
	f.done = make(chan struct{})
	return nil
}

func (f *fakeNginx) Reload(_ context.Context, conf []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	if f.reloadErr != nil {
		if err := f.reloadErr(conf); err != nil {
			return err
		}
	}
	f.conf = conf
	return nil
}

func (f *fakeNginx) Stop(context.Context) error {
	f.kill()
	return nil
}

// kill ends the master, as a crash would.
func (f *fakeNginx) kill() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done != nil && !isClosed(f.done) {
		close(f.done)
	}
}

func (f *fakeNginx) Done() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}

func (f *fakeNginx) counts() (starts, reloads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts, f.reloads
}

func (f *fakeNginx) serves(substr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Contains(f.conf, []byte(substr))
}

// fakeLua records the payloads posted.
type fakeLua struct {
	mu       sync.Mutex
	backends [][]luaapi.Backend
	servers  int
}

func (f *fakeLua) PostBackends(_ context.Context, b []luaapi.Backend) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backends = append(f.backends, b)
	return nil
}

func (f *fakeLua) PostServers(context.Context, luaapi.Servers) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers++
	return nil
}

func (f *fakeLua) backendPosts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.backends)
}

// endpoints returns the endpoints of backend name in the last post.
func (f *fakeLua) endpoints(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.backends) == 0 {
		return nil
	}
	var out []string
	for _, b := range f.backends[len(f.backends)-1] {
		if b.Name == name {
			for _, e := range b.Endpoints {
				out = append(out, e.Address+":"+e.Port)
			}
		}
	}
	return out
}

// recordingReporter keeps the problems of every call; onReport, when
// set, is called with them (from the loop's goroutine).
type recordingReporter struct {
	mu       sync.Mutex
	last     []model.Problem
	calls    int
	history  [][]model.Problem
	onReport func([]model.Problem)
}

func (r *recordingReporter) ReportProblems(_ context.Context, ps []model.Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = append([]model.Problem(nil), ps...)
	r.history = append(r.history, r.last)
	r.calls++
	if r.onReport != nil {
		r.onReport(r.last)
	}
}

// since returns the problem lists of the calls after the first n.
func (r *recordingReporter) since(n int) [][]model.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.history[n:]
}

func (r *recordingReporter) callCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

func (r *recordingReporter) problems() []model.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// app is the manifests of one Service "app" in namespace "t" with the
// given endpoint ports on 127.0.0.1 and one Ingress for app.example.com
// with the given paths; annotations are added to the Ingress.
type app struct {
	ports       []int
	paths       []string
	annotations map[string]string
}

func (a app) yaml() string {
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: Service
metadata: {name: app, namespace: t}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
`)
	for i, p := range a.ports {
		fmt.Fprintf(&b, `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: app-%d
  namespace: t
  labels: {kubernetes.io/service-name: app}
addressType: IPv4
ports: [{name: http, port: %d}]
endpoints: [{addresses: ["127.0.0.1"], conditions: {ready: true}}]
---
`, i, p)
	}
	b.WriteString(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app
  namespace: t
  creationTimestamp: "2026-01-01T00:00:00Z"
  annotations:
`)
	fmt.Fprintf(&b, "    kubectl-ingress.test/ignored: \"x\"\n")
	for k, v := range a.annotations {
		fmt.Fprintf(&b, "    %s: %q\n", k, v)
	}
	b.WriteString(`spec:
  ingressClassName: nginx
  rules:
  - host: app.example.com
    http:
      paths:
`)
	for _, p := range a.paths {
		fmt.Fprintf(&b, "      - {path: %s, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}\n", p)
	}
	b.WriteString("---\n" + ingressClassYAML)
	return b.String()
}

const ingressClassYAML = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
`

// snapshot reads manifests through the manifest package, as the files
// source does.
func snapshot(t testing.TB, manifests string) render.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := manifest.Read([]string{dir}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

// eventually polls cond every 10 ms until it holds or timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
