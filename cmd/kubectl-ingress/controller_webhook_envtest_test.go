package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
)

// TestControllerCommandWebhook runs `kubectl ingress controller` in
// cluster mode with --validating-webhook on a real kube-apiserver (and a
// real nginx), registers the webhook there, and creates Ingresses through
// the API: a path another Ingress serves, a snippet and (--strict) an
// Ingress whose line nginx -t refuses are denied, the rest admitted; when
// the command's context ends the webhook stops listening.
func TestControllerCommandWebhook(t *testing.T) {
	refused := nginxrefuses.Pick(t)
	cfg, cs := clusterForCommand(t)
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := cs.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	certFile, keyFile, ca := testcerts.Loopback(t, "webhook")
	caBundle := ca.PEM
	ports := freeTCPPorts(t, 5)
	webhook := fmt.Sprintf("127.0.0.1:%d", ports[4])
	errOut := &lockedWriter{}
	// The command with the writer's test seam on (no flag reaches it): the
	// culprit's line is one nginx -t refuses (nginxrefuses.Seam).
	o := NewControllerOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: errOut})
	o.Render.testRefusal = nginxrefuses.SeamPath
	cmd := newCmdController(o)
	cmd.SetArgs([]string{"--kubeconfig", writeKubeconfig(t, cfg), "--nginx-prefix", t.TempDir(),
		"--update-status=false", "--listen-address", "127.0.0.1", "--worker-processes", "1",
		"--http-port", fmt.Sprint(ports[0]), "--https-port", fmt.Sprint(ports[1]),
		"--status-address", fmt.Sprintf("127.0.0.1:%d", ports[2]), "--health-addr", fmt.Sprintf("127.0.0.1:%d", ports[3]),
		"--validating-webhook", webhook, "--validating-webhook-certificate", certFile, "--validating-webhook-key", keyFile, "--strict",
		"--routing", "nginx"}) // the seam writes its line in a classic location
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runContext(runCtx, cmd) }()

	url := "https://" + webhook + admission.Path
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kubectl-ingress-admission"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "validate.nginx.ingress.kubernetes.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"networking.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"ingresses"}},
			}},
			FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	ings := cs.NetworkingV1().Ingresses("default")
	ingress := func(name, path string, annotations map[string]string) *networkingv1.Ingress {
		pt := networkingv1.PathTypePrefix
		return &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: annotations},
			Spec: networkingv1.IngressSpec{IngressClassName: new("nginx"), Rules: []networkingv1.IngressRule{{Host: "web.example.com",
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
				}}}}}}},
		}
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		waitForCommand(t, what, errOut, cond)
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	snippet := ingress("snippet", "/snippet", map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "return 200;\ninclude /etc/passwd;"})
	waitUntil("the API server to call the webhook", func() bool {
		_, err := ings.Create(ctx, snippet, dryRun)
		return err != nil && strings.Contains(err.Error(), "the snippet is not supported as written")
	})
	if _, err := ings.Create(ctx, ingress("a", "/", nil), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a was denied: %v", err)
	}
	want := `ingress default/b: spec.rules[0].http.paths[0]: host "web.example.com" path "/" (Prefix) is already served by ingress default/a (older)`
	// The controller's caches see a a moment later.
	waitUntil("the webhook to know a", func() bool {
		_, err := ings.Create(ctx, ingress("b", "/", nil), dryRun)
		return err != nil && strings.Contains(err.Error(), want)
	})
	_, err = ings.Create(ctx, ingress("b", "/", nil), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `admission webhook "validate.nginx.ingress.kubernetes.io" denied the request`) || !strings.Contains(err.Error(), want) {
		t.Errorf("b on a's path: %v; want the webhook's denial with %q", err, want)
	}
	if _, err := ings.Create(ctx, ingress("b", "/b", nil), metav1.CreateOptions{}); err != nil {
		t.Errorf("b on another path was denied: %v", err)
	}
	if _, err := ings.Create(ctx, snippet, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "the snippet is not supported as written") {
		t.Errorf("the snippet Ingress: %v, want the webhook's denial", err)
	}
	_, err = ings.Create(ctx, refused.Ingress("default", "refused", "refused.example.com", "web"), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "ingress default/refused: nginx -t: ") {
		t.Errorf("an Ingress nginx -t refuses (%s): %v, want the webhook's denial with nginx's message", refused.Name, err)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after the context ended:\n%s", code, errOut.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the command did not stop")
	}
	if c, err := net.DialTimeout("tcp", webhook, time.Second); err == nil {
		c.Close()
		t.Error("the webhook still listens after the command returned")
	}
}
