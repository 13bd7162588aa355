package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// countingRecorder records the involved objects' names of the Events.
type countingRecorder struct {
	mu    sync.Mutex
	names []string
}

func (r *countingRecorder) Event(obj runtime.Object, _, _, _ string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, obj.(metav1.Object).GetName())
}

func (r *countingRecorder) Eventf(obj runtime.Object, t, reason, format string, args ...any) {
	r.Event(obj, t, reason, fmt.Sprintf(format, args...))
}

func (r *countingRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, t, reason, format string, args ...any) {
	r.Event(obj, t, reason, fmt.Sprintf(format, args...))
}

func (r *countingRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.names
	r.names = nil
	return out
}

func syncIngress(name, class string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: name, UID: types.UID("uid-" + name), Generation: 1, ResourceVersion: "1"},
		Spec:       networkingv1.IngressSpec{IngressClassName: &class},
	}
}

// TestSyncEventsOnlyForNewOrChanged: the first sync makes one Event per
// Ingress of the class; a sync without change none; a spec change
// (generation), an annotation change, a re-created Ingress (new UID) and
// a move into the class one each; a status-only update (resourceVersion)
// none; the other class's never.
func TestSyncEventsOnlyForNewOrChanged(t *testing.T) {
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	a, b, other := syncIngress("a", "nginx"), syncIngress("b", "nginx"), syncIngress("other", "other")
	snap := render.Snapshot{IngressClasses: []*networkingv1.IngressClass{class}, Ingresses: []*networkingv1.Ingress{a, b, other}}
	rec := &countingRecorder{}
	e := NewSyncEvents(rec, render.DefaultOptions())
	sync := func() []string {
		e.Synced(context.Background(), SyncResult{Snapshot: snap, Desired: &model.Config{}})
		return rec.take()
	}
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"first sync", func() {}, "[a b]"},
		{"no change", func() {}, "[]"},
		{"status only", func() {
			a.ResourceVersion = "2"
			a.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1"}}
		}, "[]"},
		{"spec", func() { a.Generation, a.ResourceVersion = 2, "3" }, "[a]"},
		{"annotation", func() {
			b.Annotations, b.ResourceVersion = map[string]string{"nginx.ingress.kubernetes.io/rewrite-target": "/"}, "4"
		}, "[b]"},
		{"re-created", func() { b.UID = "uid-b2" }, "[b]"},
		{"moved into the class", func() {
			n := "nginx"
			other.Spec.IngressClassName = &n
			other.Generation, other.ResourceVersion = 2, "5"
		}, "[other]"},
	}
	for _, st := range steps {
		st.change()
		if got := fmt.Sprint(sync()); got != st.want {
			t.Errorf("%s: events on %s, want %s", st.name, got, st.want)
		}
	}
	e.Synced(context.Background(), SyncResult{Snapshot: snap}) // no Desired: the sync did not get as far as a plan
	if got := rec.take(); len(got) != 0 {
		t.Errorf("events without a plan: %v", got)
	}
}

// BenchmarkSyncEvents10000 is the cost SyncEvents adds to each sync at
// 10,000 Ingresses of the class when nothing changed.
func BenchmarkSyncEvents10000(b *testing.B) {
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	snap := render.Snapshot{IngressClasses: []*networkingv1.IngressClass{class}}
	for i := range 10000 {
		ing := syncIngress(fmt.Sprintf("ing-%05d", i), "nginx")
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "8m", "nginx.ingress.kubernetes.io/ssl-redirect": "false"}
		snap.Ingresses = append(snap.Ingresses, ing)
	}
	rec := &countingRecorder{}
	e := NewSyncEvents(rec, render.DefaultOptions())
	r := SyncResult{Snapshot: snap, Desired: &model.Config{}}
	e.Synced(context.Background(), r)
	if n := len(rec.take()); n != 10000 {
		b.Fatalf("%d events at the first sync", n)
	}
	for b.Loop() {
		e.Synced(context.Background(), r)
	}
	if n := len(rec.take()); n != 0 {
		b.Fatalf("%d events without change", n)
	}
}
