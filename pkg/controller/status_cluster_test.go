package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func addressStrings(a []networkingv1.IngressLoadBalancerIngress) string {
	var s []string
	for _, x := range a {
		s = append(s, x.IP+x.Hostname)
	}
	return strings.Join(s, ",")
}

// TestStatusAddressesOnAPIServer: the status addresses read from a real
// API server: a --publish-service LoadBalancer whose address changes
// (the leader writes the new one to the Ingress), and the nodes of the
// controller's ready pods; the count of other replicas.
func TestStatusAddressesOnAPIServer(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustNamespaces(t, cs, "ingress", "shop")
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	if _, err := cs.NetworkingV1().IngressClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.NetworkingV1().Ingresses("shop").Create(ctx, testIngress("shop", "web", "shop.example.com", "/", "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("publish-service", func(t *testing.T) {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ingress", Name: "lb"},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
		}
		svc, err := cs.CoreV1().Services("ingress").Create(ctx, svc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		setLB := func(lb ...corev1.LoadBalancerIngress) {
			svc.Status.LoadBalancer.Ingress = lb
			if svc, err = cs.CoreV1().Services("ingress").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		setLB(corev1.LoadBalancerIngress{IP: "203.0.113.10"}, corev1.LoadBalancerIngress{Hostname: "lb.example.com"})

		w := startClusterSource(t, controller.ClusterSourceConfig{Config: cfg})
		w.eventually(t, "ingress shop/web", func(s render.Snapshot) bool { return has(s.Ingresses, "shop/web") })
		addrs, err := controller.NewAddressSource(controller.AddressConfig{Client: cs, PublishService: "ingress/lb"})
		if err != nil {
			t.Fatal(err)
		}
		writer, err := controller.NewStatusWriter(controller.StatusConfig{Client: cs, Source: w.src, Addresses: addrs, Build: render.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		writer.SetLeading(true)
		_, lctx := ktesting.NewTestContext(t)
		status := func() string {
			ing, err := cs.NetworkingV1().Ingresses("shop").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return addressStrings(ing.Status.LoadBalancer.Ingress)
		}
		for _, want := range []string{"203.0.113.10,lb.example.com", "198.51.100.20"} {
			if want == "198.51.100.20" {
				setLB(corev1.LoadBalancerIngress{IP: "198.51.100.20"})
			}
			// The cache may be behind the last write: a conflict is retried
			// with a fresh copy; wait for the status to show.
			deadline := time.Now().Add(20 * time.Second)
			for status() != want {
				if err := writer.Sync(lctx); err != nil {
					t.Fatal(err)
				}
				if time.Now().After(deadline) {
					t.Fatalf("Ingress status %q, want %q", status(), want)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	})

	t.Run("node addresses of the controller's ready pods", func(t *testing.T) {
		node := func(name string, addrs ...corev1.NodeAddress) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
			n, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n.Status.Addresses = addrs
			if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		node("n1", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.1"})
		node("n2", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.2"})
		node("n3", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.3"})
		pod := func(name, nodeName string, ready bool) {
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ingress", Name: name, Labels: map[string]string{"app": "kubectl-ingress"}},
				Spec:       corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c", Image: "kubectl-ingress"}}},
			}
			p, err := cs.CoreV1().Pods("ingress").Create(ctx, p, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			st := corev1.ConditionFalse
			if ready {
				st = corev1.ConditionTrue
			}
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
			if _, err := cs.CoreV1().Pods("ingress").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		pod("c-0", "n1", true)
		pod("c-1", "n2", true)
		pod("c-2", "n3", false)
		src, err := controller.NewAddressSource(controller.AddressConfig{Client: cs, PodNamespace: "ingress", PodName: "c-0"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.Addresses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s := addressStrings(got); s != "10.0.0.2,198.51.100.1" {
			t.Errorf("node addresses %q, want 10.0.0.2,198.51.100.1 (n1's external, n2's internal; n3's pod is not ready)", s)
		}
		n, err := controller.OtherReplicas(cs, "ingress", "c-0")(ctx)
		if err != nil || n != 2 {
			t.Errorf("other replicas %d, %v; want 2", n, err)
		}
	})
}
