package controller

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ReasonInvalidConfiguration is the reason of the Warning Event made for a
// Problem. ingress-nginx has no Event for invalid input (it logs it and
// its admission webhook rejects it); its own reasons are RELOAD, Sync,
// CREATE, UPDATE and DELETE.
const ReasonInvalidConfiguration = "InvalidConfiguration"

// ReasonQuarantined is the reason of the Warning Event on an Ingress left
// out because nginx -t refused a config it wrote (quarantine.go); the
// message quotes nginx.
const ReasonQuarantined = "Quarantined"

// DefaultEventComponent is the source component of the Events.
const DefaultEventComponent = "kubectl-ingress-controller"

const (
	// defaultMaxTracked bounds the Problems remembered between syncs.
	defaultMaxTracked = 10000
	// defaultMaxPerSync bounds the Events made by one ReportProblems; the
	// Problems left over are reported by the following calls.
	defaultMaxPerSync = 200
	// maxMessage keeps Event messages within what the API accepts.
	maxMessage = 1024
)

// UIDLookup finds the UID of an object a Problem names, so that the Event
// shows in `kubectl describe` of that object. ClusterSource implements it
// from its caches.
type UIDLookup interface {
	LookupUID(ref model.ObjectRef) (types.UID, bool)
}

// EventsConfig configures Events.
type EventsConfig struct {
	// Client creates the Events. Either it or Recorder is required.
	Client kubernetes.Interface
	// Recorder, when set, is used instead of a broadcaster on Client
	// (tests use record.NewFakeRecorder).
	Recorder record.EventRecorder
	// Component is the Events' source component; DefaultEventComponent
	// when empty.
	Component string
	// Host is the reporting instance, usually the pod name.
	Host string
	// Objects finds the UIDs of the objects; optional.
	Objects UIDLookup
	// MaxTracked and MaxPerSync bound memory and Events per sync; 0 for
	// the defaults (10,000 and 200).
	MaxTracked, MaxPerSync int
}

// Events is the ProblemReporter of the cluster source: one Warning Event
// per Problem on the object it names (the Ingress, else the Secret,
// ConfigMap … of the Problem), made once while the Problem persists and
// again if it goes away and comes back.
type Events struct {
	recorder   record.EventRecorder
	objects    UIDLookup
	maxTracked int
	maxPerSync int
	// reported holds the Problems reported and still present at the
	// last call; only ReportProblems touches it (the loop calls it from
	// its one worker).
	reported map[problemKey]struct{}
}

var _ ProblemReporter = (*Events)(nil)

// problemKey identifies a reported Problem; the UID tells apart an object
// deleted and created again with the same name.
type problemKey struct {
	problem model.Problem
	uid     types.UID
}

// NewEvents starts an Event broadcaster on cfg.Client (unless
// cfg.Recorder is given) that runs until ctx ends.
func NewEvents(ctx context.Context, cfg EventsConfig) (*Events, error) {
	e := &Events{
		recorder:   cfg.Recorder,
		objects:    cfg.Objects,
		maxTracked: cfg.MaxTracked,
		maxPerSync: cfg.MaxPerSync,
		reported:   map[problemKey]struct{}{},
	}
	if e.maxTracked <= 0 {
		e.maxTracked = defaultMaxTracked
	}
	if e.maxPerSync <= 0 {
		e.maxPerSync = defaultMaxPerSync
	}
	if e.recorder != nil {
		return e, nil
	}
	if cfg.Client == nil {
		return nil, errors.New("events: neither a client nor a recorder")
	}
	scheme, err := eventScheme()
	if err != nil {
		return nil, err
	}
	component := cfg.Component
	if component == "" {
		component = DefaultEventComponent
	}
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartStructuredLogging(4)
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cfg.Client.CoreV1().Events("")})
	e.recorder = b.NewRecorder(scheme, corev1.EventSource{Component: component, Host: cfg.Host})
	return e, nil
}

// eventScheme knows the kinds Events are made on.
func eventScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, networkingv1.AddToScheme, discoveryv1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("events: scheme: %w", err)
		}
	}
	return s, nil
}

// ReportProblems makes an Event for each Problem not reported at the last
// call, at most MaxPerSync of them (the rest wait for the next call), and
// forgets the Problems that are gone. It never blocks: the broadcaster
// queues and drops when full.
func (e *Events) ReportProblems(ctx context.Context, problems []model.Problem) {
	logger := klog.FromContext(ctx)
	ps := model.SortProblems(append([]model.Problem(nil), problems...))
	next := make(map[problemKey]struct{}, min(len(ps), e.maxTracked))
	made, deferred := 0, 0
	for _, p := range ps {
		if len(next) >= e.maxTracked {
			deferred++
			continue
		}
		uid, _ := e.lookup(p.Object)
		k := problemKey{problem: p, uid: uid}
		if _, ok := e.reported[k]; ok {
			next[k] = struct{}{}
			continue
		}
		if made >= e.maxPerSync {
			deferred++
			continue
		}
		e.recorder.Event(objectReference(p.Object, uid), corev1.EventTypeWarning, eventReason(p), eventMessage(p))
		next[k] = struct{}{}
		made++
	}
	e.reported = next
	if made > 0 || deferred > 0 {
		logger.V(2).Info("Reported problems as events", "new", made, "deferred", deferred, "current", len(ps))
	}
}

func (e *Events) lookup(ref model.ObjectRef) (types.UID, bool) {
	if e.objects == nil {
		return "", false
	}
	return e.objects.LookupUID(ref)
}

// objectReference is the Event's involved object. Events on cluster-scoped
// objects (IngressClass) go to the default namespace, as client-go does.
func objectReference(ref model.ObjectRef, uid types.UID) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		Kind:       ref.Kind,
		APIVersion: apiVersionOf(ref.Kind),
		Namespace:  ref.Namespace,
		Name:       ref.Name,
		UID:        uid,
	}
}

func apiVersionOf(kind string) string {
	switch kind {
	case "Ingress", "IngressClass":
		return networkingv1.SchemeGroupVersion.String()
	case "EndpointSlice":
		return discoveryv1.SchemeGroupVersion.String()
	default: // Service, Secret, ConfigMap
		return corev1.SchemeGroupVersion.String()
	}
}

// Recorder is the recorder the Events are made with (client-go's
// broadcaster on the client: rate-limited per object and aggregated), for
// the other Events of the controller (RELOAD, Sync).
func (e *Events) Recorder() record.EventRecorder { return e.recorder }

// eventReason is the Event reason of a Problem.
func eventReason(p model.Problem) string {
	if isQuarantineProblem(p) {
		return ReasonQuarantined
	}
	return ReasonInvalidConfiguration
}

// eventMessage is "field: reason" (the Event names the object already),
// cut to what the API accepts.
func eventMessage(p model.Problem) string {
	msg := p.Reason
	if p.Field != "" {
		msg = p.Field + ": " + p.Reason
	}
	return cutMessage(msg)
}

// cutMessage cuts msg to maxMessage bytes at a rune boundary, with "…".
func cutMessage(msg string) string {
	if len(msg) > maxMessage {
		cut := maxMessage - len("…")
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
