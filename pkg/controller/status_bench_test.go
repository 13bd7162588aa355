package controller

import (
	"context"
	"fmt"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

type fixedStatusSnapshot render.Snapshot

func (s fixedStatusSnapshot) Snapshot() (render.Snapshot, error) { return render.Snapshot(s), nil }

// BenchmarkStatusPassUnchanged is the leader's pass over 10,000 Ingresses
// whose status is already right: what every sync and every resync costs
// (no API call).
func BenchmarkStatusPassUnchanged(b *testing.B) {
	snap := render.Snapshot{IngressClasses: []*networkingv1.IngressClass{ingressClass("nginx", "k8s.io/ingress-nginx")}}
	for i := range 10000 {
		snap.Ingresses = append(snap.Ingresses, statusIngress(fmt.Sprintf("ing-%05d", i), "nginx", "203.0.113.7"))
	}
	cs := fake.NewClientset()
	w, err := NewStatusWriter(StatusConfig{Client: cs, Source: fixedStatusSnapshot(snap), Addresses: StaticAddresses{{IP: "203.0.113.7"}}, Build: render.DefaultOptions()})
	if err != nil {
		b.Fatal(err)
	}
	w.SetLeading(true)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := w.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if n := countStatusUpdates(cs); n != 0 {
		b.Fatalf("%d updates in an unchanged pass", n)
	}
}
