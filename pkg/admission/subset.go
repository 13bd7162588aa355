package admission

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The annotations that tie an Ingress to objects beyond its own hosts.
const (
	annotationServerAlias    = "nginx.ingress.kubernetes.io/server-alias"
	annotationCanary         = "nginx.ingress.kubernetes.io/canary"
	annotationDefaultBackend = "nginx.ingress.kubernetes.io/default-backend"
)

// relatedSnapshot returns the part of s that can change the Problems of
// cand, with cand in it. s must already hold cand (see withCandidate).
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
//
// This is the plain form: one pass over every object. Validate finds the
// same objects through a snapshotIndex kept between reviews (index.go);
// the tests hold both to a full Build.
func relatedSnapshot(s render.Snapshot, cand *networkingv1.Ingress, o render.Options) render.Snapshot {
	keys := map[string]bool{}
	for _, k := range hostKeys(cand) {
		keys[k] = true
	}
	for _, k := range aliasKeys(cand) {
		keys[k] = true
	}
	keep := make([]bool, len(s.Ingresses))
	markSharing(s.Ingresses, keep, keys)
	if _, maybeCanary := cand.Annotations[annotationCanary]; maybeCanary {
		backends := map[string]bool{}
		for _, b := range backendKeys(cand) {
			backends[b] = true
		}
		more := map[string]bool{}
		for i, ing := range s.Ingresses {
			for _, b := range backendKeys(ing) {
				if backends[b] {
					keep[i] = true
					for _, h := range hostKeys(ing) {
						more[h] = true
					}
					break
				}
			}
		}
		markSharing(s.Ingresses, keep, more)
	}
	out := render.Snapshot{IngressClasses: s.IngressClasses, ConfigMaps: s.ConfigMaps}
	services := map[nsName]bool{}
	secrets := map[nsName]bool{}
	for i, ing := range s.Ingresses {
		if !keep[i] {
			continue
		}
		out.Ingresses = append(out.Ingresses, ing)
		for _, svc := range serviceNames(ing) {
			services[nsName{ing.Namespace, svc}] = true
		}
		for _, t := range ing.Spec.TLS {
			secrets[nsName{ing.Namespace, t.SecretName}] = true
		}
	}
	if ns, name, ok := strings.Cut(o.DefaultSSLCertificate, "/"); ok {
		secrets[nsName{ns, name}] = true
	}
	return filterObjects(s, out, services, secrets)
}

// markSharing keeps every Ingress with a host or alias key in keys. It
// runs over every Ingress of the cluster, so it allocates nothing.
func markSharing(ings []*networkingv1.Ingress, keep []bool, keys map[string]bool) {
	if len(keys) == 0 {
		return
	}
	for i, ing := range ings {
		if keep[i] {
			continue
		}
		keep[i] = sharesHost(ing, keys) || sharesAlias(ing, keys)
	}
}

// sharesHost is hostKeys(ing) ∩ keys ≠ ∅ without the slice.
func sharesHost(ing *networkingv1.Ingress, keys map[string]bool) bool {
	if len(ing.Spec.Rules) == 0 {
		return keys[model.CatchAllHost]
	}
	for _, r := range ing.Spec.Rules {
		h := r.Host
		if h == "" {
			h = model.CatchAllHost
		}
		if keys[h] {
			return true
		}
	}
	return false
}

// sharesAlias is aliasKeys(ing) ∩ keys ≠ ∅ without the slice.
func sharesAlias(ing *networkingv1.Ingress, keys map[string]bool) bool {
	v, ok := ing.Annotations[annotationServerAlias]
	if !ok {
		return false
	}
	for v != "" {
		e, rest, _ := strings.Cut(v, ",")
		v = rest
		if e = strings.TrimSpace(e); e != "" && keys[strings.ToLower(e)] {
			return true
		}
	}
	return false
}

// filterObjects adds to out the Services and EndpointSlices of services
// and the Secrets of secrets (with the default certificate, wherever it
// is named from).
func filterObjects(s, out render.Snapshot, services, secrets map[nsName]bool) render.Snapshot {
	for _, svc := range s.Services {
		if services[nsName{svc.Namespace, svc.Name}] {
			out.Services = append(out.Services, svc)
		}
	}
	for _, es := range s.EndpointSlices {
		if services[nsName{es.Namespace, es.Labels[discoveryv1.LabelServiceName]}] {
			out.EndpointSlices = append(out.EndpointSlices, es)
		}
	}
	out.Secrets = make([]*corev1.Secret, 0, len(secrets)+1)
	for _, sec := range s.Secrets {
		if secrets[nsName{sec.Namespace, sec.Name}] {
			out.Secrets = append(out.Secrets, sec)
		}
	}
	return out
}

// nsName keys namespaced objects.
type nsName struct{ namespace, name string }

// hostKeys gives the servers an Ingress's rules make: its rule hosts, the
// catch-all host for an empty one or for an Ingress without rules (whose
// spec.defaultBackend serves the catch-all server). A host in upper case is
// not a valid one (Build ignores its rule), so hosts are taken as written.
func hostKeys(ing *networkingv1.Ingress) []string {
	if len(ing.Spec.Rules) == 0 {
		return []string{model.CatchAllHost}
	}
	out := make([]string, 0, len(ing.Spec.Rules))
	for _, r := range ing.Spec.Rules {
		h := r.Host
		if h == "" {
			h = model.CatchAllHost
		}
		out = append(out, h)
	}
	return out
}

// aliasKeys gives the entries of the server-alias annotation, as render
// reads them (comma separated, trimmed, in lower case), invalid ones too.
func aliasKeys(ing *networkingv1.Ingress) []string {
	v, ok := ing.Annotations[annotationServerAlias]
	if !ok {
		return nil
	}
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// backendKeys gives "service:port" of the paths of an Ingress (its
// namespace is implied: a backend is always in the Ingress's namespace).
func backendKeys(ing *networkingv1.Ingress) []string {
	var out []string
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if svc := p.Backend.Service; svc != nil {
				out = append(out, ing.Namespace+"/"+svc.Name+":"+portKey(svc.Port))
			}
		}
	}
	return out
}

func portKey(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(int(p.Number))
}

// serviceNames gives the Services an Ingress names, in its namespace: the
// paths' backends, spec.defaultBackend and the default-backend annotation.
func serviceNames(ing *networkingv1.Ingress) []string {
	var out []string
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				out = append(out, p.Backend.Service.Name)
			}
		}
	}
	if db := ing.Spec.DefaultBackend; db != nil && db.Service != nil {
		out = append(out, db.Service.Name)
	}
	if v := ing.Annotations[annotationDefaultBackend]; v != "" {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}
