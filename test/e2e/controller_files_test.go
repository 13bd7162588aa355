package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// filesController is the controller of `--from-files DIR` on a temp
// directory, with a real nginx on loopback ports.
type filesController struct {
	runningController
	dir string
}

// runningController is a controller with its nginx, as the files and the
// cluster tests run it: requests to it and waits on it.
type runningController struct {
	c        *controller.Controller
	inst     *nginx.Instance
	httpPort int
	// httpsPort is nginx's HTTPS port.
	httpsPort int
	// statusAddr is the status server's IP:port (the Lua endpoint).
	statusAddr string
	logs       *syncBuffer
}

// get sends GET http://host/path to nginx; status 0 for a transport error.
func (rc *runningController) get(host, path string) (int, string) {
	return rc.getVia(http.DefaultTransport, host, path)
}

// getVia is get through the transport tr, with headers (name, value
// pairs).
func (rc *runningController) getVia(tr http.RoundTripper, host, path string, headers ...string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(rc.httpPort)+path, nil)
	if err != nil {
		return 0, err.Error()
	}
	req.Host = host
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// eventuallyServes waits until GET host/path answers status with a body
// that starts with prefix.
func (rc *runningController) eventuallyServes(t testing.TB, timeout time.Duration, host, path string, status int, prefix string) {
	t.Helper()
	var code int
	var body string
	waitFor(t, timeout, fmt.Sprintf("GET %s%s → %d %q", host, path, status, prefix), func() bool {
		code, body = rc.get(host, path)
		return code == status && strings.HasPrefix(body, prefix)
	})
}

// workerPids waits until nginx serves the nginx.conf on disk (the one the
// controller loaded last) and returns the sorted pids of the master's
// workers of that config, so that tests compare them to tell whether a
// reload happened. The condition is pkg/nginx's own reload wait seen from
// outside: GET /configuration/checksum answers md5(nginx.conf) on
// checksumRounds new connections in a row (an old worker that still
// accepts would answer its own config's), and the children that are not
// shutting down are the same before and after those requests. Old
// workers still draining connections after a reload are not counted, and
// nothing depends on how many processes there are or for how long.
func (rc *runningController) workerPids(t testing.TB) []int {
	t.Helper()
	var pids []int
	var why string
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ok bool
		if pids, ok, why = rc.servingWorkers(); ok {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not serve its nginx.conf on every worker within 20 s: %s", why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checksumRounds is how many new connections in a row must answer the
// checksum of nginx.conf.
const checksumRounds = 8

// servingWorkers makes one attempt of workerPids; why says what is not
// there yet.
func (rc *runningController) servingWorkers() (pids []int, ok bool, why string) {
	conf, err := os.ReadFile(rc.inst.ConfPath())
	if err != nil {
		return nil, false, err.Error()
	}
	want := nginx.Checksum(conf)
	before, err := liveWorkers(rc.inst)
	if err != nil {
		return nil, false, err.Error()
	}
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for range checksumRounds {
		resp, err := c.Get("http://" + rc.statusAddr + "/configuration/checksum")
		if err != nil {
			return nil, false, err.Error()
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(body)); err != nil || resp.StatusCode != http.StatusOK || got != want {
			return nil, false, fmt.Sprintf("checksum %d %q (%v), want %s", resp.StatusCode, got, err, want)
		}
	}
	after, err := liveWorkers(rc.inst)
	if err != nil {
		return nil, false, err.Error()
	}
	if len(after) == 0 || !slices.Equal(before, after) {
		return nil, false, fmt.Sprintf("workers %v, then %v", before, after)
	}
	return after, true, ""
}

// liveWorkers returns the sorted pids of the master's children that are
// not shutting down (nginx retitles an old worker "nginx: worker process
// is shutting down" when a reload tells it to go).
func liveWorkers(inst *nginx.Instance) ([]int, error) {
	pids, err := inst.WorkerPids()
	if err != nil {
		return nil, err
	}
	live := pids[:0:0]
	for _, pid := range pids {
		title, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue // exited meanwhile
		}
		if !strings.Contains(string(title), "shutting down") {
			live = append(live, pid)
		}
	}
	return live, nil
}

// settle waits until the controller has no sync left to make: none runs or
// waits in the queue, and its counters stay the same for 300 ms.
func (rc *runningController) settle(t testing.TB) controller.Stats {
	t.Helper()
	last := rc.c.Stats()
	stable := time.Now()
	deadline := time.Now().Add(2 * time.Minute)
	// A sync under way (a reload waiting for its workers) changes no
	// counter until it ends: settled is idle as well as unchanged.
	for last.Busy || time.Since(stable) < 300*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("the controller did not settle within 2 minutes: %+v", last)
		}
		time.Sleep(25 * time.Millisecond)
		if now := rc.c.Stats(); now != last {
			last, stable = now, time.Now()
		}
	}
	return last
}

// syncBuffer collects the controller's log lines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startFilesController writes files (name → manifests) into a new
// directory and runs the controller on it until the test ends, with a
// retry backoff long enough that a rejected config is tried once.
func startFilesController(t testing.TB, files map[string]string) *filesController {
	t.Helper()
	return startFilesControllerWith(t, files, controllerOptions{debounce: 20 * time.Millisecond})
}

// startFilesControllerWith is startFilesController with options (o.debounce
// as given: 0 for the command's default).
func startFilesControllerWith(t testing.TB, files map[string]string, o controllerOptions) *filesController {
	t.Helper()
	nginxtest.Require(t)
	fc := &filesController{dir: filepath.Join(t.TempDir(), "manifests")}
	co := o.conf(t, fc.prepare(t))
	for name, content := range files {
		fc.write(t, name, content)
	}
	if err := os.MkdirAll(fc.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := controller.NewFileSource(fc.dir, controller.FileSourceOptions{Debounce: o.debounce})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := fc.logContext()
	fc.run(t, ctx, cancel, controller.Config{Source: src, Problems: o.reporter(controller.NewLogReporter()), Build: o.buildOptions(), Conf: co}, 20*time.Second)
	return fc
}

// write writes a manifest file atomically (a rename, as editors do), so
// that the source never reads half a file.
func (fc *filesController) write(t testing.TB, name, content string) {
	t.Helper()
	path := filepath.Join(fc.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func (fc *filesController) remove(t testing.TB, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(fc.dir, name)); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// filesIngress is an Ingress in namespace e2e for host with one Prefix path
// per path → service pair; extra lines go under metadata.annotations.
func filesIngress(name, host string, annotations map[string]string, paths ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: e2e\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n", name)
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n")
		keys := make([]string, 0, len(annotations))
		for k := range annotations {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %q\n", k, annotations[k])
		}
	}
	fmt.Fprintf(&b, "spec:\n  ingressClassName: nginx\n  rules:\n  - host: %s\n    http:\n      paths:\n", host)
	for i := 0; i+1 < len(paths); i += 2 {
		fmt.Fprintf(&b, "      - {path: %s, pathType: Prefix, backend: {service: {name: %s, port: {number: 80}}}}\n", paths[i], paths[i+1])
	}
	return b.String()
}

func TestFilesControllerScenarios(t *testing.T) {
	alpha, beta, gamma := namedBackend(t, "alpha"), namedBackend(t, "beta"), namedBackend(t, "gamma")
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":     "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":   serviceYAML("web", alpha),
		"svc/other.yaml": serviceYAML("other", gamma),
		"ing/shop.yaml":  filesIngress("shop", "shop.example.com", nil, "/", "web"),
	}, classicControllerOptions())
	const host = "shop.example.com"

	t.Run("create: served by the right backend", func(t *testing.T) {
		fc.eventuallyServes(t, 10*time.Second, host, "/", 200, "alpha /")
		if st := fc.settle(t); st.Reloads != 1 || st.ReloadErrors != 0 {
			t.Fatalf("stats after the first config: %+v", st)
		}
	})

	t.Run("endpoints change: new endpoint, no reload", func(t *testing.T) {
		pids, before := fc.workerPids(t), fc.settle(t)
		fc.write(t, "svc/web.yaml", serviceYAML("web", beta))
		fc.eventuallyServes(t, 10*time.Second, host, "/", 200, "beta /")
		after := fc.settle(t)
		if after.Reloads != before.Reloads {
			t.Errorf("reloads %d → %d for an endpoint change", before.Reloads, after.Reloads)
		}
		if after.DynamicUpdates <= before.DynamicUpdates {
			t.Errorf("no dynamic update counted: %+v", after)
		}
		if now := fc.workerPids(t); !slices.Equal(now, pids) {
			t.Errorf("worker pids changed from %v to %v: nginx reloaded", pids, now)
		}
	})

	t.Run("add a path with a new backend: exactly one reload, never a 503", func(t *testing.T) {
		pids, before := fc.workerPids(t), fc.settle(t)
		// A client asks for the new path throughout: before the reload
		// location / answers (beta), after it the new backend (gamma).
		// The bridge payloads are in Lua before the new workers start, so
		// no answer is a 503 (backend unknown to Lua).
		var stop atomic.Bool
		var statuses sync.Map
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					code, _ := fc.get(host, "/cart")
					n, _ := statuses.LoadOrStore(code, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			})
		}
		fc.write(t, "ing/shop.yaml", filesIngress("shop", host, nil, "/", "web", "/cart", "other"))
		fc.eventuallyServes(t, 10*time.Second, host, "/cart", 200, "gamma /cart")
		stop.Store(true)
		wg.Wait()
		statuses.Range(func(code, n any) bool {
			if code.(int) != 200 {
				t.Errorf("%d answers with status %d during the reload", n.(*atomic.Int64).Load(), code)
			}
			return true
		})
		after := fc.settle(t)
		if after.Reloads != before.Reloads+1 {
			t.Errorf("reloads %d → %d, want exactly one more", before.Reloads, after.Reloads)
		}
		if now := fc.workerPids(t); slices.Equal(now, pids) {
			t.Errorf("worker pids unchanged (%v) after a reload", now)
		}
		fc.eventuallyServes(t, 10*time.Second, host, "/", 200, "beta /")
	})

	t.Run("bad annotation: a problem reported, the rest still served", func(t *testing.T) {
		fc.write(t, "ing/blog.yaml", filesIngress("blog", "blog.example.com", map[string]string{"proxy-body-size": "a lot"}, "/", "other"))
		fc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 200, "gamma /")
		fc.eventuallyServes(t, 10*time.Second, host, "/cart", 200, "gamma /cart")
		waitFor(t, 5*time.Second, "the problem in the log", func() bool {
			return strings.Contains(fc.logs.String(), `"Problem" object="Ingress e2e/blog" field="metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]"`)
		})
		// Reported once while it persists.
		fc.write(t, "ing/blog.yaml", filesIngress("blog", "blog.example.com", map[string]string{"proxy-body-size": "a lot", "proxy-read-timeout": "30"}, "/", "other"))
		fc.settle(t)
		if n := strings.Count(fc.logs.String(), `"Problem" object="Ingress e2e/blog"`); n != 1 {
			t.Errorf("the problem was logged %d times", n)
		}
	})

	t.Run("a config nginx -t rejects: the old one keeps serving", func(t *testing.T) {
		// nginx -t fails for any new nginx.conf; the running nginx
		// keeps serving what it loaded.
		repair := breakNginxTest(t, fc.inst)
		pids, before := fc.workerPids(t), fc.settle(t)
		fc.write(t, "ing/shop.yaml", filesIngress("shop", host, nil, "/", "web", "/cart", "other", "/new", "other"))
		waitFor(t, 10*time.Second, "the reload error", func() bool { return fc.c.Stats().ReloadErrors == before.ReloadErrors+1 })
		after := fc.settle(t)
		if after.ReloadErrors != before.ReloadErrors+1 || after.Reloads != before.Reloads {
			t.Errorf("stats %+v → %+v: want one reload error and no reload", before, after)
		}
		if code, body := fc.get(host, "/new"); code != 200 || !strings.HasPrefix(body, "beta /new") {
			t.Errorf("GET /new → %d %q: the old config (/ on beta) should answer", code, body)
		}
		if code, body := fc.get(host, "/cart"); code != 200 || !strings.HasPrefix(body, "gamma") {
			t.Errorf("GET /cart → %d %q", code, body)
		}
		if now := fc.workerPids(t); !slices.Equal(now, pids) {
			t.Errorf("worker pids changed from %v to %v", pids, now)
		}
		if !fc.c.Ready() {
			t.Error("not ready while the old config serves")
		}
		// Fixed, then the next change applies.
		repair()
		fc.write(t, "ing/shop.yaml", filesIngress("shop", host, nil, "/", "web", "/cart", "other", "/new", "other", "/new2", "other"))
		fc.eventuallyServes(t, 10*time.Second, host, "/new", 200, "gamma /new")
		if st := fc.settle(t); st.Reloads != before.Reloads+1 {
			t.Errorf("reloads %d after the fix, want %d", st.Reloads, before.Reloads+1)
		}
	})

	t.Run("delete the Ingress: 404", func(t *testing.T) {
		fc.remove(t, "ing/shop.yaml")
		fc.eventuallyServes(t, 10*time.Second, host, "/", 404, "")
		fc.eventuallyServes(t, 10*time.Second, host, "/cart", 404, "")
		fc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 200, "gamma /")
	})
}

func TestFilesControllerBurstOfEdits(t *testing.T) {
	alpha := namedBackend(t, "alpha")
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"web.yaml":     serviceYAML("web", alpha),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/v0", "web"),
	}, classicControllerOptions())
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/v0", 200, "alpha /v0")
	before := fc.settle(t)
	// 500 edits, each of which alone would need a reload (a new path).
	for i := 1; i <= 500; i++ {
		fc.write(t, "ingress.yaml", filesIngress("shop", "shop.example.com", nil, fmt.Sprintf("/v%d", i), "web"))
	}
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/v500", 200, "alpha /v500")
	after := fc.settle(t)
	reloads := after.Reloads - before.Reloads
	t.Logf("500 edits → %d reloads, %d syncs", reloads, after.Syncs-before.Syncs)
	if reloads < 1 || reloads > 10 {
		t.Errorf("500 edits made %d reloads, want a handful", reloads)
	}
	if code, _ := fc.get("shop.example.com", "/v499"); code != 404 {
		t.Errorf("GET /v499 → %d after the last edit, want 404", code)
	}
}

func TestFilesControllerRestartsAKilledMaster(t *testing.T) {
	alpha := namedBackend(t, "alpha")
	fc := startFilesController(t, map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"web.yaml":     serviceYAML("web", alpha),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web"),
	})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")
	orphans := fc.workerPids(t)
	master := fc.inst.Pid()
	if err := syscall.Kill(master, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "a new master", func() bool { p := fc.inst.Pid(); return p != 0 && p != master && fc.c.Ready() })
	// The new master owns the ports and Lua has the backends again.
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")
	if now := fc.workerPids(t); slices.ContainsFunc(now, func(p int) bool { return slices.Contains(orphans, p) }) {
		t.Errorf("workers %v include the orphans %v", now, orphans)
	}
	if st := fc.settle(t); st.Restarts != 1 {
		t.Errorf("restarts %d, want 1", st.Restarts)
	}
}
