package main

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// certs asks a real nginx's Lua certificate store (as the simulator runs
// it) through --url: the Secret, the names and the fingerprint of what it
// serves, and never the key.
func TestCertsFromTheStatusServer(t *testing.T) {
	n := startBackendsNginx(t)
	if len(n.certificates) == 0 {
		t.Fatal("examples/ posted no certificate")
	}
	shop := n.certificates[0]
	block, _ := pem.Decode([]byte(shop.PEM))
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(leaf.Raw)
	fingerprint := strings.ToUpper(hex.EncodeToString(sum[:]))
	host := shop.Hosts[0]

	code, out, errOut := runCmd(t, "", "certs", "--url", n.statusURL, "--host", host)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"HOST        " + host + "\n", "SECRET      " + shop.ID + "\n", "SHA-256     " + fingerprint + "\n",
		"NOT AFTER   " + leaf.NotAfter.UTC().Format(time.RFC3339) + " (expires in ", "SUBJECT     " + leaf.Subject.String() + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "PRIVATE") || strings.Contains(out, "BEGIN") {
		t.Errorf("stdout shows PEM:\n%s", out)
	}

	code, out, errOut = runCmd(t, "", "certs", "--url", n.statusURL, "--host", strings.ToUpper(host), "-o", "json")
	var sc servedCertificate
	if err := json.Unmarshal([]byte(out), &sc); err != nil || code != 0 {
		t.Fatalf("-o json: exit %d, %v: %s %s", code, err, out, errOut)
	}
	if sc.Secret != shop.ID || len(sc.Chain) != 1 || sc.Chain[0].SHA256 != fingerprint || !sc.Chain[0].NotAfter.Equal(leaf.NotAfter) {
		t.Errorf("-o json: %+v", sc)
	}

	code, out, errOut = runCmd(t, "", "certs", "--url", n.statusURL, "--host", "nothing.example.org")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "no certificate for nothing.example.org: nginx serves it the self-signed certificate") {
		t.Errorf("unknown host: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestExpiresIn(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		notAfter time.Time
		want     string
	}{
		{now.Add(89*24*time.Hour + time.Hour), "expires in 89 days"},
		{now.Add(25 * time.Hour), "expires in 1 day"},
		{now.Add(time.Hour), "expires today"},
		{now.Add(-time.Hour), "expired today"},
		{now.Add(-72 * time.Hour), "expired 3 days ago"},
	} {
		if got := expiresIn(c.notAfter, now); got != c.want {
			t.Errorf("%s: %q, want %q", c.notAfter, got, c.want)
		}
	}
}

func TestDescribeChainDropsTheKey(t *testing.T) {
	if _, err := describeChain("h", "", []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")); err == nil || err.Error() != "the answer holds no PEM certificate" {
		t.Errorf("a key alone: %v", err)
	}
}

// conf without -f prints the nginx.conf a real nginx runs, read from its
// status server, whole or the server blocks of one host.
func TestConfFromTheStatusServer(t *testing.T) {
	n := startBackendsNginx(t)
	code, out, errOut := runCmd(t, "", "conf", "--url", n.statusURL)
	if code != 0 || out != string(n.conf) {
		t.Fatalf("exit %d, stderr %s; stdout is the nginx.conf nginx runs: %v", code, errOut, out == string(n.conf))
	}
	host := n.certificates[0].Hosts[0]
	want, err := serverBlocks(n.conf, host)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "", "conf", "--url", n.statusURL, "--host", host)
	if code != 0 || out != string(want) || !strings.HasPrefix(strings.TrimSpace(out), "## start server "+host) {
		t.Errorf("--host %s: exit %d, stderr %s, stdout:\n%s", host, code, errOut, out)
	}
	code, out, errOut = runCmd(t, "", "conf", "--url", n.statusURL, "--host", "nothing.example.org")
	if code != exitFailure || out != "" || !strings.Contains(errOut, n.statusURL+`: no server block for host "nothing.example.org"; the servers are: `) {
		t.Errorf("unknown host: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The same flags as backends: one target only.
	code, _, errOut = runCmd(t, "", "conf", "--url", n.statusURL, "--pod", "p")
	if code != exitFailure || !strings.Contains(errOut, "give one of --pod, -l, --deployment and --url, not --pod and --url") {
		t.Errorf("--pod with --url: exit %d, %q", code, errOut)
	}
}

// certs and conf as a user runs them against a cluster: the pod found
// through a real kube-apiserver, the real SPDY port-forward through it to a
// stand-in kubelet (backends_envtest_test.go) that connects the pod's port
// 10246 to a real nginx's status server.
func TestCertsAndConfEnvtest(t *testing.T) {
	n := startBackendsNginx(t)
	cfg := envtesting.Start(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	kubeconfig := writeKubeconfig(t, cfg)
	kubelet := startFakeKubelet(t, map[string]string{"ctrl-n": hostPort(t, n.statusURL)})
	createControllerCluster(t, cs, kubelet.port)
	createPod(t, cs, podSpec{name: "ctrl-n", labels: controllerLabels, phase: corev1.PodRunning, ready: true}.pod(testNS), "node-1")
	kc := []string{"--kubeconfig", kubeconfig}

	shop := n.certificates[0]
	code, out, errOut := runCmd(t, "", append([]string{"certs", "--host", shop.Hosts[0]}, kc...)...)
	if code != 0 || !strings.Contains(out, "SECRET      "+shop.ID+"\n") || strings.Contains(out, "PRIVATE") {
		t.Errorf("certs: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if got := kubelet.forwarded(); got != testNS+"/ctrl-n:10246" {
		t.Errorf("the kubelet forwarded %q, want %s/ctrl-n:10246", got, testNS)
	}
	code, out, errOut = runCmd(t, "", append([]string{"conf", "--pod", "ctrl-n", "-n", testNS}, kc...)...)
	if code != 0 || out != string(n.conf) {
		t.Errorf("conf --pod: exit %d, stderr %s, stdout is nginx's nginx.conf: %v", code, errOut, out == string(n.conf))
	}
	code, out, errOut = runCmd(t, "", append([]string{"conf", "--pod", "ctrl-z", "-n", testNS}, kc...)...)
	if code != exitFailure || out != "" || !strings.Contains(errOut, `pod "ctrl-z" not found in namespace "`+testNS+`"`) {
		t.Errorf("conf of a missing pod: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}
