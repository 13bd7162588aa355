package manifest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// LastAppliedAnnotation is kubectl apply's copy of the whole object: for a
// Secret it doubles the key material held in memory.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// TrimUnread drops from obj, in place, what render never reads, so that a
// source that keeps 100,000 objects does not keep it too: the managed
// fields and the last-applied annotation of any object, and a Service's
// selector (endpoints come from EndpointSlices). Read keeps objects
// trimmed; the controller's cluster source trims what its informers cache.
func TrimUnread(obj runtime.Object) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return // not an object
	}
	acc.SetManagedFields(nil)
	if ann := acc.GetAnnotations(); ann != nil {
		if _, ok := ann[LastAppliedAnnotation]; ok {
			delete(ann, LastAppliedAnnotation)
			acc.SetAnnotations(ann)
		}
	}
	if s, ok := obj.(*corev1.Service); ok {
		s.Spec.Selector = nil
	}
}
