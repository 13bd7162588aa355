package render

import (
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// reportSkippedInput reports, with Options.ReportSkipped, the input that
// Build cannot read at all: Ingresses of older API versions, and a
// ConfigMap asked for (ConfigMapRequired) that the snapshot lacks. The
// Ingresses of other classes are reported where they are filtered.
func (b *builder) reportSkippedInput(s Snapshot) {
	if !b.opts.ReportSkipped {
		return
	}
	for _, u := range s.UnreadIngresses {
		b.problem(model.ObjectRef{Kind: "Ingress", Namespace: u.Namespace, Name: u.Name}, "apiVersion",
			"%s%s is an API version this controller does not read (removed in Kubernetes 1.22, as in ingress-nginx 1.x): convert it to networking.k8s.io/v1", SkippedReason, u.APIVersion)
	}
	if !b.opts.ConfigMapRequired || b.opts.ConfigMap == "" {
		return
	}
	for _, cm := range s.ConfigMaps {
		if cm.Namespace+"/"+cm.Name == b.opts.ConfigMap {
			return
		}
	}
	ns, name, _ := strings.Cut(b.opts.ConfigMap, "/")
	b.problem(model.ObjectRef{Kind: "ConfigMap", Namespace: ns, Name: name}, "",
		"%sthe --configmap is not in the input: the defaults of every key apply", SkippedReason)
}

// IsSkipped says whether p reports input left out (Options.ReportSkipped)
// rather than input found wrong.
func IsSkipped(p model.Problem) bool {
	return strings.HasPrefix(p.Reason, SkippedReason)
}
