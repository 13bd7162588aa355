package controller

import (
	"context"
	"hash/fnv"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The Sync Event on an Ingress, with ingress-nginx's reason and message.
const (
	ReasonSync           = "Sync"
	MessageScheduledSync = "Scheduled for sync"
)

// SyncEvents is the SyncObserver that makes ingress-nginx's Normal "Sync"
// Event ("Scheduled for sync") on every Ingress of this controller's class
// that is new to it (created, or moved to this class) or whose spec or
// annotations changed since the last sync. ingress-nginx makes it when the
// informer delivers the change; here it comes after the sync that took the
// change in. Status-only updates make none (ingress-nginx makes one).
type SyncEvents struct {
	recorder record.EventRecorder
	build    render.Options
	// seen is the version of each Ingress of the class at the last sync;
	// only Synced touches it (the loop's one worker).
	seen map[types.UID]ingressVersion
}

var _ SyncObserver = (*SyncEvents)(nil)

// ingressVersion changes when what render reads of an Ingress changes:
// the spec (generation) or the annotations. resourceVersion, which a
// status update changes too, only saves hashing the annotations again.
type ingressVersion struct {
	generation      int64
	annotations     uint64
	resourceVersion string
}

// NewSyncEvents makes Sync Events with recorder on the Ingresses of each
// sync's snapshot that build's class rules select.
func NewSyncEvents(recorder record.EventRecorder, build render.Options) *SyncEvents {
	return &SyncEvents{recorder: recorder, build: build, seen: map[types.UID]ingressVersion{}}
}

// Synced makes the Events of the Ingresses new or changed since the last
// call. The recorder never blocks (its queue drops when full).
func (e *SyncEvents) Synced(ctx context.Context, r SyncResult) {
	if r.Desired == nil {
		return
	}
	ours := render.IngressesOfClass(r.Snapshot, e.build)
	next := make(map[types.UID]ingressVersion, len(ours))
	made := 0
	for _, ing := range ours {
		old, ok := e.seen[ing.UID]
		if ok && old.resourceVersion == ing.ResourceVersion && ing.ResourceVersion != "" {
			next[ing.UID] = old
			continue
		}
		v := versionOf(ing)
		if !ok || old.generation != v.generation || old.annotations != v.annotations {
			e.recorder.Event(ing, corev1.EventTypeNormal, ReasonSync, MessageScheduledSync)
			made++
		}
		next[ing.UID] = v
	}
	e.seen = next
	if made > 0 {
		klog.FromContext(ctx).V(2).Info("Sync events", "ingresses", made)
	}
}

func versionOf(ing *networkingv1.Ingress) ingressVersion {
	keys := make([]string, 0, len(ing.Annotations))
	for k := range ing.Annotations {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := fnv.New64a()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(ing.Annotations[k]))
		h.Write([]byte{0})
	}
	return ingressVersion{generation: ing.Generation, annotations: h.Sum64(), resourceVersion: ing.ResourceVersion}
}
