package controller

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// runFileSource runs a FileSource on dir and counts its changed calls.
func runFileSource(t *testing.T, dir string) (*FileSource, *atomic.Int64, *lockedBuffer) {
	t.Helper()
	fs, err := NewFileSource(dir, FileSourceOptions{Debounce: 20 * time.Millisecond, MaxDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int64
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(logs)))))
	done := make(chan error, 1)
	go func() { done <- fs.Run(ctx, func() { changes.Add(1) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if !fs.WaitForSync(ctx) {
		t.Fatal("no first read")
	}
	return fs, &changes, logs
}

// lockedBuffer is a bytes.Buffer safe for the logger's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ingressCount(fs *FileSource) int {
	s, _ := fs.Snapshot()
	return len(s.Ingresses)
}

func TestFileSourceWatchesTheTree(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.yaml"), app{ports: []int{1}, paths: []string{"/"}}.yaml())
	fs, changes, _ := runFileSource(t, dir)
	if n := ingressCount(fs); n != 1 {
		t.Fatalf("%d ingresses after the first read", n)
	}
	// A directory made after the start, then a file in it.
	other := strings.ReplaceAll(app{ports: []int{2}, paths: []string{"/"}}.yaml(), "name: app", "name: other")
	other = strings.ReplaceAll(other, "name: app-", "name: other-")
	other = strings.ReplaceAll(other, "kind: IngressClass\nmetadata: {name: nginx}", "kind: IngressClass\nmetadata: {name: nginx2}")
	write(t, filepath.Join(dir, "sub", "deeper", "b.yaml"), other)
	eventually(t, 5*time.Second, "the file in the new subdirectory", func() bool { return ingressCount(fs) == 2 })
	if changes.Load() == 0 {
		t.Fatal("no changed call")
	}
	// Removing the directory removes its objects.
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the removal", func() bool { return ingressCount(fs) == 1 })
	// Other files do not trigger reads.
	before := changes.Load()
	write(t, filepath.Join(dir, "notes.txt"), "x")
	write(t, filepath.Join(dir, ".a.yaml.swp"), "x")
	time.Sleep(200 * time.Millisecond)
	if changes.Load() != before {
		t.Error("a non-manifest file triggered a read")
	}
}

func TestFileSourceKeepsLastGoodSnapshot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	write(t, path, app{ports: []int{1}, paths: []string{"/"}}.yaml())
	fs, _, logs := runFileSource(t, dir)
	write(t, filepath.Join(dir, "broken.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: x\n")
	eventually(t, 5*time.Second, "the read error", func() bool { return fs.LastError() != "" })
	if n := ingressCount(fs); n != 1 {
		t.Fatalf("%d ingresses after a bad file; want the last good snapshot", n)
	}
	// Another write of the same bad file: logged once.
	write(t, filepath.Join(dir, "broken.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: x\n")
	time.Sleep(200 * time.Millisecond)
	if n := strings.Count(logs.String(), "Reading the manifests failed"); n != 1 {
		t.Errorf("the same error logged %d times", n)
	}
	if err := os.Remove(filepath.Join(dir, "broken.yaml")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "a good read again", func() bool { return fs.LastError() == "" })
}

func TestFileSourceDebouncesBursts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	write(t, path, app{ports: []int{1}, paths: []string{"/"}}.yaml())
	fs, changes, _ := runFileSource(t, dir)
	for i := 0; i < 200; i++ {
		write(t, path, app{ports: []int{1000 + i}, paths: []string{"/"}}.yaml())
	}
	eventually(t, 5*time.Second, "the last write", func() bool {
		s, _ := fs.Snapshot()
		return len(s.EndpointSlices) == 1 && *s.EndpointSlices[0].Ports[0].Port == 1199
	})
	time.Sleep(100 * time.Millisecond)
	t.Logf("200 writes → %d reads", changes.Load())
	if n := changes.Load(); n > 50 {
		t.Errorf("200 writes made %d reads", n)
	}
}

func TestNewFileSourceNeedsADirectory(t *testing.T) {
	if _, err := NewFileSource(filepath.Join(t.TempDir(), "missing"), FileSourceOptions{}); err == nil {
		t.Error("a missing directory must fail")
	}
	f := filepath.Join(t.TempDir(), "f.yaml")
	write(t, f, "")
	if _, err := NewFileSource(f, FileSourceOptions{}); err == nil {
		t.Error("a file must fail")
	}
}

func TestLogReporterReportsOnce(t *testing.T) {
	var buf bytes.Buffer
	ctx := klog.NewContext(context.Background(), textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf))))
	r := NewLogReporter()
	a := model.Problem{Object: model.ObjectRef{Kind: "Ingress", Namespace: "t", Name: "a"}, Field: "metadata.annotations[x]", Reason: "bad"}
	b := model.Problem{Object: model.ObjectRef{Kind: "Ingress", Namespace: "t", Name: "b"}, Field: "spec.rules[0].host", Reason: "bad"}
	r.ReportProblems(ctx, []model.Problem{a})
	r.ReportProblems(ctx, []model.Problem{a, b})
	r.ReportProblems(ctx, []model.Problem{b, a})
	r.ReportProblems(ctx, []model.Problem{b})
	out := buf.String()
	if n := strings.Count(out, `"Problem" object="Ingress t/a"`); n != 1 {
		t.Errorf("problem a logged %d times:\n%s", n, out)
	}
	if n := strings.Count(out, `"Problem" object="Ingress t/b"`); n != 1 {
		t.Errorf("problem b logged %d times:\n%s", n, out)
	}
	if n := strings.Count(out, `"Problem resolved" object="Ingress t/a"`); n != 1 {
		t.Errorf("resolution of a logged %d times:\n%s", n, out)
	}
}

func TestDemoBackends(t *testing.T) {
	free := freeLoopbackPort(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	manifests := app{ports: []int{free, takenPort}, paths: []string{"/"}}.yaml() + fmt.Sprintf(`---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: remote
  namespace: t
  labels: {kubernetes.io/service-name: app}
addressType: IPv4
ports: [{name: http, port: %d}]
endpoints: [{addresses: ["192.0.2.1"]}]
`, free)
	src := newFakeSource(snapshot(t, manifests))
	d := WithDemoBackends(src)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, func() {}) }()
	if _, err := d.Snapshot(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("127.0.0.1:%d", free)
	if got := d.Addresses(); len(got) != 1 || got[0] != want {
		t.Fatalf("demo servers on %v, want only %s (the other port is taken, 192.0.2.1 is not loopback)", got, want)
	}
	resp, err := http.Get("http://" + want + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "service t/app at "+want+": GET /hello") {
		t.Errorf("answer %q", body)
	}
	// The endpoint leaves: its server closes.
	src.set(snapshot(t, app{ports: []int{takenPort}, paths: []string{"/"}}.yaml()))
	if _, err := d.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if got := d.Addresses(); len(got) != 0 {
		t.Errorf("demo servers left: %v", got)
	}
	cancel()
	<-done
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
