package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// TestControllerCommandWritesAndClearsStatus runs `kubectl ingress
// controller` in cluster mode (a kubeconfig for a real kube-apiserver, a
// real nginx): as the only replica it takes the Lease, writes
// --publish-status-address to the Ingress of its class and says so on
// /metrics; when its context ends (the signal) it clears the status,
// releases the Lease and exits 0.
func TestControllerCommandWritesAndClearsStatus(t *testing.T) {
	cfg, cs := clusterForCommand(t)
	ctx := context.Background()
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       networkingv1.IngressSpec{IngressClassName: new("nginx"), Rules: []networkingv1.IngressRule{{Host: "web.example.com"}}},
	}
	if _, err := cs.NetworkingV1().Ingresses("default").Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controller's own pod, the only one with its labels: no other
	// replica, so the shutdown clears the status.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "controller-0", Labels: map[string]string{"app": "kubectl-ingress"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Image: "kubectl-ingress"}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		got, err := cs.NetworkingV1().Ingresses("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, a := range got.Status.LoadBalancer.Ingress {
			s = append(s, a.IP+a.Hostname)
		}
		return strings.Join(s, ",")
	}
	holder := func() string {
		l, err := cs.CoordinationV1().Leases("default").Get(ctx, "ingress-nginx-leader", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}

	t.Setenv("POD_NAMESPACE", "default")
	t.Setenv("POD_NAME", "controller-0")
	ports := freeTCPPorts(t, 4)
	health := fmt.Sprintf("127.0.0.1:%d", ports[3])
	errOut := &lockedWriter{}
	cmd := NewCmdRoot(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: errOut})
	cmd.SetArgs([]string{"controller", "--kubeconfig", writeKubeconfig(t, cfg), "--nginx-prefix", t.TempDir(),
		"--publish-status-address", "192.0.2.5,lb.example.com", "--election-ttl", "4s",
		"--listen-address", "127.0.0.1", "--worker-processes", "1",
		"--http-port", fmt.Sprint(ports[0]), "--https-port", fmt.Sprint(ports[1]),
		"--status-address", fmt.Sprintf("127.0.0.1:%d", ports[2]), "--health-addr", health, "--metrics-addr", health})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runContext(runCtx, cmd) }()

	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		waitForCommand(t, what, errOut, cond)
	}
	waitUntil("the Ingress status", func() bool { return status() == "192.0.2.5,lb.example.com" })
	if h := holder(); h != "controller-0" {
		t.Errorf("lease holder %q, want controller-0", h)
	}
	resp, err := http.Get("http://" + health + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"kubectl_ingress_leader 1", "kubectl_ingress_leader_transitions_total 1"} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after the context ended:\n%s", code, errOut.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the command did not stop")
	}
	if s := status(); s != "" {
		t.Errorf("status %q after the shutdown, want cleared (--update-status-on-shutdown)", s)
	}
	if h := holder(); h != "" {
		t.Errorf("lease holder %q after the shutdown, want released", h)
	}
	if strings.Contains(errOut.String(), "Counting the other replicas") {
		t.Errorf("the replica count failed:\n%s", errOut.String())
	}
	for _, want := range []string{"Became the leader", "Clearing the status", "Stopped leading"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

// clusterForCommand is what a test of the controller command in cluster
// mode needs: nginx (skipped without it), a real kube-apiserver, its admin
// client, and the IngressClass nginx of the controller.
func clusterForCommand(t *testing.T) (*rest.Config, kubernetes.Interface) {
	t.Helper()
	nginxtest.Require(t)
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	if _, err := cs.NetworkingV1().IngressClasses().Create(context.Background(), class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cfg, cs
}

// waitForCommand waits up to a minute for cond, polling, and fails the
// test with the command's log when it does not come.
func waitForCommand(t *testing.T, what string, log fmt.Stringer, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
