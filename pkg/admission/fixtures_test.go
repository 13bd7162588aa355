package admission

import (
	"encoding/json"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// t0 is the creation time of the fixtures' existing Ingresses.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// ingressOpt changes a test Ingress.
type ingressOpt func(*networkingv1.Ingress)

// newIngress makes default/name with class nginx and one rule: host, a
// Prefix path to service:80.
func newIngress(name, host, path, service string, opts ...ingressOpt) *networkingv1.Ingress {
	class := "nginx"
	pt := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: map[string]string{}},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}},
				}}},
			}}}},
		},
	}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

func annotation(k, v string) ingressOpt {
	return func(ing *networkingv1.Ingress) { ing.Annotations["nginx.ingress.kubernetes.io/"+k] = v }
}

func className(c string) ingressOpt {
	return func(ing *networkingv1.Ingress) { ing.Spec.IngressClassName = &c }
}

func created(t time.Time) ingressOpt {
	return func(ing *networkingv1.Ingress) { ing.CreationTimestamp = metav1.NewTime(t) }
}

func tlsSecret(host, secret string) ingressOpt {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.TLS = append(ing.Spec.TLS, networkingv1.IngressTLS{Hosts: []string{host}, SecretName: secret})
	}
}

func newService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
}

func newSlice(service, ip string) *discoveryv1.EndpointSlice {
	port, name := int32(8080), "http"
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: service + "-x", Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
	}
}

// fixture is a small cluster: class nginx, Service web with an endpoint,
// and Ingress default/old serving a.example.com "/" since t0.
func fixture() render.Snapshot {
	return render.Snapshot{
		IngressClasses: []*networkingv1.IngressClass{{
			ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
			Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
		}},
		Services:       []*corev1.Service{newService("web")},
		EndpointSlices: []*discoveryv1.EndpointSlice{newSlice("web", "10.0.0.1")},
		Ingresses:      []*networkingv1.Ingress{newIngress("old", "a.example.com", "/", "web", created(t0))},
	}
}

// reviewOf makes the AdmissionReview of op on obj (an Ingress unless kind
// says otherwise).
func reviewOf(t testing.TB, uid string, op admissionv1.Operation, kind metav1.GroupVersionKind, obj any) []byte {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	if m, ok := obj.(metav1.Object); ok {
		name = m.GetName()
	}
	req := &admissionv1.AdmissionRequest{
		Name:      name,
		UID:       types.UID(uid),
		Kind:      kind,
		Resource:  metav1.GroupVersionResource{Group: kind.Group, Version: kind.Version, Resource: "ingresses"},
		Namespace: "default",
		Operation: op,
	}
	if op == admissionv1.Delete {
		req.OldObject = runtime.RawExtension{Raw: raw}
	} else {
		req.Object = runtime.RawExtension{Raw: raw}
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}
