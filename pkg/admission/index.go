package admission

import (
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// kindIndex maps keys to the objects of one kind. A Source's caches
// replace an object (a new pointer) on every change, so the index follows
// a new list of objects by their pointers alone: the objects it already
// has keep their keys (nothing of them is read again), new ones are
// indexed, and the ones gone are taken out. A review after a change costs
// a map lookup per object, not a new index.
type kindIndex[T any] struct {
	gen     uint64
	entries map[*T]indexEntry
	byKey   map[string][]*T
}

type indexEntry struct {
	gen  uint64 // the last refresh that saw the object
	keys []string
}

// refresh brings the index up to objs; keys gives a new object's keys.
func (x *kindIndex[T]) refresh(objs []*T, keys func(*T) []string) {
	if x.entries == nil {
		x.entries = make(map[*T]indexEntry, len(objs))
		x.byKey = make(map[string][]*T, len(objs))
	}
	x.gen++
	marked := 0
	for _, o := range objs {
		e, ok := x.entries[o]
		switch {
		case ok && e.gen == x.gen: // listed twice
			continue
		case ok:
			e.gen = x.gen
		default:
			e = indexEntry{gen: x.gen, keys: keys(o)}
			for _, k := range e.keys {
				x.byKey[k] = append(x.byKey[k], o)
			}
		}
		x.entries[o] = e
		marked++
	}
	if marked == len(x.entries) {
		return
	}
	for o, e := range x.entries {
		if e.gen == x.gen {
			continue
		}
		delete(x.entries, o)
		for _, k := range e.keys {
			x.byKey[k] = without(x.byKey[k], o)
			if len(x.byKey[k]) == 0 {
				delete(x.byKey, k)
			}
		}
	}
}

// without removes o from list (in place; the order does not matter).
func without[T any](list []*T, o *T) []*T {
	for i, p := range list {
		if p == o {
			list[i] = list[len(list)-1]
			return list[:len(list)-1]
		}
	}
	return list
}

// snapshotIndex indexes a Snapshot for related: the Ingresses by
// host and alias (byName) and by backend, the Services, EndpointSlices and
// Secrets by namespace/name of the Service or Secret. It is kept between
// reviews; each kind is made again only when its objects changed.
type snapshotIndex struct {
	mu sync.Mutex
	// ingresses holds "h:" + host or alias and "b:" + backend keys.
	ingresses kindIndex[networkingv1.Ingress]
	// newest is the latest creationTimestamp of the Ingresses seen (it
	// never goes back: only the order of the timestamps matters to Build).
	newest   time.Time
	services kindIndex[corev1.Service]
	slices   kindIndex[discoveryv1.EndpointSlice]
	secrets  kindIndex[corev1.Secret]
}

// related returns the part of s that can change the Problems of cand,
// with cand placed in it (see placeCandidate), from the index (refreshed
// from s first); the candidate as placed; and the Ingress of the same name
// that it replaces when that one shares a host, alias or backend with it
// (nil otherwise: the two then contend for nothing in common).
//
// Build ties an Ingress to others only through shared names, so these are
// the Ingresses that can matter (a superset is harmless, a missing one is
// not; TestSubsetEquivalence checks it against a full Build):
//   - the ones with a rule host, or a server-alias, equal to a host or an
//     alias of cand (path ownership, regex mode, the host's creator and its
//     default backend, app-root, the host's certificate, canary primaries,
//     alias ownership and aliases that are hosts of their own); an Ingress
//     without rules, or with an empty host, counts as the catch-all host
//     (the spec.defaultBackend of the catch-all server);
//   - when cand may be a canary: the Ingresses using one of its backends
//     (the oldest canary of a backend sets its traffic policy), and the
//     Ingresses on their hosts (whether such a canary has a primary);
//   - then the Services, EndpointSlices and Secrets those Ingresses name,
//     and every IngressClass and ConfigMap (a few objects).
func (x *snapshotIndex) related(s render.Snapshot, cand *networkingv1.Ingress, o render.Options, create bool) (render.Snapshot, *networkingv1.Ingress, *networkingv1.Ingress) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.refresh(s)
	cand = placeCandidate(cand, create, x.newest)

	keep := map[*networkingv1.Ingress]bool{}
	addSharing := func(key string) {
		for _, ing := range x.ingresses.byKey["h:"+key] {
			keep[ing] = true
		}
	}
	for _, k := range hostKeys(cand) {
		addSharing(k)
	}
	for _, k := range aliasKeys(cand) {
		addSharing(k)
	}
	if _, maybeCanary := cand.Annotations[annotationCanary]; maybeCanary {
		for _, b := range backendKeys(cand) {
			for _, ing := range x.ingresses.byKey["b:"+b] {
				keep[ing] = true
				for _, h := range hostKeys(ing) {
					addSharing(h)
				}
			}
		}
	}
	out := render.Snapshot{IngressClasses: s.IngressClasses, ConfigMaps: s.ConfigMaps}
	services := map[nsName]bool{}
	secrets := map[nsName]bool{}
	add := func(ing *networkingv1.Ingress) {
		out.Ingresses = append(out.Ingresses, ing)
		for _, svc := range serviceNames(ing) {
			services[nsName{ing.Namespace, svc}] = true
		}
		for _, t := range ing.Spec.TLS {
			secrets[nsName{ing.Namespace, t.SecretName}] = true
		}
		for _, k := range annotationSecrets(ing) {
			secrets[k] = true
		}
	}
	var old *networkingv1.Ingress
	for ing := range keep {
		if ing.Namespace != cand.Namespace || ing.Name != cand.Name {
			add(ing)
		} else {
			old = ing
		}
	}
	add(cand)
	if ns, name, ok := strings.Cut(o.DefaultSSLCertificate, "/"); ok {
		secrets[nsName{ns, name}] = true
	}
	// The controller's default backend renders error pages of any Ingress.
	if ns, name, ok := strings.Cut(o.DefaultBackendService, "/"); ok {
		services[nsName{ns, name}] = true
	}
	for k := range services {
		key := k.namespace + "/" + k.name
		out.Services = append(out.Services, x.services.byKey[key]...)
		out.EndpointSlices = append(out.EndpointSlices, x.slices.byKey[key]...)
	}
	for k := range secrets {
		out.Secrets = append(out.Secrets, x.secrets.byKey[k.namespace+"/"+k.name]...)
	}
	return out, cand, old
}

// refresh brings each kind's index up to date with s.
func (x *snapshotIndex) refresh(s render.Snapshot) {
	x.ingresses.refresh(s.Ingresses, func(ing *networkingv1.Ingress) []string {
		if t := ing.CreationTimestamp.Time; t.After(x.newest) {
			x.newest = t
		}
		var keys []string
		for _, h := range hostKeys(ing) {
			keys = append(keys, "h:"+h)
		}
		for _, a := range aliasKeys(ing) {
			keys = append(keys, "h:"+a)
		}
		for _, b := range backendKeys(ing) {
			keys = append(keys, "b:"+b)
		}
		return keys
	})
	x.services.refresh(s.Services, func(svc *corev1.Service) []string { return []string{svc.Namespace + "/" + svc.Name} })
	x.slices.refresh(s.EndpointSlices, func(es *discoveryv1.EndpointSlice) []string {
		if svc := es.Labels[discoveryv1.LabelServiceName]; svc != "" {
			return []string{es.Namespace + "/" + svc}
		}
		return nil
	})
	x.secrets.refresh(s.Secrets, func(sec *corev1.Secret) []string { return []string{sec.Namespace + "/" + sec.Name} })
}

// placeCandidate gives a created candidate (or one without a
// creationTimestamp) a creationTimestamp one second after newest, the
// newest of the other Ingresses, unless its own is later.
func placeCandidate(cand *networkingv1.Ingress, create bool, newest time.Time) *networkingv1.Ingress {
	if !create && !cand.CreationTimestamp.IsZero() {
		return cand
	}
	c := *cand // the fields Build reads are not changed: a shallow copy will do
	if t := newest.Add(time.Second); t.After(c.CreationTimestamp.Time) {
		c.CreationTimestamp = metav1.NewTime(t)
	}
	return &c
}

// nsName keys namespaced objects.
type nsName struct{ namespace, name string }
