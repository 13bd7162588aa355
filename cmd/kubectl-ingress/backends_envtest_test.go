package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeletportforward "k8s.io/cri-streaming/pkg/streaming/portforward"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// TestBackendsEnvtest runs "kubectl ingress backends" as a user would, with
// a kubeconfig, against a real kube-apiserver: pods are chosen through the
// API, and the port-forward is the real SPDY one, made through the API
// server to a stand-in kubelet that serves port-forwards with the
// kubelet's own streaming code and connects port 10246 of a pod to that
// pod's status server on loopback.
func TestBackendsEnvtest(t *testing.T) {
	cfg := envtesting.Start(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	kubeconfig := writeKubeconfig(t, cfg)

	closedPort := strconv.Itoa(loopbackPort(t))
	kubelet := startFakeKubelet(t, map[string]string{
		"ctrl-a": hostPort(t, statusServer(t, answerA)),
		"ctrl-b": hostPort(t, statusServer(t, answerB)),
		"ctrl-e": "127.0.0.1:" + closedPort, // the controller does not listen
	})
	createControllerCluster(t, cs, kubelet.port)
	// A Deployment with a set-based selector, resolved by the API server.
	setBased := controllerDeployment(testNS, "edge")
	setBased.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"edge", "edge-canary"}},
	}}
	setBased.Spec.Template.Labels = map[string]string{"tier": "edge"}
	mustCreate(t, func() error {
		_, err := cs.AppsV1().Deployments(testNS).Create(ctx, setBased, metav1.CreateOptions{})
		return err
	})
	for _, p := range []struct {
		spec podSpec
		node string
	}{
		{podSpec{name: "ctrl-a", labels: controllerLabels, phase: corev1.PodRunning, ready: true}, "node-1"},
		{podSpec{name: "ctrl-b", labels: controllerLabels, phase: corev1.PodRunning, ready: true}, "node-1"},
		{podSpec{name: "ctrl-c", labels: controllerLabels, phase: corev1.PodPending, waiting: "ContainerCreating"}, ""},
		{podSpec{name: "ctrl-d", labels: map[string]string{"tier": "edge-canary"}, phase: corev1.PodRunning, ready: true}, "node-gone"},
		{podSpec{name: "ctrl-e", labels: map[string]string{"tier": "edge"}, phase: corev1.PodRunning, ready: true}, "node-1"},
		{podSpec{name: "web", labels: map[string]string{"tier": "web"}, phase: corev1.PodRunning, ready: true}, "node-1"},
	} {
		createPod(t, cs, p.spec.pod(testNS), p.node)
	}

	kc := []string{"--kubeconfig", kubeconfig}
	t.Run("deployment through a real port-forward", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", append([]string{"backends", "-o", "name"}, kc...)...)
		if code != 0 || out != "shop-api-80\nshop-web-80\n" {
			t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if got := kubelet.forwarded(); got != "ingress-nginx/ctrl-a:10246" {
			t.Errorf("the kubelet forwarded %q, want ingress-nginx/ctrl-a:10246", got)
		}
	})
	t.Run("all pods disagree", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", append([]string{"backends", "--all-pods"}, kc...)...)
		if code != backendsExitDisagree {
			t.Fatalf("exit %d, stderr %s", code, errOut)
		}
		for _, w := range []string{"(2 of 2 pods answered: ctrl-a, ctrl-b)", "shop-web-80: endpoints", "ctrl-b  1 endpoints, lacks 10.0.0.1:8080", "shop-new-80: presence"} {
			if !strings.Contains(out, w) {
				t.Errorf("stdout lacks %q:\n%s", w, out)
			}
		}
		if !strings.Contains(errOut, "skipped: pod ingress-nginx/ctrl-c is not running (Pending, ContainerCreating)") {
			t.Errorf("stderr: %s", errOut)
		}
	})
	t.Run("set-based selector of a deployment", func(t *testing.T) {
		pods, err := findPods(ctx, cs, podQuery{Namespace: testNS, Deployment: "edge"})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods) != 2 || pods[0].Name != "ctrl-d" || pods[1].Name != "ctrl-e" {
			t.Errorf("pods of deployment edge: %v", podNames(pods))
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"port-forward refused by the API server", []string{"--pod", "ctrl-d"},
			[]string{"error: pod ingress-nginx/ctrl-d: port-forward to pod ingress-nginx/ctrl-d port 10246 refused: error upgrading connection", "node-gone"}},
		{"nothing listens in the pod", []string{"--pod", "ctrl-e"},
			[]string{"error: pod ingress-nginx/ctrl-e: port-forward failed: ", "inside the network namespace of pod ctrl-e", "connection refused (GET /configuration/backends: " /* EOF or a reset: the kubelet closes the stream either way */}},
		{"pod not running", []string{"--pod", "ctrl-c"}, []string{"error: pod ingress-nginx/ctrl-c is not running (Pending, ContainerCreating)"}},
		{"no such pod", []string{"--pod", "ctrl-z"}, []string{`error: no controller found: pod "ctrl-z" not found in namespace "kubectl-ingress"; pod "ctrl-z" not found in namespace "ingress-nginx"; name the controller with`}},
		{"no deployment", []string{"-n", "default"}, []string{`error: no controller found: deployment "kubectl-ingress-controller" not found in namespace "default"; deployment "ingress-nginx-controller" not found in namespace "default"; name`}},
		{"selector without pods", []string{"-l", "tier=none"}, []string{`error: no controller found: no pods of selector "tier=none" in namespace "kubectl-ingress"; no pods of selector "tier=none" in namespace "ingress-nginx"; name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append(append([]string{"backends"}, tc.args...), kc...)...)
			t.Logf("stderr: %s", errOut)
			if code != exitFailure || out != "" {
				t.Fatalf("exit %d, stdout %q; want 3 and nothing (stderr %s)", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
	t.Run("completion", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"backends", "--pod", "ctrl-"}, "ctrl-a\tRunning,ctrl-b\tRunning,ctrl-c\tPending,ctrl-d\tRunning,ctrl-e\tRunning"},
			{[]string{"backends", "-n", "ingress"}, "ingress-nginx"},
			{[]string{"backends", "--deployment", ""}, "edge,ingress-nginx-controller"},
			{[]string{"backends", "--pod", "ctrl-b", "--backend", "shop-n"}, "shop-new-80"},
			{[]string{"diff", "-n", "kube-"}, "kube-node-lease,kube-public,kube-system"},
		} {
			// The kubeconfig flags go before the word being completed.
			args := append(append([]string{"__complete", tc.args[0]}, kc...), tc.args[1:]...)
			code, out, errOut := runCmd(t, "", args...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			got := strings.Join(lines[:len(lines)-1], ",")
			if code != 0 || got != tc.want || lines[len(lines)-1] != noFiles {
				t.Errorf("__complete %q: exit %d, %q %s; want %q (stderr %s)", tc.args, code, got, lines[len(lines)-1], tc.want, errOut)
			}
		}
	})
}

// fakeKubelet serves the port-forwards of pods as a kubelet does.
type fakeKubelet struct {
	port    int
	mu      sync.Mutex
	targets map[string]string // pod name -> the host:port behind its port 10246
	seen    []string
}

func startFakeKubelet(t *testing.T, targets map[string]string) *fakeKubelet {
	t.Helper()
	k := &fakeKubelet{targets: targets}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /portForward/{namespace}/{pod}
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(parts) != 3 || parts[0] != "portForward" {
			http.NotFound(w, r)
			return
		}
		kubeletportforward.ServePortForward(w, r, &podForwarder{k: k, namespace: parts[1]}, parts[2], "",
			&kubeletportforward.V4Options{}, time.Minute, 30*time.Second, []string{kubeletportforward.ProtocolV1Name})
	}))
	t.Cleanup(srv.Close)
	k.port = srv.Listener.Addr().(*net.TCPAddr).Port
	return k
}

// forwarded lists the forwards made so far, as namespace/pod:port.
func (k *fakeKubelet) forwarded() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return strings.Join(k.seen, ",")
}

// podForwarder connects a port of a pod to its target, as the kubelet
// connects to the port inside the pod's network namespace.
type podForwarder struct {
	k         *fakeKubelet
	namespace string
}

func (f *podForwarder) PortForward(_ context.Context, pod, _ string, port int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	f.k.mu.Lock()
	f.k.seen = append(f.k.seen, fmt.Sprintf("%s/%s:%d", f.namespace, pod, port))
	target, ok := f.k.targets[pod]
	f.k.mu.Unlock()
	if !ok || port != defaultStatusPort {
		return fmt.Errorf("failed to connect to localhost:%d inside the network namespace of pod %s: connect: connection refused", port, pod)
	}
	conn, err := net.Dial("tcp", target)
	if err != nil {
		return fmt.Errorf("failed to connect to localhost:%d inside the network namespace of pod %s: %w", port, pod, err)
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	<-done
	return nil
}

func createPod(t *testing.T, cs kubernetes.Interface, p *corev1.Pod, node string) {
	t.Helper()
	ctx := context.Background()
	status := p.Status
	p.Spec.NodeName = node
	created, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = status
	if _, err := cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

// writeKubeconfig writes a kubeconfig for cfg, as a user would have.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func hostPort(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// createControllerCluster creates node-1, whose kubelet is the stand-in on
// kubeletPort, and ingress-nginx's controller Deployment in testNS.
func createControllerCluster(t *testing.T, cs kubernetes.Interface, kubeletPort int) {
	t.Helper()
	ctx := t.Context()
	mustCreate(t, func() error {
		_, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Status: corev1.NodeStatus{
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(kubeletPort)}},
				Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			},
		}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := cs.AppsV1().Deployments(testNS).Create(ctx, controllerDeployment(testNS, ingressNginxDeployment), metav1.CreateOptions{})
		return err
	})
}
