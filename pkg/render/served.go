package render

import (
	networkingv1 "k8s.io/api/networking/v1"
)

// IngressesOfClass returns the Ingresses of s that belong to this
// controller by the class rules Build applies (spec.ingressClassName, the
// legacy annotation, the default IngressClass, --watch-ingress-without-class),
// in the order of s. Whether Build could serve any of their paths does not
// matter: ingress-nginx writes the status of every Ingress of its class.
func IngressesOfClass(s Snapshot, o Options) []*networkingv1.Ingress {
	f := newClassFilter(s.IngressClasses, o)
	var out []*networkingv1.Ingress
	for _, ing := range s.Ingresses {
		if f.serves(ing) {
			out = append(out, ing)
		}
	}
	return out
}
