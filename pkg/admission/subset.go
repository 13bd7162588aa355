package admission

import (
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The annotations that tie an Ingress to objects beyond its own hosts.
const (
	annotationServerAlias    = "nginx.ingress.kubernetes.io/server-alias"
	annotationCanary         = "nginx.ingress.kubernetes.io/canary"
	annotationDefaultBackend = "nginx.ingress.kubernetes.io/default-backend"
)

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
