package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// recordedEvent is one Event a recordingRecorder got.
type recordedEvent struct {
	ref                  corev1.ObjectReference
	typ, reason, message string
}

// recordingRecorder is a record.EventRecorder that keeps what it gets,
// involved object included (record.FakeRecorder drops it).
type recordingRecorder struct {
	mu     sync.Mutex
	events []recordedEvent
}

func (r *recordingRecorder) Event(obj runtime.Object, typ, reason, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recordedEvent{ref: *obj.(*corev1.ObjectReference), typ: typ, reason: reason, message: message})
}

func (r *recordingRecorder) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (r *recordingRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

// take returns the events recorded since the last take.
func (r *recordingRecorder) take() []recordedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// uids is a UIDLookup from a map.
type uids map[model.ObjectRef]types.UID

func (u uids) LookupUID(ref model.ObjectRef) (types.UID, bool) {
	uid, ok := u[ref]
	return uid, ok
}

func newTestEvents(t *testing.T, rec *recordingRecorder, objs controller.UIDLookup, maxTracked, maxPerSync int) *controller.Events {
	t.Helper()
	ev, err := controller.NewEvents(context.Background(), controller.EventsConfig{
		Recorder: rec, Objects: objs, MaxTracked: maxTracked, MaxPerSync: maxPerSync,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestEventsDeduplicate(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	shop := model.ObjectRef{Kind: "Ingress", Namespace: "team-a", Name: "shop"}
	cert := model.ObjectRef{Kind: "Secret", Namespace: "ingress-nginx", Name: "default"}
	class := model.ObjectRef{Kind: "IngressClass", Name: "nginx"}
	bodySize := model.Problem{Object: shop, Field: "metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]", Reason: `"lots" is not a size`}
	noSecret := model.Problem{Object: cert, Field: "--default-ssl-certificate", Reason: "secret not found"}
	classProblem := model.Problem{Object: class, Reason: "bad parameters"}
	lookup := uids{shop: "uid-1"}
	rec := &recordingRecorder{}
	ev := newTestEvents(t, rec, lookup, 0, 0)

	ev.ReportProblems(ctx, []model.Problem{bodySize, noSecret, classProblem})
	got := rec.take()
	if len(got) != 3 {
		t.Fatalf("first report: %d events, want 3: %+v", len(got), got)
	}
	byKind := map[string]recordedEvent{}
	for _, e := range got {
		byKind[e.ref.Kind] = e
		if e.typ != corev1.EventTypeWarning || e.reason != controller.ReasonInvalidConfiguration {
			t.Errorf("event %+v: want Warning %s", e, controller.ReasonInvalidConfiguration)
		}
	}
	want := corev1.ObjectReference{Kind: "Ingress", APIVersion: "networking.k8s.io/v1", Namespace: "team-a", Name: "shop", UID: "uid-1"}
	if e := byKind["Ingress"]; e.ref != want || e.message != bodySize.Field+": "+bodySize.Reason {
		t.Errorf("ingress event %+v, want on %+v with message %q", e, want, bodySize.Field+": "+bodySize.Reason)
	}
	if e := byKind["Secret"]; e.ref.APIVersion != "v1" || e.ref.Name != "default" || e.ref.UID != "" {
		t.Errorf("secret event %+v: want v1 Secret ingress-nginx/default without UID (not in the caches)", e)
	}
	if e := byKind["IngressClass"]; e.ref.Namespace != "" || e.message != "bad parameters" {
		t.Errorf("class event %+v", e)
	}

	// Persisting problems, in another order and with a duplicate: nothing.
	ev.ReportProblems(ctx, []model.Problem{classProblem, noSecret, bodySize, bodySize})
	if got := rec.take(); len(got) != 0 {
		t.Errorf("persisting problems reported again: %+v", got)
	}
	// One goes away, then comes back: reported again, once.
	ev.ReportProblems(ctx, []model.Problem{noSecret, classProblem})
	ev.ReportProblems(ctx, []model.Problem{noSecret, classProblem, bodySize})
	if got := rec.take(); len(got) != 1 || got[0].ref.Kind != "Ingress" {
		t.Errorf("problem back after going away: %+v, want one event on the Ingress", got)
	}
	// The Ingress deleted and created again under the same name (a new
	// UID) between two syncs: its problem is new.
	lookup[shop] = "uid-2"
	ev.ReportProblems(ctx, []model.Problem{noSecret, classProblem, bodySize})
	if got := rec.take(); len(got) != 1 || got[0].ref.UID != "uid-2" {
		t.Errorf("same problem on a recreated Ingress: %+v, want one event with uid-2", got)
	}
	ev.ReportProblems(ctx, nil)
	if got := rec.take(); len(got) != 0 {
		t.Errorf("no problems: %+v", got)
	}
}

func TestEventsBounded(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	var ps []model.Problem
	for i := range 25 {
		ps = append(ps, model.Problem{Object: model.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: fmt.Sprintf("ing-%02d", i)}, Reason: "bad"})
	}
	rec := &recordingRecorder{}
	ev := newTestEvents(t, rec, nil, 20, 10)
	// 10 per call; the rest wait for the next calls; 20 remembered at most.
	for call, want := range []int{10, 10, 0, 0} {
		ev.ReportProblems(ctx, ps)
		if got := len(rec.take()); got != want {
			t.Errorf("call %d: %d events, want %d", call, got, want)
		}
	}
	// The 5 beyond MaxTracked are reported once the others are gone.
	ev.ReportProblems(ctx, ps[20:])
	if got := len(rec.take()); got != 5 {
		t.Errorf("after the tracked problems went away: %d events, want 5", got)
	}
}

func TestEventsMessageLimit(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	rec := &recordingRecorder{}
	ev := newTestEvents(t, rec, nil, 0, 0)
	long := strings.Repeat("é", 2000)
	ev.ReportProblems(ctx, []model.Problem{{Object: model.ObjectRef{Kind: "Ingress", Namespace: "a", Name: "b"}, Reason: long}})
	got := rec.take()
	if len(got) != 1 {
		t.Fatalf("%d events", len(got))
	}
	if m := got[0].message; len(m) > 1024 || !utf8.ValidString(m) || !strings.HasSuffix(m, "…") {
		t.Errorf("message of %d bytes, valid UTF-8 %v: want at most 1024, valid, ending in …", len(m), utf8.ValidString(m))
	}
}

func TestNewEventsNeedsClientOrRecorder(t *testing.T) {
	if _, err := controller.NewEvents(context.Background(), controller.EventsConfig{}); err == nil {
		t.Error("want an error")
	}
}
