package deploy_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
)

// The real controller binary, run with the Deployment's arguments and
// environment as the ServiceAccount of the base (a kubeconfig that
// impersonates it), gets ready, takes the Lease and writes the Ingress's
// status from the published Service, with no request refused by RBAC.
// Only what a laptop cannot do differently from a pod is changed: loopback
// ports and a temporary nginx prefix.
func TestControllerRunsWithTheManifests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs nginx")
	}
	nginxtest.Require(t)
	bin := controllerBinary(t)
	admin := envtesting.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	client := kubernetes.NewForConfigOrDie(admin)
	a := newApplier(t, admin)

	base := renderKustomization(t, baseDir)
	for _, u := range base {
		switch u.GetKind() {
		case "Deployment", "PodDisruptionBudget":
		default:
			if err := a.apply(ctx, u, false); err != nil {
				t.Fatalf("apply %s: %v", objectKey(u), err)
			}
		}
	}
	// The cloud gives the LoadBalancer an address.
	lb, err := client.CoreV1().Services(namespace).Get(ctx, "kubectl-ingress-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.9"}}
	if _, err := client.CoreV1().Services(namespace).UpdateStatus(ctx, lb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controller's own pod (Events name it), from the template.
	var d appsv1.Deployment
	find(t, base, "Deployment", deploymentName, &d)
	podName := deploymentName + "-7d9f8-x2x4q"
	pod := &corev1.Pod{ObjectMeta: *d.Spec.Template.ObjectMeta.DeepCopy(), Spec: *d.Spec.Template.Spec.DeepCopy()}
	pod.Name, pod.Namespace = podName, namespace
	if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createWebIngress(ctx, t, client)

	// The container's command line, as the kubelet makes it.
	c := d.Spec.Template.Spec.Containers[0]
	env := map[string]string{"POD_NAME": podName, "POD_NAMESPACE": namespace}
	args := append([]string(nil), imageEntrypoint(t)[1:]...)
	for _, arg := range c.Args {
		for k, v := range env {
			arg = strings.ReplaceAll(arg, "$("+k+")", v)
		}
		args = append(args, arg)
	}
	ports := loopbackPorts(t, 4)
	health := fmt.Sprintf("127.0.0.1:%d", ports[2])
	args = append(args,
		"--kubeconfig", serviceAccountKubeconfig(t, admin),
		"--listen-address", "127.0.0.1", "--http-port", fmt.Sprint(ports[0]), "--https-port", fmt.Sprint(ports[1]),
		"--health-addr", health, "--metrics-addr", health, "--status-address", fmt.Sprintf("127.0.0.1:%d", ports[3]),
		"--nginx-prefix", filepath.Join(t.TempDir(), "prefix"), "--shutdown-grace-period=0")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "POD_NAME="+podName, "POD_NAMESPACE="+namespace)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", logs.String())
		}
	}()

	ready := eventually(ctx, 90*time.Second, func() bool {
		select {
		case err := <-exited:
			exited <- err
			return true
		default:
		}
		resp, err := http.Get("http://" + health + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	select {
	case err := <-exited:
		stopped = true
		t.Fatalf("the controller exited: %v", err)
	default:
	}
	if !ready {
		t.Fatal("/readyz never answered 200")
	}
	if !eventually(ctx, 90*time.Second, func() bool {
		ing, err := client.NetworkingV1().Ingresses("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(ing.Status.LoadBalancer.Ingress) == 1 && ing.Status.LoadBalancer.Ingress[0].IP == "203.0.113.9"
	}) {
		t.Error("the Ingress's status never got the LoadBalancer's address")
	}
	lease, err := client.CoordinationV1().Leases(namespace).Get(ctx, flagValue(c.Args, "election-id"), metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != podName {
		t.Errorf("the Lease %s: %v, %+v; want it held by %s", flagValue(c.Args, "election-id"), err, lease, podName)
	}

	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("after SIGTERM the controller exited with %v", err)
		}
	case <-time.After(90 * time.Second):
		t.Error("the controller did not stop within 90 s of SIGTERM")
	}
	if strings.Contains(strings.ToLower(logs.String()), "forbidden") {
		t.Errorf("a request of the controller was refused by RBAC:\n%s", grepLines(logs.String(), "orbidden"))
	}
}

// createWebIngress creates an Ingress of class nginx with its Service and
// an endpoint.
func createWebIngress(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	port, name, ready := int32(8080), "http", true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.2.3"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	if _, err := client.DiscoveryV1().EndpointSlices("default").Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ing := webhookIngress("web", "/")
	ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Name: "http"}
	if _, err := client.NetworkingV1().Ingresses("default").Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// admin and impersonates the controller's ServiceAccount.
func serviceAccountKubeconfig(t *testing.T, admin *rest.Config) string {
	t.Helper()
	user := serviceAccountUser("kubectl-ingress")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{ClientCertificateData: admin.CertData, ClientKeyData: admin.KeyData,
		Token: admin.BearerToken, Impersonate: user.UserName, ImpersonateGroups: user.Groups}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "sa"}
	kc.CurrentContext = "sa"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopbackPorts returns n ports free on 127.0.0.1 a moment ago.
func loopbackPorts(t *testing.T, n int) []int {
	t.Helper()
	return testports.Free(t, n)
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
