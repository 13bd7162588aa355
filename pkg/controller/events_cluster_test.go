package controller_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestEventsOnAPIServer: a Problem on an Ingress becomes a Warning Event
// in the API server that `kubectl describe ingress` shows (same
// involvedObject UID), made once while the problem persists.
func TestEventsOnAPIServer(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustNamespaces(t, cs, "team-a")
	ing, err := cs.NetworkingV1().Ingresses("team-a").Create(context.Background(), testIngress("team-a", "shop", "shop.example.com", "/", "web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := startClusterSource(t, controller.ClusterSourceConfig{Config: cfg})
	w.eventually(t, "ingress team-a/shop", func(s render.Snapshot) bool { return has(s.Ingresses, "team-a/shop") })

	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ev, err := controller.NewEvents(ctx, controller.EventsConfig{Client: cs, Objects: w.src, Host: "test-pod"})
	if err != nil {
		t.Fatal(err)
	}
	p := model.Problem{
		Object: model.ObjectRef{Kind: "Ingress", Namespace: "team-a", Name: "shop"},
		Field:  "metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]",
		Reason: `"lots" is not an nginx size`,
	}
	for range 3 { // three syncs while the problem persists
		ev.ReportProblems(ctx, []model.Problem{p})
	}
	selector := fields.Set{
		"involvedObject.kind": "Ingress",
		"involvedObject.name": "shop",
		"involvedObject.uid":  string(ing.UID),
	}.AsSelector().String()
	var events []corev1.Event
	deadline := time.Now().Add(20 * time.Second)
	for len(events) == 0 && time.Now().Before(deadline) {
		list, err := cs.CoreV1().Events("team-a").List(context.Background(), metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		events = list.Items
		time.Sleep(100 * time.Millisecond)
	}
	if len(events) != 1 {
		t.Fatalf("%d events on the Ingress, want 1: %+v", len(events), events)
	}
	e := events[0]
	if e.Type != corev1.EventTypeWarning || e.Reason != controller.ReasonInvalidConfiguration ||
		e.Message != p.Field+": "+p.Reason || e.Count != 1 ||
		e.Source.Component != controller.DefaultEventComponent || e.Source.Host != "test-pod" ||
		e.InvolvedObject.APIVersion != "networking.k8s.io/v1" {
		t.Errorf("event %+v", e)
	}
}
