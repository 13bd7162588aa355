package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
)

func TestControllerFlagErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--from-files", dir, "--sync-rate-limit", "0"}, "--sync-rate-limit must be positive"},
		{[]string{"--demo-backends"}, "--demo-backends needs --from-files"},
		{[]string{"--from-files", filepath.Join(dir, "missing")}, "--from-files"},
		{[]string{"--from-files", file}, "is not a directory"},
		{[]string{"--from-files", dir, "--publish-service", "svc"}, "--publish-service must be namespace/name"},
		{[]string{"--from-files", dir, "--status-address", "0.0.0.0:10246"}, "loopback"},
	}
	for _, tc := range cases {
		code, _, errOut := runCmd(t, "", append([]string{"controller"}, tc.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestControllerCompleteSimulatorDefaults(t *testing.T) {
	o := NewControllerOptions(genericiooptions.IOStreams{})
	cmd := NewCmdController(genericiooptions.IOStreams{})
	o.FromFiles = t.TempDir()
	if err := cmd.Flags().Set("metrics-addr", "127.0.0.1:9999"); err != nil {
		t.Fatal(err)
	}
	o.MetricsAddr = "127.0.0.1:9999"
	if err := o.Complete(cmd); err != nil {
		t.Fatal(err)
	}
	// (A simulator already on 10254 moves the health server to a free port.)
	if o.Render.ListenAddress != "127.0.0.1" || (o.HealthAddr != simulatorHealthAddr && !addrInUse(simulatorHealthAddr)) || o.MetricsAddr != "127.0.0.1:9999" {
		t.Errorf("listen %q health %q metrics %q", o.Render.ListenAddress, o.HealthAddr, o.MetricsAddr)
	}
	if !o.tempPrefix {
		t.Error("no temporary prefix with --from-files")
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
}

// lockedWriter is the command's stderr, read while it runs.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestControllerCommandRunsTheSimulator(t *testing.T) {
	nginxtest.Require(t)
	ports := freeTCPPorts(t, 5)
	backendPort := ports[4] // the demo backend takes it
	dir := t.TempDir()
	manifests := demoWebManifests("web.example.com", backendPort) + `---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data: {access-log-path: /dev/stdout}
`
	if err := os.WriteFile(filepath.Join(dir, "web.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut, out := &lockedWriter{}, &lockedWriter{}
	cmd := NewCmdRoot(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	health := fmt.Sprintf("127.0.0.1:%d", ports[3])
	cmd.SetArgs([]string{"controller", "--from-files", dir, "--demo-backends", "--worker-processes", "1",
		"--http-port", fmt.Sprint(ports[0]), "--https-port", fmt.Sprint(ports[1]),
		"--status-address", fmt.Sprintf("127.0.0.1:%d", ports[2]), "--health-addr", health})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, cmd) }()

	get := func(url, host string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Host = host
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
		if err != nil {
			return 0, ""
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := get(fmt.Sprintf("http://127.0.0.1:%d/", ports[0]), "web.example.com")
		if code == 200 && strings.Contains(body, "demo backend of service demo/web") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not served: %d %q\n%s", code, body, errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// access-log-path /dev/stdout: nginx's access log is the command's
	// standard output (as `kubectl logs` shows it in a cluster)
	for !strings.Contains(out.String(), `"GET / HTTP/1.1" 200`) {
		if time.Now().After(deadline) {
			t.Fatalf("no access log line on the command's stdout: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The payloads are preloaded before nginx starts, so nginx serves
	// before the first sync has finished: wait for the sync to end in
	// /readyz 200 before reading its metrics.
	for code, _ := get("http://"+health+"/readyz", ""); code != 200; code, _ = get("http://"+health+"/readyz", "") {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz %d\n%s", code, errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("http://"+health+"/metrics", ""); code != 200 || !strings.Contains(body, "kubectl_ingress_reloads_total 1") {
		t.Errorf("/metrics %d", code)
	}
	// The verbs that ask a controller's status server ask the simulator's.
	status := fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	// (the default routing is lua: the host's route entry, asked of the
	// status server, after a line that says so)
	if code, out, errOut := runCmd(t, "", "conf", "--url", status, "--host", "web.example.com"); code != 0 ||
		!strings.HasPrefix(out, "## host web.example.com: no server block; lua/router.lua routes it") || !strings.Contains(out, `"host": "web.example.com"`) ||
		!strings.Contains(out, `"backend": "demo-web-80"`) {
		t.Errorf("conf --url of the simulator: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "", "certs", "--url", status, "--host", "web.example.com"); code != exitFailure || out != "" ||
		!strings.Contains(errOut, "no certificate for web.example.com: nginx serves it the self-signed certificate") {
		t.Errorf("certs --url of the simulator (no TLS): exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "", "backends", "--url", status, "--list"); code != 0 || out != "demo-web-80\n" {
		t.Errorf("backends --url of the simulator: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after the context ended:\n%s", code, errOut.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the command did not stop")
	}
	logs := errOut.String()
	for _, want := range []string{`"Plan" verdict="reload required" reasons=["initial configuration"]`, `"nginx stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
	prefix := between(logs, `nginxPrefix="`, `"`)
	if _, err := os.Stat(prefix); prefix == "" || !os.IsNotExist(err) {
		t.Errorf("the temporary prefix %q is still there (%v)", prefix, err)
	}
}

// runContext is run with a context, as main does with signals.
func runContext(ctx context.Context, cmd interface {
	ExecuteContext(context.Context) error
}) int {
	if err := cmd.ExecuteContext(ctx); err != nil {
		// The root command silences its errors (run prints them); a
		// test that sees the exit status needs the reason beside it.
		if w, ok := cmd.(interface{ ErrOrStderr() io.Writer }); ok {
			fmt.Fprintf(w.ErrOrStderr(), "error: %v\n", err)
		}
		return 1
	}
	return 0
}

func freeTCPPorts(t *testing.T, n int) []int {
	t.Helper()
	return testports.Free(t, n)
}

func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, end)
	return v
}

// demoWebManifests are the Service web of namespace demo with one endpoint
// on 127.0.0.1:port and an Ingress of host for it.
func demoWebManifests(host string, port int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: demo, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{name: http, port: %[1]d}]
endpoints: [{addresses: ["127.0.0.1"]}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: demo}
spec:
  ingressClassName: nginx
  rules:
  - host: %[2]s
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
`, port, host)
}
