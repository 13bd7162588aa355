package controller

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func addrStrings(a []networkingv1.IngressLoadBalancerIngress) []string {
	var out []string
	for _, x := range a {
		if x.IP != "" {
			out = append(out, "ip:"+x.IP)
		} else {
			out = append(out, "host:"+x.Hostname)
		}
	}
	return out
}

func TestParseStatusAddresses(t *testing.T) {
	got, err := ParseStatusAddresses("10.0.0.2, lb.example.com,10.0.0.1,2001:db8::1,10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ip:10.0.0.1", "ip:10.0.0.2", "ip:2001:db8::1", "host:lb.example.com"}
	if s := addrStrings(got); !slices.Equal(s, want) {
		t.Errorf("got %v, want %v", s, want)
	}
	for _, bad := range []string{"", "10.0.0.1,,x.example.com", "bad_host", "-x.example.com", "a b"} {
		if _, err := ParseStatusAddresses(bad); err == nil || !strings.Contains(err.Error(), "--publish-status-address") {
			t.Errorf("%q: error %v, want one naming --publish-status-address", bad, err)
		}
	}
}

func TestServiceAddresses(t *testing.T) {
	svc := func(typ corev1.ServiceType, mutate func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress", Name: "lb"}, Spec: corev1.ServiceSpec{Type: typ, ClusterIP: "10.96.0.10"}}
		if mutate != nil {
			mutate(s)
		}
		return s
	}
	cases := []struct {
		name string
		svc  *corev1.Service
		want []string
	}{
		{"load balancer IPs, hostnames and externalIPs", svc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.2"}, {Hostname: "abc.elb.example.com"}}
			s.Spec.ExternalIPs = []string{"198.51.100.3", "203.0.113.2"}
		}), []string{"ip:198.51.100.3", "ip:203.0.113.2", "host:abc.elb.example.com"}},
		{"load balancer not provisioned yet", svc(corev1.ServiceTypeLoadBalancer, nil), nil},
		{"node port with externalIPs", svc(corev1.ServiceTypeNodePort, func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"198.51.100.3"} }), []string{"ip:198.51.100.3"}},
		{"node port without", svc(corev1.ServiceTypeNodePort, nil), []string{"ip:10.96.0.10"}},
		{"cluster IP", svc(corev1.ServiceTypeClusterIP, nil), []string{"ip:10.96.0.10"}},
		{"external name", svc(corev1.ServiceTypeExternalName, func(s *corev1.Service) { s.Spec.ExternalName = "lb.example.com" }), []string{"host:lb.example.com"}},
	}
	for _, c := range cases {
		got, err := ServiceAddresses(c.svc)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if s := addrStrings(got); !slices.Equal(s, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, s, c.want)
		}
	}
	headless := svc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
	if _, err := ServiceAddresses(headless); err == nil || !strings.Contains(err.Error(), "ingress/lb") {
		t.Errorf("headless: error %v, want one naming ingress/lb", err)
	}
}

func TestNodeAddressesOfTheControllerPods(t *testing.T) {
	labels := map[string]string{"app": "ingress"}
	pod := func(name, node string, ready bool, l map[string]string) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ingress", Name: name, Labels: l},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Phase: corev1.PodRunning},
		}
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
		return p
	}
	node := func(name string, addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Addresses: addrs}}
	}
	cs := fake.NewClientset(
		pod("c-1", "n1", true, labels),
		pod("c-2", "n2", true, labels),
		pod("c-3", "n1", true, labels),  // same node: once
		pod("c-4", "n3", false, labels), // not ready
		pod("other", "n4", true, map[string]string{"app": "web"}),
		node("n1", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}),
		node("n2", corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.2"}),
		node("n3", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.3"}),
		node("n4", corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.4"}),
	)
	src, err := NewAddressSource(AddressConfig{Client: cs, PodNamespace: "ingress", PodName: "c-1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.Addresses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s, want := addrStrings(got), []string{"ip:10.0.0.2", "ip:203.0.113.1"}; !slices.Equal(s, want) {
		t.Errorf("got %v, want %v", s, want)
	}
}

func TestNewAddressSourceErrors(t *testing.T) {
	cs := fake.NewClientset()
	for _, c := range []struct {
		cfg  AddressConfig
		want string
	}{
		{AddressConfig{Client: cs, StatusAddress: "1.2.3.4", PublishService: "a/b"}, "mutually exclusive"},
		{AddressConfig{Client: cs, PublishService: "nameonly"}, "--publish-service"},
		{AddressConfig{Client: cs}, "POD_NAMESPACE and POD_NAME"},
	} {
		if _, err := NewAddressSource(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}
