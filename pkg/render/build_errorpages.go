package render

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Custom error pages and the default backend, as ingress-nginx has them
// (its docs user-guide/custom-errors.md, its nginx.tmpl and e2e tests
// annotations/customhttperrors.go, disableproxyintercepterrors.go,
// default_backend.go):
//
//   - The controller's default backend is --default-backend-service
//     (Options.DefaultBackendService, its first port), a Backend sent to
//     Lua like any other; without one it is nginx itself, which answers
//     404 to everything (ingress-nginx's built-in one does the same).
//   - custom-http-errors (the annotation, else the ConfigMap key) lists
//     the codes whose answers the default backend renders: the
//     default-backend annotation's Service for the Ingress that has one,
//     else the controller's. It is told X-Code, X-Format, X-Original-URI,
//     X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port and
//     X-Request-ID, and its answer (status included) is the client's.
//   - disable-proxy-intercept-errors keeps the backend's own answers;
//     nginx's own errors still get the pages.
//   - A path whose Service has no endpoints is answered by the
//     default-backend annotation's Service, told X-Code 503 and the same
//     headers (build_finish.go switches the location's backend).

// errorPagesState is the builder's part of this file.
type errorPagesState struct {
	// defaultBackend is the name of the controller's default backend once
	// resolved ("" before).
	defaultBackend string
	// badNames are the Ingresses whose name was reported unusable.
	badNames map[model.ObjectRef]bool
}

// controllerDefaultBackend resolves Options.DefaultBackendService once:
// the name of its Backend (namespace-service-port of its first port), or
// model.DefaultBackendName without one or when it cannot be used (a
// Problem then).
func (b *builder) controllerDefaultBackend() string {
	if b.errorPages.defaultBackend != "" {
		return b.errorPages.defaultBackend
	}
	b.errorPages.defaultBackend = model.DefaultBackendName
	key := b.opts.DefaultBackendService
	if key == "" {
		return model.DefaultBackendName
	}
	ns, name, _ := cutNamespace(key)
	ref := model.ObjectRef{Kind: "Service", Namespace: ns, Name: name}
	const field = "--default-backend-service"
	svc, ok := b.services.services[nsName{ns, name}]
	if !ok || len(svc.Spec.Ports) == 0 {
		b.problem(ref, field, "service %q not found or has no ports; nginx answers 404 itself when no rule matches and renders no error page", key)
		return model.DefaultBackendName
	}
	if err := checkServiceBackend(ns, &networkingv1.IngressServiceBackend{Name: name, Port: networkingv1.ServiceBackendPort{Number: svc.Spec.Ports[0].Port}}); err != nil {
		b.problem(ref, field, "%v; nginx answers 404 itself when no rule matches and renders no error page", err)
		return model.DefaultBackendName
	}
	port := networkingv1.ServiceBackendPort{Number: svc.Spec.Ports[0].Port}
	be, why := b.services.resolve(ns, name, port)
	if existing, ok := b.backends[be.Name]; ok {
		b.errorPages.defaultBackend = existing.Name
		return existing.Name
	}
	if why != "" {
		b.problem(ref, field, "%s; requests no rule matches answer 503", why)
	}
	be.Protocol = "HTTP"
	be.AlternativeBackends = []string{}
	b.backends[be.Name] = &be
	b.errorPages.defaultBackend = be.Name
	return be.Name
}

// locationErrorPages decides the error pages of a location of p that proxies to
// backend, whose path's own backend is primary and whose
// CustomDefaultBackend is custom; false when it has none of its own.
func (b *builder) locationErrorPages(p *parsedIngress, backend, custom string, primary *model.Backend) (model.ErrorPages, bool) {
	ann := p.ann.ErrorPages
	ep := model.ErrorPages{Codes: ann.Codes, Intercept: !ann.DisableIntercept}
	if ep.Codes == nil {
		ep.Codes = b.global.CustomHTTPErrors
	}
	ep.Fallback = custom != "" && backend == custom && len(primary.Endpoints) == 0
	if len(ep.Codes) == 0 && !ep.Fallback {
		return model.ErrorPages{}, false
	}
	// The Ingress name goes to the default backend in X-Ingress-Name; the
	// API server allows only DNS names, files are not checked, and a "$"
	// in a header value would be an nginx variable.
	if errs := validation.IsDNS1123Subdomain(p.ref.Name); len(errs) > 0 {
		if b.errorPages.badNames[p.ref] {
			return model.ErrorPages{}, false
		}
		if b.errorPages.badNames == nil {
			b.errorPages.badNames = map[model.ObjectRef]bool{}
		}
		b.errorPages.badNames[p.ref] = true
		b.problem(p.ref, "metadata.name", "%q is not a valid Ingress name (%s): no custom error page is rendered for it", p.ref.Name, strings.Join(errs, "; "))
		return model.ErrorPages{}, false
	}
	if len(ep.Codes) == 0 {
		ep.Intercept = false
	}
	ep.Backend = custom
	if ep.Backend == "" {
		ep.Backend = b.controllerDefaultBackend()
	}
	return ep, true
}
