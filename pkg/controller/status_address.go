package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// AddressSource says which addresses go to the Ingresses' status.
type AddressSource interface {
	Addresses(ctx context.Context) ([]networkingv1.IngressLoadBalancerIngress, error)
}

// AddressConfig chooses the AddressSource as ingress-nginx does:
// --publish-status-address, else --publish-service, else the addresses of
// the nodes that run the controller's pods.
type AddressConfig struct {
	Client kubernetes.Interface
	// StatusAddress is --publish-status-address: comma-separated IPs and
	// hostnames.
	StatusAddress string
	// PublishService is --publish-service: "namespace/name".
	PublishService string
	// PodNamespace and PodName find the controller's pods (those with the
	// labels of PodName) when neither flag is given.
	PodNamespace, PodName string
}

// NewAddressSource returns the AddressSource of cfg; the flags are checked
// here, the API is only asked by Addresses.
func NewAddressSource(cfg AddressConfig) (AddressSource, error) {
	switch {
	case cfg.StatusAddress != "" && cfg.PublishService != "":
		return nil, errors.New("--publish-service and --publish-status-address are mutually exclusive")
	case cfg.StatusAddress != "":
		addrs, err := ParseStatusAddresses(cfg.StatusAddress)
		if err != nil {
			return nil, err
		}
		return StaticAddresses(addrs), nil
	case cfg.Client == nil:
		return nil, errors.New("status addresses: no client")
	case cfg.PublishService != "":
		ns, name, err := splitNamespacedName("--publish-service", cfg.PublishService)
		if err != nil {
			return nil, err
		}
		return &serviceAddresses{client: cfg.Client, namespace: ns, name: name}, nil
	case cfg.PodNamespace == "" || cfg.PodName == "":
		return nil, errors.New("status addresses: without --publish-service or --publish-status-address the node addresses of the controller's pods are published, which needs POD_NAMESPACE and POD_NAME")
	}
	return &nodeAddresses{client: cfg.Client, namespace: cfg.PodNamespace, pod: cfg.PodName}, nil
}

// StaticAddresses are fixed addresses (--publish-status-address).
type StaticAddresses []networkingv1.IngressLoadBalancerIngress

// Addresses returns a copy of a.
func (a StaticAddresses) Addresses(context.Context) ([]networkingv1.IngressLoadBalancerIngress, error) {
	return slices.Clone(a), nil
}

// ParseStatusAddresses parses --publish-status-address: each
// comma-separated entry is an IP, else a DNS hostname.
func ParseStatusAddresses(s string) ([]networkingv1.IngressLoadBalancerIngress, error) {
	var out []networkingv1.IngressLoadBalancerIngress
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("--publish-status-address %q: entry %d is empty", s, i+1)
		}
		if !validAddress(f) {
			return nil, fmt.Errorf("--publish-status-address %q: %q is neither an IP address nor a DNS name", s, f)
		}
		out = append(out, addressOf(f))
	}
	return normalizeAddresses(out), nil
}

// validAddress accepts an IP or a DNS name (letters, digits, '-', '.').
func validAddress(s string) bool {
	if net.ParseIP(s) != nil {
		return true
	}
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

func addressOf(s string) networkingv1.IngressLoadBalancerIngress {
	if net.ParseIP(s) != nil {
		return networkingv1.IngressLoadBalancerIngress{IP: s}
	}
	return networkingv1.IngressLoadBalancerIngress{Hostname: s}
}

// serviceAddresses are the addresses of the --publish-service Service, by
// its type as in ingress-nginx: a LoadBalancer's status IPs or hostnames
// plus spec.externalIPs, a NodePort's externalIPs else its cluster IP, a
// ClusterIP's cluster IP, an ExternalName's name.
type serviceAddresses struct {
	client          kubernetes.Interface
	namespace, name string
}

func (s *serviceAddresses) Addresses(ctx context.Context) ([]networkingv1.IngressLoadBalancerIngress, error) {
	svc, err := s.client.CoreV1().Services(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("--publish-service %s/%s: %w", s.namespace, s.name, err)
	}
	return ServiceAddresses(svc)
}

// ServiceAddresses returns the status addresses of a published Service.
func ServiceAddresses(svc *corev1.Service) ([]networkingv1.IngressLoadBalancerIngress, error) {
	var out []networkingv1.IngressLoadBalancerIngress
	external := func() {
		for _, ip := range svc.Spec.ExternalIPs {
			out = append(out, networkingv1.IngressLoadBalancerIngress{IP: ip})
		}
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		for _, lb := range svc.Status.LoadBalancer.Ingress {
			if lb.IP != "" {
				out = append(out, networkingv1.IngressLoadBalancerIngress{IP: lb.IP})
			} else if lb.Hostname != "" {
				out = append(out, networkingv1.IngressLoadBalancerIngress{Hostname: lb.Hostname})
			}
		}
		external()
	case corev1.ServiceTypeNodePort:
		external()
		if len(out) == 0 && svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone {
			out = append(out, networkingv1.IngressLoadBalancerIngress{IP: svc.Spec.ClusterIP})
		}
	case corev1.ServiceTypeClusterIP, "":
		if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return nil, fmt.Errorf("--publish-service %s/%s: a headless Service has no address", svc.Namespace, svc.Name)
		}
		out = append(out, networkingv1.IngressLoadBalancerIngress{IP: svc.Spec.ClusterIP})
	case corev1.ServiceTypeExternalName:
		out = append(out, networkingv1.IngressLoadBalancerIngress{Hostname: svc.Spec.ExternalName})
	default:
		return nil, fmt.Errorf("--publish-service %s/%s: unknown type %q", svc.Namespace, svc.Name, svc.Spec.Type)
	}
	return normalizeAddresses(out), nil
}

// nodeAddresses are the addresses of the nodes that run a ready pod of
// the controller (the pods with the labels of this one): each node's
// ExternalIP, else its InternalIP, as ingress-nginx publishes them when
// neither --publish-service nor --publish-status-address is given.
type nodeAddresses struct {
	client         kubernetes.Interface
	namespace, pod string
}

func (n *nodeAddresses) Addresses(ctx context.Context) ([]networkingv1.IngressLoadBalancerIngress, error) {
	self, err := n.client.CoreV1().Pods(n.namespace).Get(ctx, n.pod, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("status addresses: this pod %s/%s: %w", n.namespace, n.pod, err)
	}
	pods, err := n.client.CoreV1().Pods(n.namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(self.Labels).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("status addresses: the controller's pods: %w", err)
	}
	var out []networkingv1.IngressLoadBalancerIngress
	seen := map[string]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName == "" || seen[p.Spec.NodeName] || !podReady(p) {
			continue
		}
		seen[p.Spec.NodeName] = true
		node, err := n.client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("status addresses: node %s of pod %s: %w", p.Spec.NodeName, p.Name, err)
		}
		if a := NodeAddress(node); a != "" {
			out = append(out, addressOf(a))
		}
	}
	return normalizeAddresses(out), nil
}

func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// NodeAddress is a node's first ExternalIP, else its first InternalIP,
// else "".
func NodeAddress(node *corev1.Node) string {
	for _, want := range []corev1.NodeAddressType{corev1.NodeExternalIP, corev1.NodeInternalIP} {
		for _, a := range node.Status.Addresses {
			if a.Type == want && a.Address != "" {
				return a.Address
			}
		}
	}
	return ""
}

// normalizeAddresses sorts by hostname then IP and drops duplicates, so
// that equal sets compare equal.
func normalizeAddresses(a []networkingv1.IngressLoadBalancerIngress) []networkingv1.IngressLoadBalancerIngress {
	out := make([]networkingv1.IngressLoadBalancerIngress, 0, len(a))
	for _, x := range a {
		out = append(out, networkingv1.IngressLoadBalancerIngress{IP: x.IP, Hostname: x.Hostname})
	}
	slices.SortFunc(out, func(x, y networkingv1.IngressLoadBalancerIngress) int {
		if c := strings.Compare(x.Hostname, y.Hostname); c != 0 {
			return c
		}
		return strings.Compare(x.IP, y.IP)
	})
	return slices.CompactFunc(out, sameAddress)
}

func sameAddress(x, y networkingv1.IngressLoadBalancerIngress) bool {
	return x.IP == y.IP && x.Hostname == y.Hostname
}

// sameAddresses compares two normalized lists by IP and hostname.
func sameAddresses(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	return slices.EqualFunc(a, b, sameAddress)
}
