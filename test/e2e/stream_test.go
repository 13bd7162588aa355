package e2e

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// startStreamController is startFilesController with the stream options:
// edit sets the render options (services ConfigMaps, passthrough) and the
// nginx.conf options; the controller writes the stream payload through
// its nginx instance.
func startStreamController(t testing.TB, files map[string]string, edit func(*render.Options, *nginxconf.ConfOptions)) (*filesController, nginxconf.ConfOptions) {
	t.Helper()
	nginxtest.Require(t)
	if _, err := os.Stat("/usr/lib/nginx/modules/ngx_stream_js_module.so"); err != nil {
		t.Skip("nginx's njs stream module is not installed (make deps installs libnginx-mod-stream-js)")
	}
	fc := &filesController{dir: filepath.Join(t.TempDir(), "manifests")}
	co := fc.prepare(t)
	for name, content := range files {
		fc.write(t, name, content)
	}
	bo := render.DefaultOptions()
	edit(&bo, &co)
	src, err := controller.NewFileSource(fc.dir, controller.FileSourceOptions{Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := fc.logContext()
	fc.run(t, ctx, cancel, controller.Config{Source: src, Problems: controller.NewLogReporter(), Build: bo, Conf: co}, 20*time.Second)
	return fc, co
}

// tcpEcho starts a loopback TCP server that answers each line with
// "name:line" and returns its port.
func tcpEcho(t testing.TB, name string) int {
	t.Helper()
	return tcpEchoAt(t, "127.0.0.1", name)
}

// tcpEchoAt is tcpEcho on the address ip.
func tcpEchoAt(t testing.TB, ip, name string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					fmt.Fprintf(c, "%s:%s", name, line)
				}
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// udpEcho starts a loopback UDP server that answers each datagram with
// "name:datagram" and returns its port.
func udpEcho(t testing.TB, name string) int {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(append([]byte(name+":"), buf[:n]...), addr)
		}
	}()
	return pc.LocalAddr().(*net.UDPAddr).Port
}

// tcpAsk sends one line to 127.0.0.1:port and returns the answer ("" on
// any error).
func tcpAsk(port int, line string) string {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 2*time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := fmt.Fprintf(c, "%s\n", line); err != nil {
		return ""
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(got, "\n")
}

// udpAsk sends one datagram to 127.0.0.1:port and returns the answer.
func udpAsk(port int, msg string) string {
	c, err := net.Dial("udp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte(msg)); err != nil {
		return ""
	}
	buf := make([]byte, 2048)
	n, err := c.Read(buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

// streamServiceYAML is a Service with one port of the protocol and an
// EndpointSlice that sends it to 127.0.0.1:backendPort.
func streamServiceYAML(name, protocol string, backendPort int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: e2e}
spec:
  ports: [{name: echo, port: 7000, protocol: %[2]s}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-1
  namespace: e2e
  labels: {kubernetes.io/service-name: %[1]s}
addressType: IPv4
ports: [{name: echo, port: %[3]d, protocol: %[2]s}]
endpoints: [{addresses: ["127.0.0.1"], conditions: {ready: true}}]
`, name, protocol, backendPort)
}

func servicesConfigMapYAML(name string, entries map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: e2e}\ndata:\n", name)
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %q: %q\n", k, entries[k])
	}
	return b.String()
}

// TestStreamServices: a TCP and a UDP service reached through nginx
// stream servers; the TCP service's endpoint moves to another backend
// without a reload (same workers, no reload counted) and the new one
// answers; a new port reloads and serves.
func TestStreamServices(t *testing.T) {
	alpha, beta := tcpEcho(t, "alpha"), tcpEcho(t, "beta")
	dns := udpEcho(t, "udp")
	tcpPort, udpPort, tcpPort2, missingPort := freePort(t), freePort(t), freePort(t), freePort(t)
	fc, _ := startStreamController(t, map[string]string{
		"svc/tcp.yaml": streamServiceYAML("tcp-echo", "TCP", alpha),
		"svc/udp.yaml": streamServiceYAML("udp-echo", "UDP", dns),
		"cm/tcp.yaml": servicesConfigMapYAML("tcp-services", map[string]string{
			strconv.Itoa(tcpPort): "e2e/tcp-echo:7000", strconv.Itoa(missingPort): "e2e/missing:7000",
		}),
		"cm/udp.yaml": servicesConfigMapYAML("udp-services", map[string]string{strconv.Itoa(udpPort): "e2e/udp-echo:echo"}),
	}, func(b *render.Options, _ *nginxconf.ConfOptions) {
		b.TCPServicesConfigMap, b.UDPServicesConfigMap = "e2e/tcp-services", "e2e/udp-services"
	})

	if got := tcpAsk(tcpPort, "hello"); got != "alpha:hello" {
		t.Fatalf("TCP through nginx answered %q, want alpha:hello", got)
	}
	if got := udpAsk(udpPort, "ping"); got != "udp:ping" {
		t.Fatalf("UDP through nginx answered %q, want udp:ping", got)
	}
	// A service without endpoints: nginx accepts and closes at once.
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(missingPort), 2*time.Second); err != nil {
		t.Errorf("the port of a missing service does not listen: %v", err)
	} else {
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		n, err := c.Read(make([]byte, 1))
		if n != 0 || err == nil || os.IsTimeout(err) {
			t.Errorf("a connection to a service without endpoints: read %d, %v; want it closed at once", n, err)
		}
		c.Close()
	}

	pids := fc.workerPids(t)
	before := fc.settle(t)
	fc.write(t, "svc/tcp.yaml", streamServiceYAML("tcp-echo", "TCP", beta))
	waitFor(t, 10*time.Second, "the TCP service to answer from beta", func() bool { return tcpAsk(tcpPort, "x") == "beta:x" })
	after := fc.settle(t)
	if got := fc.workerPids(t); !slices.Equal(got, pids) {
		t.Errorf("workers %v after an endpoint change, want %v: nginx reloaded", got, pids)
	}
	if after.Reloads != before.Reloads || after.DynamicUpdates <= before.DynamicUpdates {
		t.Errorf("stats %+v → %+v: want a dynamic update and no reload", before, after)
	}
	for i := 0; i < 5; i++ {
		if got := tcpAsk(tcpPort, "again"); got != "beta:again" {
			t.Fatalf("after the change answer %d is %q, want beta:again", i, got)
		}
	}

	// A new port is a new listen: a reload, then it serves.
	fc.write(t, "cm/tcp.yaml", servicesConfigMapYAML("tcp-services", map[string]string{
		strconv.Itoa(tcpPort): "e2e/tcp-echo:7000", strconv.Itoa(tcpPort2): "e2e/tcp-echo:echo", strconv.Itoa(missingPort): "e2e/missing:7000",
	}))
	waitFor(t, 15*time.Second, "the new TCP port to answer", func() bool { return tcpAsk(tcpPort2, "new") == "beta:new" })
	if s := fc.settle(t); s.Reloads != after.Reloads+1 {
		t.Errorf("reloads %d after a new port, want %d", s.Reloads, after.Reloads+1)
	}
	if got := udpAsk(udpPort, "still"); got != "udp:still" {
		t.Errorf("UDP after the reload answered %q", got)
	}
}
