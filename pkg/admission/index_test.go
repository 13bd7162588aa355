package admission

import (
	"sync"
	"sync/atomic"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestIndexFollowsTheSnapshot: the index is kept while the objects are the
// same pointers, and made again when one is added, removed or replaced (an
// informer replaces the object on every update).
func TestIndexFollowsTheSnapshot(t *testing.T) {
	var current render.Snapshot
	v, err := NewValidator(func() (render.Snapshot, error) { return current, nil }, render.DefaultOptions(), false)
	if err != nil {
		t.Fatal(err)
	}
	cand := newIngress("new", "a.example.com", "/", "web")
	review := func(what string, wantDenied bool) {
		t.Helper()
		verdict, err := v.Validate(cand, true)
		if err != nil {
			t.Fatal(err)
		}
		if denied := len(verdict.Denials) > 0; denied != wantDenied {
			t.Errorf("%s: denied = %v, want %v (%v)", what, denied, wantDenied, verdict.Denials)
		}
		x := &v.index.ingresses
		distinct := map[*networkingv1.Ingress]bool{}
		for _, ing := range current.Ingresses {
			distinct[ing] = true
		}
		if len(x.entries) != len(distinct) {
			t.Errorf("%s: the index holds %d Ingresses, the snapshot %d", what, len(x.entries), len(distinct))
		}
		for _, ing := range x.byKey["h:a.example.com"] {
			if _, ok := x.entries[ing]; !ok {
				t.Errorf("%s: the index still finds %s/%s, which is gone", what, ing.Namespace, ing.Name)
			}
		}
	}

	current = fixture()
	review("the path of old", true)
	review("the same objects again", true)
	moved := newIngress("old", "a.example.com", "/elsewhere", "web", created(t0))
	current.Ingresses = []*networkingv1.Ingress{moved}
	review("old replaced by a version on another path", false)
	current.Ingresses = nil
	review("old deleted", false)
	current.Ingresses = []*networkingv1.Ingress{newIngress("other", "a.example.com", "/", "web", created(t0))}
	review("another Ingress on the path", true)
	current.Ingresses = append(current.Ingresses, current.Ingresses[0])
	review("an Ingress listed twice", true)
}

// TestValidateConcurrently: reviews run at once (the HTTP server calls
// Validate from many goroutines) while the snapshot changes between them;
// each still gets the verdict of the snapshot it read. Run with -race.
func TestValidateConcurrently(t *testing.T) {
	with, without := fixture(), fixture()
	without.Ingresses = nil
	var n atomic.Int64
	v, err := NewValidator(func() (render.Snapshot, error) {
		if n.Add(1)%2 == 0 {
			return with, nil
		}
		return without, nil
	}, render.DefaultOptions(), false)
	if err != nil {
		t.Fatal(err)
	}
	cand := newIngress("new", "a.example.com", "/", "web")
	var wg sync.WaitGroup
	var denied atomic.Int64
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 20; i++ {
				verdict, err := v.Validate(cand, true)
				if err != nil {
					t.Error(err)
					return
				}
				if len(verdict.Denials) > 0 {
					denied.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if d := denied.Load(); d != 80 {
		t.Errorf("%d of 160 reviews denied, want the 80 that read the snapshot with old", d)
	}
}

// TestPrime: Prime indexes the cluster before any review.
func TestPrime(t *testing.T) {
	s := fixture()
	v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, render.DefaultOptions(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Prime(); err != nil {
		t.Fatal(err)
	}
	if n := len(v.index.ingresses.entries); n != len(s.Ingresses) {
		t.Errorf("%d Ingresses indexed, want %d", n, len(s.Ingresses))
	}
	if n := len(v.index.services.byKey["default/web"]); n != 1 {
		t.Errorf("Service default/web indexed %d times, want once", n)
	}
}
