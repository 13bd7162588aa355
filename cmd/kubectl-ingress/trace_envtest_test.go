package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// TestTraceAgainstLiveCluster runs "kubectl ingress trace URL" without -f
// against a real kube-apiserver: the objects of -n (or of every
// namespace with -A), read as diff reads them.
func TestTraceAgainstLiveCluster(t *testing.T) {
	cfg := envtesting.Start(t)
	live := filepath.Join(t.TempDir(), "live.yaml")
	writeFile(t, live, liveShop)
	createLive(t, cfg, live, "shop")
	kubeconfig := writeKubeconfig(t, cfg)
	for _, args := range [][]string{
		{"-n", "shop"},
		{"-A"},
	} {
		code, out, errOut := runCmd(t, "", append([]string{"trace", "http://shop.example.com/cart", "--kubeconfig", kubeconfig}, args...)...)
		if code != 0 || !strings.Contains(out, "proxied to backend shop-web-http") || !strings.Contains(out, "10.1.0.1:8080") {
			t.Errorf("%q: exit %d, stdout:\n%s\nstderr: %s", args, code, out, errOut)
		}
	}
	// Another namespace holds nothing for the host: the default server.
	code, out, _ := runCmd(t, "", "trace", "http://shop.example.com/", "--kubeconfig", kubeconfig, "-n", "default")
	if code != 0 || !strings.Contains(out, "the default server _") {
		t.Errorf("-n default: exit %d, %s", code, out)
	}
	// No cluster: exit 3, named.
	code, _, errOut := runCmd(t, "", "trace", "http://shop.example.com/", "--kubeconfig", filepath.Join(t.TempDir(), "none"))
	if code != exitFailure || errOut == "" {
		t.Errorf("no cluster: exit %d, %s", code, errOut)
	}
}
