package envtesting_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// TestStart creates the kinds of objects the controller watches in a real
// API server and lists them back.
func TestStart(t *testing.T) {
	start := time.Now()
	cfg := envtesting.Start(t)
	t.Logf("control plane up in %v", time.Since(start).Round(time.Millisecond))

	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if info.GitVersion != "v1.37.2" {
		t.Errorf("server version %q, want v1.37.2 (the -ldflags of hack/envtest.sh)", info.GitVersion)
	}

	const ns = "envtesting"
	create(t, ctx, cs, ns)

	classes, err := cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(classes.Items) != 1 || classes.Items[0].Spec.Controller != "k8s.io/ingress-nginx" {
		t.Errorf("IngressClasses: %+v", classes.Items)
	}

	svcs, err := cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs.Items) != 1 || svcs.Items[0].Name != "web" {
		t.Fatalf("Services: %+v", svcs.Items)
	}
	if ip := svcs.Items[0].Spec.ClusterIP; ip == "" || ip == corev1.ClusterIPNone {
		t.Errorf("Service web got no cluster IP: %q", ip)
	}

	slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=web",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) != 1 || len(slices.Items[0].Endpoints) != 2 {
		t.Fatalf("EndpointSlices of web: %+v", slices.Items)
	}
	if got := slices.Items[0].Endpoints[1].Addresses; len(got) != 1 || got[0] != "10.244.0.6" {
		t.Errorf("second endpoint addresses %v, want [10.244.0.6]", got)
	}
}

// create makes a Namespace, an IngressClass, a Service and its EndpointSlice.
func create(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string) {
	t.Helper()
	opts := metav1.CreateOptions{}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
	}, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.NetworkingV1().IngressClasses().Create(ctx, &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	}, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{
				Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080),
			}},
		},
	}, opts); err != nil {
		t.Fatal(err)
	}
	port, name, proto, ready := int32(8080), "http", corev1.ProtocolTCP, true
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "web-abc12",
			Labels: map[string]string{discoveryv1.LabelServiceName: "web"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.244.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			{Addresses: []string{"10.244.0.6"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
		},
		Ports: []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}, opts); err != nil {
		t.Fatal(err)
	}
}
