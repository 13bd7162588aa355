package manifest

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// LastAppliedAnnotation is kubectl apply's copy of the whole object: for a
// Secret it doubles the key material held in memory.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// TrimUnread drops from obj, in place, what render never reads, so that a
// source that keeps 100,000 objects does not keep it too: the managed
// fields and the last-applied annotation of any object, a Service's
// selector (endpoints come from EndpointSlices), and what an EndpointSlice
// says of each endpoint besides its addresses and conditions (the Pod,
// node, zone, topology hints). Read keeps objects
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
	switch o := obj.(type) {
	case *corev1.Service:
		o.Spec.Selector = nil
	case *discoveryv1.EndpointSlice:
		// render reads an endpoint's addresses and conditions only; the
		// Pod it names, its node and zone are about 270 bytes an endpoint
		// (26 MB of 48 MB for 100,000 endpoints of a typical cluster's
		// slices, measured with runtime.MemStats after a Parse)
		for i := range o.Endpoints {
			ep := &o.Endpoints[i]
			ep.TargetRef, ep.NodeName, ep.Zone, ep.Hints, ep.DeprecatedTopology = nil, nil, nil, nil, nil
		}
	}
}
