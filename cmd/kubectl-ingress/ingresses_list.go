package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The rows of "ingresses" as objects, for kubectl's printers.
const (
	ingressPathAPIVersion = "ingress.kubectl-ingress.io/v1alpha1"
	ingressPathKind       = "IngressPath"
)

// ingressPath is one row of "ingresses" as the printers see it: an
// object with apiVersion, kind and the Ingress's name and namespace, and
// the row's columns as fields.
type ingressPath struct {
	objectHead   `json:",inline"`
	ingressRoute `json:",inline"`
}

// objectHead is what kubectl's printers need of an object.
type objectHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"metadata"`
}

// routeList is routes as a v1 List, as kubectl get prints a list: one
// IngressPath per row, or with names (-o name) each Ingress once, as a
// networking.k8s.io/v1 Ingress with only its name and namespace.
func routeList(routes []ingressRoute, names bool) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}}
	seen := map[string]bool{}
	for _, r := range routes {
		var head objectHead
		head.Metadata.Name, head.Metadata.Namespace = r.Name, r.Namespace
		var obj any = &ingressPath{objectHead: head, ingressRoute: r}
		obj.(*ingressPath).APIVersion, obj.(*ingressPath).Kind = ingressPathAPIVersion, ingressPathKind
		if names {
			if seen[r.Ingress] {
				continue
			}
			seen[r.Ingress] = true
			head.APIVersion, head.Kind = "networking.k8s.io/v1", "Ingress"
			obj = &head
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: content})
	}
	return list, nil
}
