package controller

import (
	"maps"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
)

// lastAppliedAnnotation is kubectl apply's copy of the whole object.
const lastAppliedAnnotation = manifest.LastAppliedAnnotation

// handlerKind selects how updates are filtered before changed is called.
type handlerKind int

const (
	kindOther handlerKind = iota
	// kindIngress ignores updates that change only the status (written
	// by the controller itself) or other fields render does not read.
	kindIngress
)

// watchedInformer is one informer, what it watches, and how its events
// are filtered.
type watchedInformer struct {
	name     string
	informer cache.SharedIndexInformer
	kind     handlerKind
}

// newFactory makes an informer factory restricted to namespace ("" for
// all) and fieldSelector ("" for none), whose informers drop what render
// never reads (managed fields, the last-applied annotation) before caching.
func (s *ClusterSource) newFactory(resync time.Duration, namespace, fieldSelector string) informers.SharedInformerFactory {
	opts := []informers.SharedInformerOption{
		informers.WithNamespace(namespace),
		informers.WithTransform(trimObject),
	}
	if fieldSelector != "" {
		opts = append(opts, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fieldSelector
		}))
	}
	f := informers.NewSharedInformerFactoryWithOptions(s.client, resync, opts...)
	s.factories = append(s.factories, f)
	return f
}

// watch records an informer for Run to register its handler on.
func (s *ClusterSource) watch(name string, inf cache.SharedIndexInformer, kind handlerKind) {
	s.watched = append(s.watched, watchedInformer{name: name, informer: inf, kind: kind})
}

// trimObject is the informers' transform (manifest.TrimUnread): objects
// arrive freshly decoded, so changing them in place is safe (client-go ≥
// 1.27).
func trimObject(obj any) (any, error) {
	if o, ok := obj.(runtime.Object); ok {
		manifest.TrimUnread(o)
	}
	return obj, nil
}

// newHandler calls changed after every add, delete and relevant update.
// It never blocks: changed only enqueues.
func newHandler(kind handlerKind, changed func()) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		DeleteFunc: func(any) { changed() },
		UpdateFunc: func(old, cur any) {
			if sameVersion(old, cur) {
				return // a resync re-delivering the cache
			}
			if kind == kindIngress && !ingressChanged(old, cur) {
				return
			}
			changed()
		},
	}
}

func sameVersion(old, cur any) bool {
	o, err1 := meta.Accessor(old)
	c, err2 := meta.Accessor(cur)
	return err1 == nil && err2 == nil && o.GetResourceVersion() == c.GetResourceVersion()
}

// ingressChanged reports whether an update changed what render reads of
// an Ingress: its spec, annotations or deletion. Status updates (which
// the controller makes itself) and label changes are not syncs.
func ingressChanged(old, cur any) bool {
	o, ok1 := old.(*networkingv1.Ingress)
	c, ok2 := cur.(*networkingv1.Ingress)
	if !ok1 || !ok2 {
		return true
	}
	return o.UID != c.UID ||
		!maps.Equal(o.Annotations, c.Annotations) ||
		!o.DeletionTimestamp.Equal(c.DeletionTimestamp) ||
		!apiequality.Semantic.DeepEqual(o.Spec, c.Spec)
}
