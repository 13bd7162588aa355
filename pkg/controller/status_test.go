package controller

import (
	"context"
	"errors"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// clientSnapshot is a StatusSource that lists from a (fake) clientset, so
// that the writer sees its own updates as an informer would.
type clientSnapshot struct{ cs kubernetes.Interface }

func (c clientSnapshot) Snapshot() (render.Snapshot, error) {
	ctx := context.Background()
	var s render.Snapshot
	ings, err := c.cs.NetworkingV1().Ingresses("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, err
	}
	for i := range ings.Items {
		s.Ingresses = append(s.Ingresses, &ings.Items[i])
	}
	classes, err := c.cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, err
	}
	for i := range classes.Items {
		s.IngressClasses = append(s.IngressClasses, &classes.Items[i])
	}
	return s, nil
}

func statusIngress(name, class string, status ...string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules:            []networkingv1.IngressRule{{Host: name + ".example.com"}},
		},
	}
	for _, a := range status {
		ing.Status.LoadBalancer.Ingress = append(ing.Status.LoadBalancer.Ingress, addressOf(a))
	}
	return ing
}

func ingressClass(name, controller string) *networkingv1.IngressClass {
	return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
}

// statusOf reads an Ingress's status addresses as "ip-or-host" strings.
func statusOf(t *testing.T, cs kubernetes.Interface, name string) []string {
	t.Helper()
	ing, err := cs.NetworkingV1().Ingresses("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range ing.Status.LoadBalancer.Ingress {
		out = append(out, a.IP+a.Hostname)
	}
	return out
}

func countStatusUpdates(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

func newTestWriter(t *testing.T, cs kubernetes.Interface, addrs string) *StatusWriter {
	t.Helper()
	static, err := ParseStatusAddresses(addrs)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewStatusWriter(StatusConfig{Client: cs, Source: clientSnapshot{cs}, Addresses: StaticAddresses(static), Build: render.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestStatusWriterLeaderWritesServedAndClearsWhatItServed(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(
		ingressClass("nginx", "k8s.io/ingress-nginx"),
		ingressClass("other", "example.com/other"),
		statusIngress("shop", "nginx"),
		statusIngress("moved", "nginx"),
		statusIngress("foreign", "other", "192.0.2.99"),
		statusIngress("stale", "nginx", "198.51.100.1"),
	)
	w := newTestWriter(t, cs, "203.0.113.7, lb.example.com")

	// A follower records what it serves but writes nothing.
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countStatusUpdates(cs); n != 0 {
		t.Fatalf("a follower made %d status updates", n)
	}

	w.SetLeading(true)
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"203.0.113.7", "lb.example.com"} // IPs (no hostname) sort first
	for _, name := range []string{"shop", "moved", "stale"} {
		if got := statusOf(t, cs, name); !slices.Equal(got, want) {
			t.Errorf("%s: status %v, want %v", name, got, want)
		}
	}
	if got := statusOf(t, cs, "foreign"); !slices.Equal(got, []string{"192.0.2.99"}) {
		t.Errorf("foreign (another class): status %v, want untouched [192.0.2.99]", got)
	}

	// A second pass changes nothing.
	before := countStatusUpdates(cs)
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countStatusUpdates(cs) - before; n != 0 {
		t.Errorf("a pass without change made %d updates", n)
	}

	// moved goes to the other class: its status is cleared, once.
	moved := statusIngress("moved", "other")
	moved.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}, {IP: "203.0.113.7"}}
	if _, err := cs.NetworkingV1().Ingresses("ns").Update(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "moved"); len(got) != 0 {
		t.Errorf("moved to another class: status %v, want cleared", got)
	}
	// The other controller writes its own address: left alone.
	moved, _ = cs.NetworkingV1().Ingresses("ns").Get(ctx, "moved", metav1.GetOptions{})
	moved.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.99"}}
	if _, err := cs.NetworkingV1().Ingresses("ns").UpdateStatus(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "moved"); !slices.Equal(got, []string{"192.0.2.99"}) {
		t.Errorf("moved, written by the other controller: status %v, want [192.0.2.99]", got)
	}

	// shop loses its rules: served no more, status cleared.
	shop := statusIngress("shop", "nginx")
	shop.Spec.Rules = nil
	shop.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}, {IP: "203.0.113.7"}}
	if _, err := cs.NetworkingV1().Ingresses("ns").Update(ctx, shop, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "shop"); len(got) != 0 {
		t.Errorf("shop without rules: status %v, want cleared", got)
	}

	// Clear (the shutdown) empties the served ones, never the others.
	if err := w.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "stale"); len(got) != 0 {
		t.Errorf("stale after Clear: %v, want cleared", got)
	}
	if got := statusOf(t, cs, "foreign"); !slices.Equal(got, []string{"192.0.2.99"}) {
		t.Errorf("foreign after Clear: %v, want untouched", got)
	}
}

func TestStatusWriterNeverClearsWhatItNeverServed(t *testing.T) {
	ctx := context.Background()
	// Another class's Ingress that happens to carry our address.
	cs := fake.NewClientset(ingressClass("other", "example.com/other"), statusIngress("foreign", "other", "203.0.113.7"))
	w := newTestWriter(t, cs, "203.0.113.7")
	w.SetLeading(true)
	for range 2 {
		if err := w.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countStatusUpdates(cs); n != 0 {
		t.Errorf("%d status updates of an Ingress never served", n)
	}
}

func TestStatusWriterRetriesAConflictWithAFreshCopy(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(ingressClass("nginx", "k8s.io/ingress-nginx"), statusIngress("shop", "nginx"))
	conflicts := 0
	cs.PrependReactor("update", "ingresses", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && conflicts == 0 {
			conflicts++
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, "shop", errors.New("the object has been modified"))
		}
		return false, nil, nil
	})
	w := newTestWriter(t, cs, "203.0.113.7")
	w.SetLeading(true)
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if conflicts != 1 {
		t.Fatalf("conflicts %d, want 1", conflicts)
	}
	if got := statusOf(t, cs, "shop"); !slices.Equal(got, []string{"203.0.113.7"}) {
		t.Errorf("status %v after a conflict, want [203.0.113.7]", got)
	}
}

func TestStatusWriterObserverWakesOnlyOnceServing(t *testing.T) {
	w := newTestWriter(t, fake.NewClientset(), "203.0.113.7")
	w.Synced(context.Background(), SyncResult{})
	if w.serving.Load() || len(w.wake) != 0 {
		t.Fatal("a sync without a serving config woke the writer")
	}
	w.Synced(context.Background(), SyncResult{Serving: &model.Config{}})
	w.Synced(context.Background(), SyncResult{Serving: &model.Config{}})
	if !w.serving.Load() || len(w.wake) != 1 {
		t.Fatalf("serving %v, wakes pending %d; want true, 1 (coalesced)", w.serving.Load(), len(w.wake))
	}
}

func TestStatusWriterCleanupOfAMovedIngress(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(ingressClass("nginx", "k8s.io/ingress-nginx"), ingressClass("other", "example.com/other"),
		statusIngress("a", "nginx"), statusIngress("b", "nginx"))
	w := newTestWriter(t, cs, "203.0.113.7")
	w.SetLeading(true)
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	move := func(name string, status ...string) {
		ing := statusIngress(name, "other", status...)
		if _, err := cs.NetworkingV1().Ingresses("ns").Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// a moves and its new controller wrote its address before our pass:
	// neither a pass nor Clear touches it.
	move("a", "192.0.2.99")
	// b moves; the first attempt to clear it fails, the next pass retries.
	move("b", "203.0.113.7")
	failed := false
	cs.PrependReactor("update", "ingresses", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && !failed {
			failed = true
			return true, nil, apierrors.NewServiceUnavailable("try later")
		}
		return false, nil, nil
	})
	if err := w.Sync(ctx); err == nil {
		t.Fatal("no error from a pass whose update failed")
	}
	if got := statusOf(t, cs, "b"); !slices.Equal(got, []string{"203.0.113.7"}) {
		t.Fatalf("b after a failed clear: %v", got)
	}
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "b"); len(got) != 0 {
		t.Errorf("b after the retry: %v, want cleared", got)
	}
	if err := w.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, cs, "a"); !slices.Equal(got, []string{"192.0.2.99"}) {
		t.Errorf("a (its new controller's status): %v, want untouched", got)
	}
}
