package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	dto "github.com/prometheus/client_model/go"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func testElector(t *testing.T, cs kubernetes.Interface, identity string) *Elector {
	t.Helper()
	e, err := NewElector(ElectorConfig{
		Client: cs, Namespace: "ingress", Name: "lock", Identity: identity,
		// Long enough that a stalled renewal on a busy machine does not lose
		// the lease; the take-overs the tests check come from releases.
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 250 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func leaseHolder(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	l, err := cs.CoordinationV1().Leases("ingress").Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func gaugeValue(t *testing.T, e *Elector) (leader, transitions float64) {
	t.Helper()
	var g, c dto.Metric
	if err := e.metrics.leader.Write(&g); err != nil {
		t.Fatal(err)
	}
	if err := e.metrics.transitions.Write(&c); err != nil {
		t.Fatal(err)
	}
	return g.GetGauge().GetValue(), c.GetCounter().GetValue()
}

func TestElectorOneLeaderThenTakeOver(t *testing.T) {
	cs := fake.NewClientset()
	a, b := testElector(t, cs, "a"), testElector(t, cs, "b")
	ctxA, stopA := context.WithCancel(context.Background())
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	var mu sync.Mutex
	leads := map[string]int{}
	run := func(ctx context.Context, e *Elector, done chan struct{}) {
		defer close(done)
		e.Run(ctx, func(lctx context.Context) {
			mu.Lock()
			leads[e.Identity()]++
			mu.Unlock()
			<-lctx.Done()
		})
	}
	doneA, doneB := make(chan struct{}), make(chan struct{})
	go run(ctxA, a, doneA)
	eventually(t, 10*time.Second, "a to lead", a.IsLeader)
	go run(ctxB, b, doneB)
	// b competes for 3 lease renewals and never leads meanwhile.
	for range 12 {
		time.Sleep(250 * time.Millisecond)
		if b.IsLeader() || !a.IsLeader() || leaseHolder(t, cs) != "a" {
			t.Fatalf("a leads %v, b leads %v, holder %q: want a alone", a.IsLeader(), b.IsLeader(), leaseHolder(t, cs))
		}
	}
	if g, n := gaugeValue(t, a); g != 1 || n != 1 {
		t.Errorf("a's leader gauge %v, transitions %v; want 1, 1", g, n)
	}

	stopA()
	<-doneA // Run returns once the lease is released
	if a.IsLeader() {
		t.Error("a still leads after its context ended")
	}
	if g, n := gaugeValue(t, a); g != 0 || n != 2 {
		t.Errorf("a's leader gauge %v, transitions %v after stopping; want 0, 2", g, n)
	}
	eventually(t, 10*time.Second, "b to take over", b.IsLeader)
	if h := leaseHolder(t, cs); h != "b" {
		t.Errorf("lease holder %q, want b", h)
	}
	// client-go calls the lead function in a goroutine of its own: it may
	// run just after IsLeader turned true.
	calls := func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprint(leads)
	}
	eventually(t, 10*time.Second, "b's lead call", func() bool { return calls() == "map[a:1 b:1]" })
	time.Sleep(100 * time.Millisecond)
	if got := calls(); got != "map[a:1 b:1]" {
		t.Errorf("lead calls %s, want a:1 b:1", got)
	}
}

func TestNewElectorErrors(t *testing.T) {
	cs := fake.NewClientset()
	for _, c := range []struct {
		cfg  ElectorConfig
		want string
	}{
		{ElectorConfig{Client: cs, Name: "x", Identity: "p"}, "POD_NAMESPACE"},
		{ElectorConfig{Client: cs, Namespace: "ns", Identity: "p"}, "--election-id"},
		{ElectorConfig{Client: cs, Namespace: "ns", Name: "x"}, "POD_NAME"},
		{ElectorConfig{Client: cs, Namespace: "ns", Name: "x", Identity: "p", LeaseDuration: time.Second, RenewDeadline: 2 * time.Second}, "leaseDuration must be greater than renewDeadline"},
	} {
		if _, err := NewElector(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// Shutdown clears the status (unless other replicas remain, which the
// next leader serves) and then releases the Lease; a second Shutdown is a
// no-op.
func TestStatusDutiesShutdown(t *testing.T) {
	for _, tc := range []struct {
		name       string
		others     int
		wantStatus int
	}{
		{"the only replica clears, then releases", 0, 0},
		{"with another replica left the status stays", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(ingressClass("nginx", "k8s.io/ingress-nginx"), statusIngress("shop", "nginx"))
			d := &StatusDuties{Elector: testElector(t, cs, "a"), Writer: newTestWriter(t, cs, "203.0.113.7"), UpdateStatusOnShutdown: true,
				OtherReplicas: func(context.Context) (int, error) { return tc.others, nil }}
			d.Writer.Synced(context.Background(), SyncResult{Serving: &model.Config{}})
			d.Start(context.Background())
			eventually(t, 10*time.Second, "the leader to write the status", func() bool {
				return len(statusOf(t, cs, "shop")) == 1
			})
			if err := d.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := statusOf(t, cs, "shop"); len(got) != tc.wantStatus {
				t.Errorf("status %v after Shutdown, want %d address(es)", got, tc.wantStatus)
			}
			if h := leaseHolder(t, cs); h != "" {
				t.Errorf("lease holder %q after Shutdown, want released", h)
			}
			if err := d.Shutdown(context.Background()); err != nil {
				t.Errorf("second Shutdown: %v", err)
			}
		})
	}
}
