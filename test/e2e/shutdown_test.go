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

// TestShutdownOnSIGTERMCompletesInFlightRequests runs the real binary
// (built into a temp dir) on files with a real nginx, holds 20 requests
// in flight at a backend, and sends SIGTERM: /readyz turns 503 while nginx
// still serves new requests (--shutdown-grace-period 1), then nginx quits
// gracefully (new connections refused), the 20 requests, released only
// then, all complete with 200, and the process exits 0 with no nginx left.
func TestShutdownOnSIGTERMCompletesInFlightRequests(t *testing.T) {
	requireNginx(t)
	const inFlight = 20
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-ingress")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-ingress/kubectl-ingress/cmd/kubectl-ingress").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	hb := startHeldBackend(t)
	manifests := filepath.Join(dir, "manifests")
	for name, content := range map[string]string{
		"class.yaml": "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc.yaml":   serviceYAML("held", hb.port),
		"ing.yaml":   filesIngress("held", "held.example.com", nil, "/", "held"),
	} {
		if err := os.MkdirAll(manifests, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(manifests, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	httpPort, health := freePort(t), "127.0.0.1:"+strconv.Itoa(freePort(t))
	prefix := filepath.Join(dir, "nginx")
	var logs syncBuffer
	cmd := exec.Command(bin, "controller", "--from-files", manifests, "--nginx-prefix", prefix,
		"--http-port", strconv.Itoa(httpPort), "--https-port", strconv.Itoa(freePort(t)),
		"--status-address", "127.0.0.1:"+strconv.Itoa(freePort(t)), "--worker-processes", "2",
		"--health-addr", health, "--shutdown-grace-period", "1", "--nginx-quit-timeout", "30s")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", logs.String())
		}
	}()

	client := &http.Client{Timeout: 40 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	status := func(url, host string) int {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	nginxURL := "http://127.0.0.1:" + strconv.Itoa(httpPort)
	waitFor(t, 30*time.Second, "/readyz 200", func() bool { return status("http://"+health+"/readyz", "") == http.StatusOK })
	waitFor(t, 10*time.Second, "nginx to serve /fast", func() bool { return status(nginxURL+"/fast", "held.example.com") == http.StatusOK })
	pidText, err := os.ReadFile(filepath.Join(prefix, "nginx.pid"))
	if err != nil {
		t.Fatal(err)
	}
	master, err := strconv.Atoi(string(bytes.TrimSpace(pidText)))
	if err != nil {
		t.Fatal(err)
	}

	codes := make([]int, inFlight)
	var wg sync.WaitGroup
	for i := range inFlight {
		wg.Go(func() { codes[i] = status(nginxURL+"/slow", "held.example.com") })
	}
	waitFor(t, 20*time.Second, "all requests at the backend", func() bool { return hb.arrived.Load() == inFlight })

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "/readyz 503", func() bool {
		return status("http://"+health+"/readyz", "") == http.StatusServiceUnavailable
	})
	if err := syscall.Kill(master, 0); err != nil {
		t.Errorf("the nginx master is gone when /readyz turned 503: %v", err)
	}
	if code := status(nginxURL+"/fast", "held.example.com"); code != http.StatusOK {
		t.Errorf("a new request after /readyz turned 503, within the grace period: %d, want 200 (nginx still serving)", code)
	}
	waitFor(t, 10*time.Second, "nginx to stop accepting (graceful quit)", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(httpPort), time.Second)
		if err != nil {
			return errors.Is(err, syscall.ECONNREFUSED)
		}
		c.Close()
		return false
	})
	select {
	case err := <-exited:
		t.Fatalf("the controller exited (%v) with requests in flight", err)
	default:
	}
	close(hb.release)
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("in-flight request %d: %d, want 200", i, code)
		}
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("controller exit: %v, want status 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the controller did not exit")
	}
	if err := syscall.Kill(master, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the nginx master (pid %d) after the controller exited: %v, want no such process", master, err)
	}
}
