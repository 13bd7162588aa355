package main

import (
	"bytes"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// A port in use is named with its flag before nginx starts.
func TestControllerPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	code, _, errOut := runCmd(t, "", "controller", "--from-files", t.TempDir(), "--http-port", port, "--https-port", "1")
	want := "port " + port + " (--http-port) is in use"
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 3 and %q", code, errOut, want)
	}
	code, _, errOut = runCmd(t, "", "controller", "--from-files", t.TempDir(), "--status-address", l.Addr().String())
	want = "port " + port + " (--status-address) is in use"
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 3 and %q", code, errOut, want)
	}
}

// A second simulator moves its status and health servers to free ports
// when the defaults are taken and the flags were not given.
func TestSimulatorPicksFreePorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var stderr bytes.Buffer
	o := NewControllerOptions(ioStreams(&stderr))
	o.Render.StatusAddress, o.HealthAddr = l.Addr().String(), l.Addr().String()
	o.pickFreeSimulatorPorts(func(string) bool { return false })
	if o.Render.StatusAddress == l.Addr().String() || o.HealthAddr == l.Addr().String() || o.Render.StatusAddress == o.HealthAddr {
		t.Errorf("status %s, health %s: not moved off %s", o.Render.StatusAddress, o.HealthAddr, l.Addr())
	}
	if !strings.Contains(stderr.String(), l.Addr().String()+" (--status-address) is in use") {
		t.Errorf("stderr %q", stderr.String())
	}
	// Given by the user: kept (the port check then names it).
	o = NewControllerOptions(ioStreams(&stderr))
	o.Render.StatusAddress = l.Addr().String()
	o.pickFreeSimulatorPorts(func(string) bool { return true })
	if o.Render.StatusAddress != l.Addr().String() {
		t.Error("a given --status-address was moved")
	}
}

// Outside a pod and without a kubeconfig, the cluster mode stops with a
// clear error (not client-go's localhost:8080), and never uses /etc.
func TestControllerClusterModeOffCluster(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "none"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	free := func() string {
		a, err := freeLoopbackAddr()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ports := []string{"--http-port", freePort(t), "--https-port", freePort(t), "--status-address", free(), "--health-addr", free()}
	code, _, errOut := runCmd(t, "", append([]string{"controller"}, ports...)...)
	if code != exitFailure || !strings.Contains(errOut, "no kubeconfig") {
		t.Errorf("no kubeconfig: exit %d, stderr %q", code, errOut)
	}

	var stderr bytes.Buffer
	o := NewControllerOptions(ioStreams(&stderr))
	cmd := newCmdController(o)
	if err := cmd.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmd); err != nil || !o.tempPrefix || o.NginxPrefix != "" {
		t.Errorf("off-cluster prefix: %v, temp %v, %q", err, o.tempPrefix, o.NginxPrefix)
	}

	// An API server that does not answer: the dial error, at once.
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "x"}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "c"
	path := filepath.Join(home, "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "", append([]string{"controller", "--kubeconfig", path}, ports...)...)
	if code != exitFailure || !strings.Contains(errOut, "cannot reach the API server at https://127.0.0.1:1") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("unreachable API server: exit %d, stderr %q", code, errOut)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	a, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, p, _ := net.SplitHostPort(a)
	if _, err := strconv.Atoi(p); err != nil {
		t.Fatal(err)
	}
	return p
}
