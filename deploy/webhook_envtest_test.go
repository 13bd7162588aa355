package deploy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The ValidatingWebhookConfiguration of components/webhook, registered in a
// real API server (its clientConfig pointed at a loopback URL with the same
// path: envtest has no Service network), sends Ingress creates and updates
// to the controller's webhook, which sees the cluster through informers
// running as the ServiceAccount of the base.
func TestWebhookManifestOnAPIServer(t *testing.T) {
	admin := envtesting.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := newApplier(t, admin)
	client := kubernetes.NewForConfigOrDie(admin)

	objs := renderKustomization(t, webhookDir)
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	find(t, objs, "ValidatingWebhookConfiguration", "kubectl-ingress-admission", &vwc)
	for _, u := range objs {
		switch u.GetKind() {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ConfigMap", "IngressClass":
			if err := a.apply(ctx, u, false); err != nil {
				t.Fatalf("apply %s: %v", objectKey(u), err)
			}
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	saConfig := rest.CopyConfig(admin)
	saConfig.Impersonate = serviceAccountUser("kubectl-ingress")
	src, err := controller.NewClusterSource(controller.ClusterSourceConfig{Config: saConfig, ConfigMap: namespace + "/kubectl-ingress-controller"})
	if err != nil {
		t.Fatal(err)
	}
	srcCtx, stopSrc := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- src.Run(srcCtx, func() {}) }()
	defer func() { stopSrc(); <-runDone }()
	if !src.WaitForSync(ctx) {
		t.Fatal("the ClusterSource did not sync as the ServiceAccount")
	}

	opts := render.DefaultOptions()
	opts.ConfigMap = namespace + "/kubectl-ingress-controller"
	v, err := admission.NewValidator(src.Snapshot, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, ca := testcerts.Loopback(t, "kubectl-ingress-controller-admission")
	caPEM := ca.PEM
	srv, err := admission.Listen("127.0.0.1:0", certFile, keyFile, admission.NewHandler(v))
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx) }()
	defer func() { stopServe(); <-served }()

	path := *vwc.Webhooks[0].ClientConfig.Service.Path
	url := "https://" + srv.Addr().String() + path
	vwc.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
	vwc.ResourceVersion = ""
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &vwc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("register the webhook: %v", err)
	}

	ings := client.NetworkingV1().Ingresses("default")
	snippet := webhookIngress("snippet", "/s")
	snippet.Annotations = map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "location /x { return 200; }\ninclude /etc/passwd;"}
	// The API server picks the configuration up within a moment.
	if !eventually(ctx, 30*time.Second, func() bool {
		_, err := ings.Create(ctx, snippet, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "the snippet is not supported as written")
	}) {
		t.Fatal("a server-snippet with a refused directive was never denied: the webhook configuration does not reach the webhook")
	}

	if _, err := ings.Create(ctx, webhookIngress("owner", "/"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a valid Ingress was denied: %v", err)
	}
	if !eventually(ctx, 30*time.Second, func() bool {
		s, err := src.Snapshot()
		return err == nil && len(s.Ingresses) == 1
	}) {
		t.Fatal("the ClusterSource never saw the Ingress")
	}
	_, err = ings.Create(ctx, webhookIngress("thief", "/"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "already served by ingress default/owner") {
		t.Errorf("an Ingress on the path of an older one: %v, want a denial naming default/owner", err)
	}
	// Updates are reviewed too (the rule's operations).
	owner, err := ings.Get(ctx, "owner", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "soon"}
	if _, err := ings.Update(ctx, owner, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "proxy-read-timeout") {
		t.Errorf("an update with a bad value: %v, want a denial", err)
	}
}

func webhookIngress(name, path string) *networkingv1.Ingress {
	class := "nginx"
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}},
				}}},
			}}}},
		},
	}
}
