package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// heldBackend answers /slow only when released (each request counted on
// arrival), and /fast at once.
type heldBackend struct {
	port    int
	arrived atomic.Int32
	release chan struct{}
}

func startHeldBackend(t *testing.T) *heldBackend {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hb := &heldBackend{port: l.Addr().(*net.TCPAddr).Port, release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		hb.arrived.Add(1)
		select {
		case <-hb.release:
		case <-time.After(30 * time.Second):
		}
		fmt.Fprint(w, "slow done")
	})
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "fast") })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return hb
}

// binController is the real binary running "controller --from-files" on
// one Ingress for held.example.com → a heldBackend, with nginx under a
// known prefix.
type binController struct {
	cmd      *exec.Cmd
	exited   chan struct{}
	exitErr  error // set before exited is closed
	logs     *syncBuffer
	httpPort int
	health   string
	prefix   string
	client   *http.Client
}

// startBinController builds the binary into a temp dir (the build cache
// makes it quick after the first time), starts it with the extra flags,
// and waits until /readyz answers 200 and nginx serves /fast. The process
// is killed when the test ends if it still runs.
func startBinController(t *testing.T, hb *heldBackend, flags ...string) *binController {
	t.Helper()
	nginxtest.Require(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-ingress")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-ingress/kubectl-ingress/cmd/kubectl-ingress").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	manifests := filepath.Join(dir, "manifests")
	if err := os.MkdirAll(manifests, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"class.yaml": "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc.yaml":   serviceYAML("held", hb.port),
		"ing.yaml":   filesIngress("held", "held.example.com", nil, "/", "held"),
	} {
		if err := os.WriteFile(filepath.Join(manifests, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bc := &binController{
		exited: make(chan struct{}), logs: &syncBuffer{}, httpPort: freePort(t),
		health: "127.0.0.1:" + strconv.Itoa(freePort(t)), prefix: filepath.Join(dir, "nginx"),
		client: &http.Client{Timeout: 40 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
	}
	args := append([]string{"controller", "--from-files", manifests, "--nginx-prefix", bc.prefix,
		"--http-port", strconv.Itoa(bc.httpPort), "--https-port", strconv.Itoa(freePort(t)),
		"--status-address", "127.0.0.1:" + strconv.Itoa(freePort(t)), "--worker-processes", "2",
		"--health-addr", bc.health, "--routing", e2eRoutingFlag(t)}, flags...)
	bc.cmd = exec.Command(bin, args...)
	bc.cmd.Stdout, bc.cmd.Stderr = bc.logs, bc.logs
	if err := bc.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		bc.exitErr = bc.cmd.Wait()
		close(bc.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-bc.exited:
		default:
			_ = bc.cmd.Process.Kill()
			<-bc.exited
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", bc.logs.String())
		}
	})
	waitFor(t, 30*time.Second, "/readyz 200", func() bool { return bc.readyz() == http.StatusOK })
	waitFor(t, 10*time.Second, "nginx to serve /fast", func() bool { return bc.get("/fast") == http.StatusOK })
	return bc
}

// get sends GET held.example.com/path to nginx on a new connection; 0 for
// a transport error.
func (bc *binController) get(path string) int {
	return bc.status("http://127.0.0.1:"+strconv.Itoa(bc.httpPort)+path, "held.example.com")
}

func (bc *binController) readyz() int { return bc.status("http://"+bc.health+"/readyz", "") }

func (bc *binController) status(url, host string) int {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	req.Host = host
	resp, err := bc.client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// masterPid reads the pid of the nginx master from its pid file.
func (bc *binController) masterPid(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bc.prefix, "nginx.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitExit waits for the process to exit and returns Wait's error.
func (bc *binController) waitExit(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-bc.exited:
		return bc.exitErr
	case <-time.After(timeout):
		t.Fatalf("the controller did not exit within %v", timeout)
		return nil
	}
}

// TestShutdownOnSIGTERMCompletesInFlightRequests runs the real binary
// (built into a temp dir) on files with a real nginx, holds 20 requests
// in flight at a backend, and sends SIGTERM: /readyz turns 503 while nginx
// still serves new requests (--shutdown-grace-period 5), then nginx quits
// gracefully (new connections refused), the 20 requests, released only
// then, all complete with 200, and the process exits 0 with no nginx left.
func TestShutdownOnSIGTERMCompletesInFlightRequests(t *testing.T) {
	const inFlight = 20
	hb := startHeldBackend(t)
	bc := startBinController(t, hb, "--shutdown-grace-period", "5", "--nginx-quit-timeout", "30s")
	master := bc.masterPid(t)

	codes := make([]int, inFlight)
	var wg sync.WaitGroup
	for i := range inFlight {
		wg.Go(func() { codes[i] = bc.get("/slow") })
	}
	waitFor(t, 20*time.Second, "all requests at the backend", func() bool { return hb.arrived.Load() == inFlight })

	if err := bc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "/readyz 503", func() bool { return bc.readyz() == http.StatusServiceUnavailable })
	if err := syscall.Kill(master, 0); err != nil {
		t.Errorf("the nginx master is gone when /readyz turned 503: %v", err)
	}
	if code := bc.get("/fast"); code != http.StatusOK {
		t.Errorf("a new request after /readyz turned 503, within the grace period: %d, want 200 (nginx still serving)", code)
	}
	waitFor(t, 20*time.Second, "nginx to stop accepting (graceful quit)", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(bc.httpPort), time.Second)
		if err != nil {
			return errors.Is(err, syscall.ECONNREFUSED)
		}
		c.Close()
		return false
	})
	select {
	case <-bc.exited:
		t.Fatalf("the controller exited (%v) with requests in flight", bc.exitErr)
	default:
	}
	close(hb.release)
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("in-flight request %d: %d, want 200", i, code)
		}
	}
	if err := bc.waitExit(t, 30*time.Second); err != nil {
		t.Errorf("controller exit: %v, want status 0", err)
	}
	if err := syscall.Kill(master, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the nginx master (pid %d) after the controller exited: %v, want no such process", master, err)
	}
}

// TestSecondSignalEndsAtOnce: a second SIGTERM during a long grace period
// ends the process at once (killed by the signal, not exit 0), and the
// kernel takes its nginx down with it (Pdeathsig).
func TestSecondSignalEndsAtOnce(t *testing.T) {
	hb := startHeldBackend(t)
	bc := startBinController(t, hb, "--shutdown-grace-period", "120")
	master := bc.masterPid(t)
	if err := bc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "/readyz 503", func() bool { return bc.readyz() == http.StatusServiceUnavailable })
	if err := bc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := bc.waitExit(t, 10*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("exit after the second signal: %v, want killed by SIGTERM", err)
	}
	waitFor(t, 10*time.Second, "the nginx master to go", func() bool { return errors.Is(syscall.Kill(master, 0), syscall.ESRCH) })
}
