package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

var _ UIDLookup = (*ClusterSource)(nil)

// LookupUID finds the UID of a watched object in the caches, for Events.
func (s *ClusterSource) LookupUID(ref model.ObjectRef) (types.UID, bool) {
	l := s.listers
	ns, name := ref.Namespace, ref.Name
	var found []func() (metav1.Object, error)
	switch ref.Kind {
	case "Ingress":
		found = append(found, func() (metav1.Object, error) { return l.ingresses.Ingresses(ns).Get(name) })
	case "IngressClass":
		found = append(found, func() (metav1.Object, error) { return l.ingressClasses.Get(name) })
	case "Service":
		found = append(found, func() (metav1.Object, error) { return l.services.Services(ns).Get(name) })
	case "EndpointSlice":
		found = append(found, func() (metav1.Object, error) { return l.endpointSlices.EndpointSlices(ns).Get(name) })
	case "Secret":
		found = append(found, func() (metav1.Object, error) { return l.tlsSecrets.Secrets(ns).Get(name) })
		for _, sl := range l.namedSecrets {
			found = append(found, func() (metav1.Object, error) { return sl.Secrets(ns).Get(name) })
		}
	case "ConfigMap":
		for _, cl := range l.configMaps {
			found = append(found, func() (metav1.Object, error) { return cl.ConfigMaps(ns).Get(name) })
		}
	}
	for _, get := range found {
		if obj, err := get(); err == nil {
			return obj.GetUID(), true
		}
	}
	return "", false
}
