package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestWebhookStrictWritesFiles: the strict webhook's nginx -t reads the
// files the config names (here the CA of auth-tls-secret, which nginx
// loads at config load): it writes them in its throwaway prefix first,
// else nginx -t would refuse ("cannot load certificate") a good Ingress.
func TestWebhookStrictWritesFiles(t *testing.T) {
	nginxtest.Require(t)
	certFile, keyFile, ca := testcerts.Loopback(t, "webhook")
	f := WebhookFlags{Address: "127.0.0.1:0", Certificate: certFile, Key: keyFile, Strict: true}
	f.useNginx("", nginxconf.DefaultConfOptions())
	src := webhookTestSource{render.Snapshot{
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}},
		Secrets: []*corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "client-ca"},
			Data: map[string][]byte{"ca.crt": ca.PEM}}},
	}}
	v := strictValidator(t, &f, src)

	class, prefix := "nginx", networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "mtls",
			Annotations: map[string]string{"nginx.ingress.kubernetes.io/auth-tls-secret": "client-ca"}},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: "mtls.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
			}}}}}}},
	}
	verdict, err := v.ValidateContext(context.Background(), ing, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(verdict.Denials)+len(verdict.Warnings) != 0 {
		t.Errorf("an Ingress with auth-tls-secret: denials %v, warnings %v; want none (nginx -t with the CA file)", verdict.Denials, verdict.Warnings)
	}
}
