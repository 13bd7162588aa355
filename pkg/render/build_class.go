package render

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
)

const (
	legacyClassAnnotation  = "kubernetes.io/ingress.class"
	defaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"
)

// classFilter decides which Ingresses this controller serves, as
// ingress-nginx does: spec.ingressClassName first, then the legacy
// annotation, then (no class at all) the IngressClass marked default, which
// the API server's admission would have written into the Ingress, or
// --watch-ingress-without-class.
type classFilter struct {
	opts Options
	// classes maps IngressClass name to whether its controller is ours.
	classes map[string]bool
	// defaultIsOurs is true when an IngressClass of ours is marked default.
	defaultIsOurs bool
}

func newClassFilter(classes []*networkingv1.IngressClass, o Options) classFilter {
	f := classFilter{opts: o, classes: map[string]bool{}}
	for _, c := range classes {
		ours := c.Spec.Controller == o.ControllerClass
		f.classes[c.Name] = ours
		if ours && c.Annotations[defaultClassAnnotation] == "true" {
			f.defaultIsOurs = true
		}
	}
	return f
}

// serves reports whether ing belongs to this controller.
func (f classFilter) serves(ing *networkingv1.Ingress) bool {
	if name := ing.Spec.IngressClassName; name != nil {
		if ours, known := f.classes[*name]; known {
			return ours
		}
		// Offline manifests often leave out the IngressClass object; the
		// class named by --ingress-class is ours then.
		return *name == f.opts.IngressClass
	}
	if class, ok := ing.Annotations[legacyClassAnnotation]; ok {
		return class == f.opts.IngressClass
	}
	return f.defaultIsOurs || f.opts.WatchIngressWithoutClass
}

// skipped says why f does not serve ing, for Options.ReportSkipped: the
// field that decided and a reason that starts with SkippedReason. The
// words stay clear of "invalid", "unknown" and "not supported": nothing is
// wrong with an Ingress of another class.
func (f classFilter) skipped(ing *networkingv1.Ingress) (field, reason string) {
	if name := ing.Spec.IngressClassName; name != nil {
		if _, known := f.classes[*name]; known {
			return "spec.ingressClassName", fmt.Sprintf("%sIngressClass %q belongs to another controller (this one serves --controller-class %q)", SkippedReason, *name, f.opts.ControllerClass)
		}
		return "spec.ingressClassName", fmt.Sprintf("%sclass %q has no IngressClass in the input and is not --ingress-class %q", SkippedReason, *name, f.opts.IngressClass)
	}
	if class, ok := ing.Annotations[legacyClassAnnotation]; ok {
		return "metadata.annotations[" + legacyClassAnnotation + "]", fmt.Sprintf("%sclass %q is not --ingress-class %q", SkippedReason, class, f.opts.IngressClass)
	}
	return "spec.ingressClassName", SkippedReason + "no class, and no IngressClass of this controller is marked default (--watch-ingress-without-class would serve it)"
}
