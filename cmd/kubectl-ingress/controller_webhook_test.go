package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func TestWebhookFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--from-files", dir, "--validating-webhook", ":8443", "--validating-webhook-certificate", "c", "--validating-webhook-key", "k"}, "--validating-webhook needs a cluster"},
		{[]string{"--validating-webhook", ":8443"}, "needs --validating-webhook-certificate and --validating-webhook-key"},
		{[]string{"--validating-webhook", "8443", "--validating-webhook-certificate", "c", "--validating-webhook-key", "k"}, "want host:port"},
		{[]string{"--from-files", dir, "--strict"}, "need --validating-webhook"},
	}
	for _, tc := range cases {
		code, _, errOut := runCmd(t, "", append([]string{"controller"}, tc.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// webhookTestSource is a synced Source of fixed objects.
type webhookTestSource struct{ snap render.Snapshot }

func (s webhookTestSource) WaitForSync(context.Context) bool   { return true }
func (s webhookTestSource) Snapshot() (render.Snapshot, error) { return s.snap, nil }

// TestWebhookAround: the serve function that around makes serves the
// webhook over TLS beside the controller's servers and stops with them.
func TestWebhookAround(t *testing.T) {
	certFile, keyFile, ca := testcerts.Loopback(t, "webhook")
	pool := ca.Pool()
	class := "nginx"
	old := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "old", CreationTimestamp: metav1.NewTime(time.Unix(1, 0))},
		Spec:       networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: "a.example.com"}}},
	}
	f := WebhookFlags{Address: "127.0.0.1:0", Certificate: certFile, Key: keyFile}
	src := webhookTestSource{render.Snapshot{Ingresses: []*networkingv1.Ingress{old}}}
	srv, v, err := f.listen(src, render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr().String()
	inner := make(chan struct{})
	serve := withWebhook(srv, v, src, func(ctx context.Context) error { close(inner); <-ctx.Done(); return nil })
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	<-inner

	cand := old.DeepCopy()
	cand.Name, cand.CreationTimestamp = "new", metav1.Time{}
	cand.Annotations = map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "x"}
	raw, _ := json.Marshal(cand)
	body, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "u1", Operation: admissionv1.Create, Namespace: "default", Name: "new",
			Kind: metav1.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, Object: runtime.RawExtension{Raw: raw}},
	})
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Post("https://"+addr+admission.Path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out admissionv1.AdmissionReview
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || out.Response == nil || out.Response.Allowed || out.Response.UID != "u1" ||
		!strings.Contains(out.Response.Result.Message, "server-snippet") {
		t.Fatalf("answer %+v (%v); want the snippet denied", out.Response, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("the webhook still listens after its context ended")
	}
}

// strictValidator listens as the webhook of f on src (default render
// options) with its nginx -t attached, both closed when the test ends,
// and returns the validator.
func strictValidator(t *testing.T, f *WebhookFlags, src webhookSource) *admission.Validator {
	t.Helper()
	srv, v, err := f.listen(src, render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cleanup, err := f.attachNginxTest(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return v
}

// TestWebhookStrictNginxTest: with --strict the webhook runs a real nginx
// -t (in a throwaway prefix) on the config the candidate makes, and denies
// a candidate whose own line nginx refuses, with nginx's message.
func TestWebhookStrictNginxTest(t *testing.T) {
	in := nginxrefuses.Pick(t)
	certFile, keyFile, _ := testcerts.Loopback(t, "webhook")
	f := WebhookFlags{Address: "127.0.0.1:0", Certificate: certFile, Key: keyFile, Strict: true}
	f.useNginx("", nginxrefuses.Conf()) // the writer's test seam on: the culprit's line is refused
	src := webhookTestSource{render.Snapshot{
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}},
	}}
	v := strictValidator(t, &f, src)

	verdict, err := v.ValidateContext(context.Background(), in.Ingress("default", "bad", "bad.example.com", "web"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(verdict.Denials) != 1 || !strings.HasPrefix(verdict.Denials[0].String(), "ingress default/bad: nginx -t: ") {
		t.Errorf("denials %v, want nginx -t's message", verdict.Denials)
	}
	good := nginxrefuses.Input{}.Ingress("default", "good", "good.example.com", "web")
	if verdict, err := v.ValidateContext(context.Background(), good, true); err != nil || len(verdict.Denials)+len(verdict.Warnings) != 0 {
		t.Errorf("a good Ingress: %+v, %v", verdict, err)
	}
}
