package manifest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// object is a decoded object of a kind render reads, completed, with
// where it was read and its key.
type object struct {
	origin origin
	obj    runtime.Object
	key    objectKey
}

type objectKey struct {
	kind, namespace, name string
}

// complete checks a decoded object's name, gives it the default namespace
// (none for cluster-scoped kinds, as the API server does), merges a
// Secret's stringData, as the API server would on write, and drops what
// render never reads (TrimUnread).
func complete(o decodedObject, defaultNamespace string) (object, error) {
	var (
		kind       string
		meta       *metav1.ObjectMeta
		namespaced = true
	)
	switch obj := o.obj.(type) {
	case *networkingv1.Ingress:
		kind, meta = "Ingress", &obj.ObjectMeta
	case *networkingv1.IngressClass:
		kind, meta, namespaced = "IngressClass", &obj.ObjectMeta, false
	case *corev1.Service:
		kind, meta = "Service", &obj.ObjectMeta
	case *discoveryv1.EndpointSlice:
		kind, meta = "EndpointSlice", &obj.ObjectMeta
	case *corev1.Secret:
		kind, meta = "Secret", &obj.ObjectMeta
		mergeStringData(obj)
	case *corev1.ConfigMap:
		kind, meta = "ConfigMap", &obj.ObjectMeta
	default:
		// decoder registers exactly the kinds above.
		return object{}, o.origin.errorf("internal error: decoded an unexpected %T", o.obj)
	}
	if meta.Name == "" {
		return object{}, o.origin.errorf("%s: metadata.name is not set", kind)
	}
	switch {
	case !namespaced:
		meta.Namespace = ""
	case meta.Namespace == "":
		meta.Namespace = defaultNamespace
	}
	TrimUnread(o.obj)
	return object{origin: o.origin, obj: o.obj, key: objectKey{kind: kind, namespace: meta.Namespace, name: meta.Name}}, nil
}

// Combine puts the objects of files, in order, into one Result (Files are
// the files' names): each kind sorted by namespace, then name. It fails
// with the first error in reading order: the same kind, namespace and name
// twice (the error names both places), or a file's own Err once its
// objects before the error are in. Combine does not change the files.
//
// Duplicates are found as neighbours once each kind is sorted, which
// costs no map of every key; only then, and when a file has an error, are
// the files walked again in reading order for the first error.
func Combine(files []*File) (*Result, error) {
	n := 0
	for _, f := range files {
		if f.Err != nil {
			return nil, firstError(files)
		}
		n += len(f.objects)
	}
	res := &Result{Files: make([]string, len(files)), Skipped: make(map[string]int)}
	s := &res.Snapshot
	hint := shardSizeHint(n)
	for i, f := range files {
		res.Files[i] = f.Name
		for _, key := range f.skipped {
			res.Skipped[key]++
		}
		for _, u := range f.unread {
			s.UnreadIngresses = append(s.UnreadIngresses, render.UnreadIngress{APIVersion: u.apiVersion, Namespace: u.namespace, Name: u.name})
			res.locations.set(objectKey{kind: "Ingress", namespace: u.namespace, name: u.name}, u.origin.location(), hint)
		}
		for _, o := range f.objects {
			res.locations.set(o.key, o.origin.location(), hint)
			appendObject(s, o)
		}
	}
	sortSnapshot(s)
	if hasDuplicates(s) {
		if err := firstError(files); err != nil {
			return nil, err
		}
		return nil, errors.New("internal error: an object is defined twice, but not in the files")
	}
	return res, nil
}

// firstError is the first error of files in reading order, as Combine
// reports it: an object defined twice, or a file's own error after its
// objects; nil when there is none.
func firstError(files []*File) error {
	seen := make(map[objectKey]origin)
	for _, f := range files {
		for _, o := range f.objects {
			if first, dup := seen[o.key]; dup {
				return fmt.Errorf("%s %s is defined twice: in %s and in %s", o.key.kind, o.key.ref(), first, o.origin)
			}
			seen[o.key] = o.origin
		}
		if f.Err != nil {
			return f.Err
		}
	}
	return nil
}

// appendObject appends o to the slice of its kind.
func appendObject(s *render.Snapshot, o object) {
	switch obj := o.obj.(type) {
	case *networkingv1.Ingress:
		s.Ingresses = append(s.Ingresses, obj)
	case *networkingv1.IngressClass:
		s.IngressClasses = append(s.IngressClasses, obj)
	case *corev1.Service:
		s.Services = append(s.Services, obj)
	case *discoveryv1.EndpointSlice:
		s.EndpointSlices = append(s.EndpointSlices, obj)
	case *corev1.Secret:
		s.Secrets = append(s.Secrets, obj)
	case *corev1.ConfigMap:
		s.ConfigMaps = append(s.ConfigMaps, obj)
	}
}

// mergeStringData moves stringData into data, as the API server does on
// write: a key in both takes the stringData value.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		s.StringData = nil
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

func (k objectKey) ref() string {
	if k.namespace == "" {
		return k.name
	}
	return k.namespace + "/" + k.name
}

// sortSnapshot orders every kind by namespace, then name. Keys are unique
// (duplicates are errors), so the order is total.
func sortSnapshot(s *render.Snapshot) {
	sortByKey(s.Ingresses, func(o *networkingv1.Ingress) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(s.IngressClasses, func(o *networkingv1.IngressClass) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(s.Services, func(o *corev1.Service) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(s.EndpointSlices, func(o *discoveryv1.EndpointSlice) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(s.Secrets, func(o *corev1.Secret) *metav1.ObjectMeta { return &o.ObjectMeta })
	sortByKey(s.ConfigMaps, func(o *corev1.ConfigMap) *metav1.ObjectMeta { return &o.ObjectMeta })
}

// hasDuplicates tells whether a kind of s, sorted, has a key twice.
func hasDuplicates(s *render.Snapshot) bool {
	return hasNeighbours(s.Ingresses) || hasNeighbours(s.IngressClasses) || hasNeighbours(s.Services) ||
		hasNeighbours(s.EndpointSlices) || hasNeighbours(s.Secrets) || hasNeighbours(s.ConfigMaps)
}

// hasNeighbours tells whether two neighbours of sorted have the same key.
func hasNeighbours[T namedObject](sorted []T) bool {
	for i := 1; i < len(sorted); i++ {
		if compareObjects(sorted[i-1], sorted[i]) == 0 {
			return true
		}
	}
	return false
}

func sortByKey[T any](objs []T, meta func(T) *metav1.ObjectMeta) {
	slices.SortFunc(objs, func(a, b T) int {
		ma, mb := meta(a), meta(b)
		return cmp.Or(cmp.Compare(ma.Namespace, mb.Namespace), cmp.Compare(ma.Name, mb.Name))
	})
}
