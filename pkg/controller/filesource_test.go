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

	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// runFileSource runs a FileSource on dir and counts its changed calls.
func runFileSource(t *testing.T, dir string) (*FileSource, *atomic.Int64, *lockedBuffer) {
	t.Helper()
	return runFileSourceWith(t, dir, FileSourceOptions{})
}

// runFileSourceWith runs a FileSource on dir with o (a 20 ms debounce and
// a 500 ms maximum delay unless set), logging at verbosity 1.
func runFileSourceWith(t *testing.T, dir string, o FileSourceOptions) (*FileSource, *atomic.Int64, *lockedBuffer) {
	t.Helper()
	setDefault(&o.Debounce, 20*time.Millisecond)
	setDefault(&o.MaxDelay, 500*time.Millisecond)
	fs, err := NewFileSource(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int64
	logs := &lockedBuffer{}
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(logs), textlogger.Verbosity(1)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	done := make(chan error, 1)
	// Each changed call notes the Ingresses of the snapshot it announces:
	// reads run one at a time and each one's call comes before the next
	// read, so the snapshot seen here is the one the call is about.
	seen := &sync.Map{}
	changedSaw.Store(fs, seen)
	t.Cleanup(func() { changedSaw.Delete(fs) })
	go func() {
		done <- fs.Run(ctx, func() {
			changes.Add(1)
			s, _ := fs.Snapshot()
			for _, ing := range s.Ingresses {
				seen.Store(ing.Namespace+"/"+ing.Name, true)
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return within 10 s of the end of its context")
		}
	})
	waitCtx, waitCancel := context.WithTimeout(ctx, 10*time.Second)
	defer waitCancel()
	if !fs.WaitForSync(waitCtx) {
		t.Fatal("no first read within 10 s")
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

// hasIngress tells whether the snapshot has Ingress t/name.
func hasIngress(fs *FileSource, name string) bool {
	s, _ := fs.Snapshot()
	for _, ing := range s.Ingresses {
		if ing.Namespace == "t" && ing.Name == name {
			return true
		}
	}
	return false
}

// fileIngressYAML is an Ingress t/name for host with one path.
func fileIngressYAML(name, host, path string) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %s, namespace: t}
spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: %s, pathType: Prefix, backend: {service: {name: app, port: {number: 80}}}}
`, name, host, path)
}

// changedSaw maps each FileSource of runFileSourceWith to the Ingresses
// (namespace/name) that its changed calls have announced.
var changedSaw sync.Map

// marker writes marker.yaml with Ingress t/marker-n and waits until a
// changed call has announced it: every event before it has been read, and
// every changed call before it made, by then.
func marker(t *testing.T, fs *FileSource, dir string, n int) {
	t.Helper()
	name := fmt.Sprintf("marker-%d", n)
	write(t, filepath.Join(dir, "marker.yaml"), fileIngressYAML(name, "marker.example.com", "/"))
	eventually(t, 5*time.Second, "a changed call announcing the marker "+name, func() bool {
		seen, ok := changedSaw.Load(fs)
		if !ok {
			return false
		}
		_, announced := seen.(*sync.Map).Load("t/" + name)
		return announced
	})
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
	// Other files do not trigger reads: after them, the marker's change is
	// the only one.
	marker(t, fs, dir, 1)
	before := changes.Load()
	write(t, filepath.Join(dir, "notes.txt"), "x")
	write(t, filepath.Join(dir, ".a.yaml.swp"), "x")
	marker(t, fs, dir, 2)
	if n := changes.Load() - before; n != 1 {
		t.Errorf("%d changed calls for non-manifest files and one manifest change, want 1", n)
	}
}

// A file that does not parse keeps its last good version while the other
// files' changes go on; a new file that never parsed is left out. Each
// error is logged once, naming the file.
func TestFileSourceKeepsLastGoodVersionOfEachFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.yaml"), app{ports: []int{1}, paths: []string{"/"}}.yaml())
	write(t, filepath.Join(dir, "b.yaml"), fileIngressYAML("b1", "b.example.com", "/"))
	fs, _, logs := runFileSource(t, dir)
	if !hasIngress(fs, "app") || !hasIngress(fs, "b1") {
		t.Fatalf("first read: %d Ingresses", ingressCount(fs))
	}

	broken := filepath.Join(dir, "a.yaml")
	write(t, broken, "apiVersion: v1\nkind: Service\nmetadata: {name: x\n")
	write(t, filepath.Join(dir, "new.yaml"), "apiVersion: v1\nkind: Service\nmetadata: [\n")
	eventually(t, 5*time.Second, "both errors", func() bool {
		return strings.Contains(fs.LastError(), broken+": document 1") && strings.Contains(fs.LastError(), "new.yaml: document 1")
	})
	if !hasIngress(fs, "app") {
		t.Fatal("the broken file's Ingress left the snapshot")
	}
	// Another file's change applies meanwhile.
	write(t, filepath.Join(dir, "b.yaml"), fileIngressYAML("b2", "b.example.com", "/"))
	eventually(t, 5*time.Second, "b.yaml's change", func() bool { return hasIngress(fs, "b2") && !hasIngress(fs, "b1") })
	if !hasIngress(fs, "app") {
		t.Fatal("the broken file's Ingress left the snapshot")
	}
	// The same bad content again: logged once.
	write(t, broken, "apiVersion: v1\nkind: Service\nmetadata: {name: x\n")
	marker(t, fs, dir, 1)
	out := logs.String()
	if n := strings.Count(out, "A manifest file does not read: its last good version stays in force until it changes"); n != 1 {
		t.Errorf("the broken file's error logged %d times:\n%s", n, out)
	}
	if n := strings.Count(out, "A manifest file does not read: it is left out until it changes"); n != 1 {
		t.Errorf("the new file's error logged %d times:\n%s", n, out)
	}
	if !strings.Contains(out, `file="`+broken+`"`) {
		t.Errorf("the log does not name %s:\n%s", broken, out)
	}

	// Fixed: its new version applies.
	write(t, broken, app{ports: []int{1}, paths: []string{"/"}}.yaml()+"---\n"+fileIngressYAML("a2", "a2.example.com", "/"))
	if err := os.Remove(filepath.Join(dir, "new.yaml")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the fixed file", func() bool { return hasIngress(fs, "a2") && fs.LastError() == "" })
	if !strings.Contains(logs.String(), "A manifest file reads again") {
		t.Error("no log line for the fixed file")
	}
}

// The same object in two files fails the combination: the last good
// snapshot stays, until one goes.
func TestFileSourceKeepsLastGoodSnapshotOnDuplicates(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.yaml"), app{ports: []int{1}, paths: []string{"/"}}.yaml())
	fs, _, logs := runFileSource(t, dir)
	write(t, filepath.Join(dir, "b.yaml"), fileIngressYAML("b", "b.example.com", "/")+"---\n"+fileIngressYAML("app", "dup.example.com", "/"))
	eventually(t, 5*time.Second, "the duplicate", func() bool { return strings.Contains(fs.LastError(), "Ingress t/app is defined twice") })
	if hasIngress(fs, "b") {
		t.Error("a snapshot with a duplicate was taken")
	}
	if n := strings.Count(logs.String(), "Combining the manifest files failed"); n != 1 {
		t.Errorf("logged %d times", n)
	}
	write(t, filepath.Join(dir, "b.yaml"), fileIngressYAML("b", "b.example.com", "/"))
	eventually(t, 5*time.Second, "a good read again", func() bool { return hasIngress(fs, "b") && fs.LastError() == "" })
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
	marker(t, fs, dir, 1)
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
	return testports.One(t)
}
