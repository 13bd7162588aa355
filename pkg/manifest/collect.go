package manifest

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// collector gathers decoded objects into a Snapshot, in document order:
// it defaults namespaces, merges Secret stringData and finds duplicates.
type collector struct {
	defaultNamespace string
	snapshot         render.Snapshot
	skipped          map[string]int
	seen             map[objectKey]origin
}

type objectKey struct {
	kind, namespace, name string
}

// newCollector returns a collector sized for about n objects.
func newCollector(defaultNamespace string, n int) *collector {
	return &collector{
		defaultNamespace: defaultNamespace,
		skipped:          make(map[string]int),
		seen:             make(map[objectKey]origin, n),
	}
}

func (c *collector) add(d decoded) error {
	if d.err != nil {
		return d.err
	}
	for _, key := range d.skipped {
		c.skipped[key]++
	}
	for _, o := range d.objects {
		if err := c.addObject(o); err != nil {
			return err
		}
	}
	return nil
}

func (c *collector) addObject(o decodedObject) error {
	var (
		kind       string
		meta       *metav1.ObjectMeta
		namespaced = true
	)
	switch obj := o.obj.(type) {
	case *networkingv1.Ingress:
		kind, meta = "Ingress", &obj.ObjectMeta
		c.snapshot.Ingresses = append(c.snapshot.Ingresses, obj)
	case *networkingv1.IngressClass:
		kind, meta, namespaced = "IngressClass", &obj.ObjectMeta, false
		c.snapshot.IngressClasses = append(c.snapshot.IngressClasses, obj)
	case *corev1.Service:
		kind, meta = "Service", &obj.ObjectMeta
		c.snapshot.Services = append(c.snapshot.Services, obj)
	case *discoveryv1.EndpointSlice:
		kind, meta = "EndpointSlice", &obj.ObjectMeta
		c.snapshot.EndpointSlices = append(c.snapshot.EndpointSlices, obj)
	case *corev1.Secret:
		kind, meta = "Secret", &obj.ObjectMeta
		mergeStringData(obj)
		c.snapshot.Secrets = append(c.snapshot.Secrets, obj)
	case *corev1.ConfigMap:
		kind, meta = "ConfigMap", &obj.ObjectMeta
		c.snapshot.ConfigMaps = append(c.snapshot.ConfigMaps, obj)
	default:
		// decoder registers exactly the kinds above.
		return o.origin.errorf("internal error: decoded an unexpected %T", o.obj)
	}
	if meta.Name == "" {
		return o.origin.errorf("%s: metadata.name is not set", kind)
	}
	switch {
	case !namespaced:
		meta.Namespace = "" // as the API server does for cluster-scoped objects
	case meta.Namespace == "":
		meta.Namespace = c.defaultNamespace
	}
	key := objectKey{kind: kind, namespace: meta.Namespace, name: meta.Name}
	if first, dup := c.seen[key]; dup {
		return fmt.Errorf("%s %s is defined twice: in %s and in %s", kind, ref(meta), first, o.origin)
	}
	c.seen[key] = o.origin
	return nil
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

func ref(m *metav1.ObjectMeta) string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
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

func sortByKey[T any](objs []T, meta func(T) *metav1.ObjectMeta) {
	slices.SortFunc(objs, func(a, b T) int {
		ma, mb := meta(a), meta(b)
		return cmp.Or(cmp.Compare(ma.Namespace, mb.Namespace), cmp.Compare(ma.Name, mb.Name))
	})
}
