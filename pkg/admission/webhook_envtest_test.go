package admission_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestWebhookEnvtest registers the webhook, served over TLS on loopback
// with a CA made here, in a real kube-apiserver, with a real ClusterSource
// as its view of the cluster, and creates Ingresses through the API.
func TestWebhookEnvtest(t *testing.T) {
	cfg := envtesting.Start(t)
	client := kubernetes.NewForConfigOrDie(cfg)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	mustCreate(t, func() error {
		_, err := client.NetworkingV1().IngressClasses().Create(ctx, &networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
			Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
		}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
		}, metav1.CreateOptions{})
		return err
	})

	src, err := controller.NewClusterSource(controller.ClusterSourceConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	srcCtx, stopSrc := context.WithCancel(ctx)
	go func() { runDone <- src.Run(srcCtx, func() {}) }()
	defer func() {
		stopSrc()
		if err := <-runDone; err != nil {
			t.Errorf("ClusterSource.Run: %v", err)
		}
	}()
	if !src.WaitForSync(ctx) {
		t.Fatal("the ClusterSource did not sync")
	}

	v, err := admission.NewValidator(src.Snapshot, render.DefaultOptions(), false)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(admission.Path, admission.NewHandler(v))
	ca := testcerts.NewCA(t)
	certFile, keyFile := ca.Issue(t, t.TempDir(), "webhook", 2)
	srv, err := admission.Listen("127.0.0.1:0", certFile, keyFile, mux)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, srv)
	registerWebhook(ctx, t, client, "https://"+srv.Addr().String()+admission.Path, ca.PEM)

	ings := client.NetworkingV1().Ingresses("default")
	create := func(ing *networkingv1.Ingress) error {
		_, err := ings.Create(ctx, ing, metav1.CreateOptions{})
		return err
	}
	if err := create(ingress("a", "/")); err != nil {
		t.Fatalf("ingress a was not admitted: %v", err)
	}
	// The webhook sees the cluster through the ClusterSource's caches:
	// wait until they hold a (an informer's usual lag).
	waitFor(t, "ingress a in the ClusterSource", func() bool {
		s, err := src.Snapshot()
		return err == nil && len(s.Ingresses) == 1
	})

	err = create(ingress("b", "/"))
	wantDenied(t, "b on the path of a", err, `ingress default/b: spec.rules[0].http.paths[0]: host "a.example.com" path "/" (Prefix) is already served by ingress default/a (older)`)
	if err := create(ingress("b", "/b")); err != nil {
		t.Errorf("b with another path was not admitted: %v", err)
	}
	snippet := ingress("snippet", "/snippet")
	snippet.Annotations = map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "return 200 'owned';\nroot /;"}
	err = create(snippet)
	wantDenied(t, "a configuration-snippet", err, `metadata.annotations[nginx.ingress.kubernetes.io/configuration-snippet]: line 2: directive "root": not translated`)

	// An update is judged as well; a delete is not.
	a, err := ings.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "lots"}
	_, err = ings.Update(ctx, a, metav1.UpdateOptions{})
	wantDenied(t, "an update with a bad value", err, `proxy-body-size]: invalid value "lots"`)
	if err := ings.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting a: %v", err)
	}
}

func ingress(name, path string) *networkingv1.Ingress {
	class := "nginx"
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{Host: "a.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}},
				}}},
			}}}},
		},
	}
}

// registerWebhook registers url as ingress-nginx's manifests do (Ingress
// CREATE and UPDATE, failurePolicy Fail) and waits until the API server
// calls it: a dry-run create with a snippet is denied by it.
func registerWebhook(ctx context.Context, t *testing.T, client kubernetes.Interface, url string, caBundle []byte) {
	t.Helper()
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	_, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kubectl-ingress-admission"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "validate.nginx.ingress.kubernetes.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"networking.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"ingresses"},
				},
			}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	probe := ingress("probe", "/probe")
	probe.Annotations = map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"}
	waitFor(t, "the API server to call the webhook", func() bool {
		_, err := client.NetworkingV1().Ingresses("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "denied the request")
	})
}

func wantDenied(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s was admitted; want it denied with %q", what, want)
		return
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Code != http.StatusBadRequest {
		t.Errorf("%s: %v; want a 400 status error from the webhook", what, err)
	}
	if msg := err.Error(); !strings.Contains(msg, `admission webhook "validate.nginx.ingress.kubernetes.io" denied the request`) || !strings.Contains(msg, want) {
		t.Errorf("%s: error %q; want the webhook's denial with %q", what, msg, want)
	}
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond every 100 ms for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
