package deploy_test

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// checkStatusAddresses finds the addresses for the Ingresses' status as
// the leader does, as the ServiceAccount: from the --publish-service
// Service of the base, and from the node of a controller pod (made from
// the Deployment's template, so the namespace's Pod Security "restricted"
// enforcement admits it for real).
func checkStatusAddresses(ctx context.Context, t *testing.T, admin, sa kubernetes.Interface, base []*unstructured.Unstructured) {
	var d appsv1.Deployment
	find(t, base, "Deployment", deploymentName, &d)
	var svc corev1.Service
	find(t, base, "Service", "kubectl-ingress-controller", &svc)

	// --publish-service: the LoadBalancer's address.
	created, err := admin.CoreV1().Services(namespace).Create(ctx, &svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create Service %s: %v", svc.Name, err)
	}
	created.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	if _, err := admin.CoreV1().Services(namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := &d.Spec.Template.Spec.Containers[0]
	publish := flagValue(c.Args, "publish-service")
	if want := "$(POD_NAMESPACE)/" + svc.Name; publish != want {
		t.Fatalf("--publish-service=%q, want %q", publish, want)
	}
	src, err := controller.NewAddressSource(controller.AddressConfig{Client: sa, PublishService: namespace + "/" + svc.Name})
	if err != nil {
		t.Fatal(err)
	}
	checkAddresses(ctx, t, src, "--publish-service", "203.0.113.7")

	// No --publish-service: the nodes of the controller's ready pods.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	node, err = admin.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "198.51.100.1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}
	if _, err := admin.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: *d.Spec.Template.ObjectMeta.DeepCopy(), Spec: *d.Spec.Template.Spec.DeepCopy()}
	pod.Name, pod.Namespace, pod.Spec.NodeName = deploymentName+"-test", namespace, node.Name
	pod, err = admin.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a pod from the Deployment's template in %s (Pod Security restricted): %v", namespace, err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := admin.CoreV1().Pods(namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	src, err = controller.NewAddressSource(controller.AddressConfig{Client: sa, PodNamespace: namespace, PodName: pod.Name})
	if err != nil {
		t.Fatal(err)
	}
	checkAddresses(ctx, t, src, "node addresses", "198.51.100.1")
}

func checkAddresses(ctx context.Context, t *testing.T, src controller.AddressSource, what string, want ...string) {
	t.Helper()
	got, err := src.Addresses(ctx)
	if err != nil {
		t.Fatalf("%s as the ServiceAccount: %v", what, err)
	}
	var ips []string
	for _, a := range got {
		ips = append(ips, a.IP+a.Hostname)
	}
	if fmt.Sprint(ips) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, ips, want)
	}
}
