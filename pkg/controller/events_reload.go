package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// The RELOAD Events on the controller pod, with ingress-nginx's reason and
// messages.
const (
	ReasonReload         = "RELOAD"
	MessageReloaded      = "NGINX reload triggered due to a change in configuration"
	messageReloadFailedF = "Error reloading NGINX: %v"

	// podLookupTimeout bounds PodReference's GET.
	podLookupTimeout = 10 * time.Second
)

// PodReference finds the controller's own pod (POD_NAMESPACE/POD_NAME of
// the Deployment's downward API), the object of the RELOAD Events. Its UID
// comes from a GET of the pod (`kubectl describe pod` matches on it); when
// that fails the reference has no UID and the failure is logged. It
// returns nil, with a log line, when namespace or name is unknown.
func PodReference(ctx context.Context, client kubernetes.Interface, namespace, name string) *corev1.ObjectReference {
	log := klog.FromContext(ctx)
	if namespace == "" || name == "" {
		log.Info("No RELOAD events: the controller's pod is unknown (set POD_NAME and POD_NAMESPACE)")
		return nil
	}
	ref := &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: namespace, Name: name}
	// The start of the controller must not wait long on this.
	getCtx, cancel := context.WithTimeout(ctx, podLookupTimeout)
	defer cancel()
	pod, err := client.CoreV1().Pods(namespace).Get(getCtx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		ref.UID = pod.UID
	case apierrors.IsNotFound(err):
		log.Info("The controller's pod was not found; RELOAD events name it without a UID", "pod", namespace+"/"+name)
	default:
		log.Error(err, "Reading the controller's pod; RELOAD events name it without a UID", "pod", namespace+"/"+name)
	}
	return ref
}

// ReloadEvents is the SyncObserver that makes a RELOAD Event on the
// controller pod after each reload: Normal when nginx serves the new
// nginx.conf, Warning with the reason (nginx -t's message, cut to 1 KiB)
// when the reload failed. A config already rejected and held makes no new
// Event.
type ReloadEvents struct {
	recorder record.EventRecorder
	pod      *corev1.ObjectReference
}

var _ SyncObserver = (*ReloadEvents)(nil)

// NewReloadEvents makes RELOAD Events on pod with recorder; pod nil makes
// none.
func NewReloadEvents(recorder record.EventRecorder, pod *corev1.ObjectReference) *ReloadEvents {
	return &ReloadEvents{recorder: recorder, pod: pod}
}

// Synced makes the Event of r, if any.
func (e *ReloadEvents) Synced(_ context.Context, r SyncResult) {
	if e.pod == nil || r.Verdict != ksync.ReloadRequired {
		return
	}
	switch {
	case r.Reloaded:
		e.recorder.Event(e.pod, corev1.EventTypeNormal, ReasonReload, MessageReloaded)
	case r.Err == nil, errors.Is(r.Err, errHeld), errors.Is(r.Err, context.Canceled):
	default:
		var ae *ksync.ApplyError
		if errors.As(r.Err, &ae) && ae.Stage != ksync.StageReload {
			return // the reload was not reached (the bridge push failed)
		}
		e.recorder.Event(e.pod, corev1.EventTypeWarning, ReasonReload, cutMessage(fmt.Sprintf(messageReloadFailedF, reloadCause(r.Err))))
	}
}

// reloadCause is the reload's own error, without the apply wrapping.
func reloadCause(err error) error {
	var ae *ksync.ApplyError
	if errors.As(err, &ae) {
		return ae.Err
	}
	return err
}
