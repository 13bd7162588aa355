package render

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Build turns a Snapshot into the desired Config and the Problems found in
// the objects. A Problem never stops the rest: a bad Ingress, path or
// annotation is left out (or falls back to its default) and everything else
// is built. Build is deterministic: the same objects in any order give the
// same Config.
func Build(s Snapshot, o Options) (*model.Config, []model.Problem) {
	return build(s, o, newServiceIndex(s))
}

// build is Build with the Services and EndpointSlices of s indexed.
func build(s Snapshot, o Options, services serviceIndex) (*model.Config, []model.Problem) {
	b := newBuilder(s, o, services)
	for _, ing := range b.ingresses {
		b.addIngress(ing)
	}
	b.finishLocations()
	b.finishClientAuth()
	for _, c := range b.canaries {
		b.addCanary(c)
	}
	b.checkSnippetLocations()
	b.addDefaultCertificate()
	for _, ing := range b.ingresses {
		b.addTLS(ing.obj)
	}
	c := b.config()
	c.Files = b.usedFiles(c)
	c.WWWRedirects = b.wwwRedirects(c)
	c.Stream = b.buildStream(s)
	b.passthroughIgnored()
	return c, model.SortProblems(b.problems)
}

// builder holds the state of one Build.
type builder struct {
	opts     Options
	global   model.Global
	services serviceIndex
	secrets  map[nsName]*corev1.Secret

	ingresses []*parsedIngress
	canaries  []*parsedIngress
	pending   []*pendingLocation
	servers   map[string]*serverState
	backends  map[string]*model.Backend
	// unresolved holds why a backend has no Service or port behind it.
	unresolved map[string]string
	certs      map[string]*model.Certificate
	// files are the files of Secrets that nginx reads (build_authsecret.go).
	files map[string]model.File

	aliases map[string]aliasOwner
	// canaryOwners names the canary Ingress whose traffic policy a canary
	// backend carries.
	canaryOwners map[string]model.ObjectRef
	// stickyIngresses are the Ingresses that ask for cookie affinity, and
	// legacyCanaries the canary backends whose owner says
	// affinity-canary-behavior "legacy" (see affinityLocations).
	stickyIngresses map[model.ObjectRef]bool
	legacyCanaries  map[string]bool

	defaultBackend      string
	defaultBackendOwner model.ObjectRef
	defaultCertificate  string
	problems            []model.Problem
	// errorPages: the controller's default backend (build_errorpages.go).
	errorPages errorPagesState

	// serverSnippetOwner names the Ingress whose server-snippet a host
	// takes (build_snippets.go).
	serverSnippetOwner map[string]model.ObjectRef

	// builderExtras: ConfigMaps named by annotations, per-server TLS
	// ciphers, from-to-www-redirect (build_headers.go, build_servers_e.go).
	builderExtras
}

// parsedIngress is a served Ingress with its annotations parsed once.
type parsedIngress struct {
	obj *networkingv1.Ingress
	ref model.ObjectRef
	ann annotations.Ingress
	// snippets are its translated snippets (build_snippets.go).
	snippets ingressSnippets
}

// pendingLocation is a path before conflicts on its server are resolved.
type pendingLocation struct {
	host      string
	loc       model.Location
	ing       *parsedIngress
	field     string
	port      networkingv1.ServiceBackendPort
	synthetic bool // the "/" of an Ingress's spec.defaultBackend
}

// aliasOwner says which host and Ingress claimed a server-alias first.
type aliasOwner struct {
	host string
	ing  model.ObjectRef
}

type serverState struct {
	server    model.Server
	certOwner model.ObjectRef
	appOwner  model.ObjectRef
	// creator is the oldest Ingress with a rule for this host: only its
	// spec.defaultBackend may serve the host's "/", as in ingress-nginx.
	creator *parsedIngress
}

func newBuilder(s Snapshot, o Options, services serviceIndex) *builder {
	b := &builder{
		opts:       o,
		global:     model.DefaultGlobal(),
		services:   services,
		secrets:    map[nsName]*corev1.Secret{},
		servers:    map[string]*serverState{},
		backends:   map[string]*model.Backend{},
		unresolved: map[string]string{},
		certs:      map[string]*model.Certificate{},
		aliases:    map[string]aliasOwner{},

		canaryOwners: map[string]model.ObjectRef{},

		builderExtras: newBuilderExtras(s.ConfigMaps),
	}
	for _, sec := range s.Secrets {
		b.secrets[nsName{sec.Namespace, sec.Name}] = sec
	}
	b.reportSkippedInput(s)
	for _, cm := range s.ConfigMaps {
		if cm.Namespace+"/"+cm.Name == o.ConfigMap {
			g, ps := annotations.ParseConfigMap(model.ObjectRef{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}, cm.Data)
			b.global = g
			b.problems = append(b.problems, ps...)
			b.resolveGlobalHeaders(model.ObjectRef{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}, b.configMaps)
			b.resolveTLSFiles(model.ObjectRef{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name})
			b.resolveGeoIP2(model.ObjectRef{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}, o.GeoIP2)
		}
	}
	classes := newClassFilter(s.IngressClasses, o)
	sorted := append([]*networkingv1.Ingress(nil), s.Ingresses...)
	sort.SliceStable(sorted, func(i, j int) bool { return olderFirst(sorted[i], sorted[j]) })
	for _, ing := range sorted {
		if !classes.serves(ing) {
			if o.ReportSkipped {
				field, reason := classes.skipped(ing)
				b.problems = append(b.problems, model.Problem{Object: model.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name}, Field: field, Reason: reason})
			}
			continue
		}
		ref := model.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name}
		if b.quarantined(ref) {
			continue
		}
		if ps := annotations.CheckPolicy(ref, ing.Annotations, b.global.Policy); len(ps) > 0 {
			// annotations-risk-level, annotation-value-word-blocklist
			b.problems = append(b.problems, ps...)
			continue
		}
		ann, ps := annotations.ParseIngress(ref, ing.Annotations)
		b.problems = append(b.problems, ps...)
		b.problems = append(b.problems, annotations.CheckProxy(ref, b.global, &ann.Location)...)
		b.resolveSecrets(ref, &ann)
		b.resolveExternalAuth(ref, &ann)
		p := &parsedIngress{obj: ing, ref: ref, ann: ann}
		b.translateSnippets(p)
		if ann.Canary.Enabled {
			b.canaries = append(b.canaries, p)
		} else {
			b.ingresses = append(b.ingresses, p)
		}
	}
	b.server(model.CatchAllHost)
	return b
}

// olderFirst orders Ingresses by creationTimestamp, then namespace/name: the
// older one wins a conflict, as in ingress-nginx.
func olderFirst(a, b *networkingv1.Ingress) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

func (b *builder) problem(obj model.ObjectRef, field, format string, args ...any) {
	b.problems = append(b.problems, model.Problemf(obj, field, format, args...))
}

func (b *builder) server(host string) *serverState {
	s, ok := b.servers[host]
	if !ok {
		s = &serverState{server: model.Server{Hostname: host}}
		b.servers[host] = s
	}
	return s
}

// addIngress records the paths of a non-canary Ingress.
func (b *builder) addIngress(p *parsedIngress) {
	ing := p.obj
	b.noteSticky(p)
	var hosts []string
	for i, rule := range ing.Spec.Rules {
		host := rule.Host
		if host == "" {
			host = model.CatchAllHost
		} else if err := checkHost(host); err != nil {
			b.problem(p.ref, fmt.Sprintf("spec.rules[%d].host", i), "%v; rule ignored", err)
			continue
		}
		if s := b.server(host); s.creator == nil {
			s.creator = p
		}
		hosts = append(hosts, host)
		if rule.HTTP == nil {
			continue
		}
		for j, path := range rule.HTTP.Paths {
			field := fmt.Sprintf("spec.rules[%d].http.paths[%d]", i, j)
			b.addPath(p, host, path, field)
		}
	}
	if db := ing.Spec.DefaultBackend; db != nil {
		b.addDefaultBackend(p, db, hosts)
	}
	b.addServerSettings(p, hosts)
	b.addServerExtras(p, hosts)
	b.addServerSnippet(p, hosts)
}

func (b *builder) addPath(p *parsedIngress, host string, path networkingv1.HTTPIngressPath, field string) {
	value := path.Path
	if value == "" {
		value = "/"
	}
	pt := model.PathImplementationSpecific
	if path.PathType != nil {
		pt = model.PathType(*path.PathType)
	}
	if path.Backend.Service == nil {
		b.problem(p.ref, field+".backend", "only service backends are supported; path %q ignored", value)
		return
	}
	svc := path.Backend.Service
	if err := checkServiceBackend(p.ref.Namespace, svc); err != nil {
		b.problem(p.ref, field+".backend.service", "%v; path %q ignored", err, value)
		return
	}
	b.pending = append(b.pending, &pendingLocation{
		host: host,
		loc: model.Location{
			Path:        value,
			PathType:    pt,
			Ingress:     p.ref,
			Service:     svc.Name,
			ServicePort: servicePortString(svc.Port),
		},
		ing:   p,
		field: field,
		port:  svc.Port,
	})
}

// addDefaultBackend handles spec.defaultBackend as ingress-nginx does. The
// oldest Ingress without rules that has one serves "/" of the catch-all
// server; a younger one is a Problem. An Ingress with rules uses it for "/"
// of the hosts it brought first (not of hosts an older Ingress made), and a
// path of any Ingress that claims "/" wins over it: the default backend of
// one team never answers for another's host.
func (b *builder) addDefaultBackend(p *parsedIngress, db *networkingv1.IngressBackend, hosts []string) {
	if db.Service == nil {
		b.problem(p.ref, "spec.defaultBackend", "only service backends are supported")
		return
	}
	svc := db.Service
	if err := checkServiceBackend(p.ref.Namespace, svc); err != nil {
		b.problem(p.ref, "spec.defaultBackend.service", "%v; ignored", err)
		return
	}
	root := func(host string) {
		b.pending = append(b.pending, &pendingLocation{
			host: host,
			loc: model.Location{
				Path: "/", PathType: model.PathPrefix, Ingress: p.ref,
				Service: svc.Name, ServicePort: servicePortString(svc.Port),
			},
			ing: p, field: "spec.defaultBackend", port: svc.Port, synthetic: true,
		})
	}
	if len(p.obj.Spec.Rules) == 0 {
		name := backendName(p.ref.Namespace, svc.Name, servicePortString(svc.Port))
		switch {
		case b.defaultBackend == "":
			b.defaultBackend = name
			b.defaultBackendOwner = p.ref
			root(model.CatchAllHost)
		case b.defaultBackend != name:
			b.problem(p.ref, "spec.defaultBackend", "the catch-all server already uses %s, the default backend of ingress %s (older)", b.defaultBackend, b.defaultBackendOwner)
		}
		return
	}
	for _, host := range hosts {
		if host != model.CatchAllHost && b.servers[host].creator == p {
			root(host)
		}
	}
}

// addServerSettings applies the server-level annotations of an Ingress to
// its hosts: app-root (the oldest Ingress wins).
func (b *builder) addServerSettings(p *parsedIngress, hosts []string) {
	for _, alias := range p.ann.ServerAliases {
		for _, h := range hosts {
			if h == model.CatchAllHost {
				continue
			}
			if owner, taken := b.aliases[alias]; taken {
				if owner.host != h {
					b.problem(p.ref, annotations.Field("server-alias"), "alias %q is already an alias of host %q (ingress %s)", alias, owner.host, owner.ing)
				}
				continue
			}
			b.aliases[alias] = aliasOwner{host: h, ing: p.ref}
		}
	}
	root := p.ann.Location.AppRoot
	if root == "" {
		return
	}
	for _, h := range hosts {
		s := b.server(h)
		switch {
		case s.server.AppRoot == "":
			s.server.AppRoot = root
			s.appOwner = p.ref
		case s.server.AppRoot != root:
			b.problem(p.ref, annotations.Field("app-root"), "host %q already has app-root %q from ingress %s (older)", h, s.server.AppRoot, s.appOwner)
		}
	}
}

// useBackend returns the backend for a Service port, creating it on first
// use, and records a Problem on the referring Ingress when the Service or
// port does not exist (the backend then has no endpoints: 503).
func (b *builder) useBackend(p *parsedIngress, service string, port networkingv1.ServiceBackendPort, field string) *model.Backend {
	name := backendName(p.ref.Namespace, service, servicePortString(port))
	if existing, ok := b.backends[name]; ok {
		// Resolved once per Build; each referring Ingress hears of a
		// missing Service or port.
		if why := b.unresolved[name]; why != "" {
			b.problem(p.ref, field+".service", "%s; requests answer 503", why)
		}
		if existing.SessionAffinity.Type == "" {
			// The first Ingress that asks for affinity sets it, though
			// an older one without it created the backend, as
			// ingress-nginx fills an upstream's empty affinity type.
			existing.SessionAffinity = p.ann.Backend.SessionAffinity
		}
		return existing
	}
	be, why := b.services.resolve(p.ref.Namespace, service, port)
	if why != "" {
		b.externalNameProblem(p.ref.Namespace, service)
		b.unresolved[name] = why
		b.problem(p.ref, field+".service", "%s; requests answer 503", why)
	}
	ba := p.ann.Backend
	if ba.ServiceUpstream && why == "" && be.ExternalName == "" {
		if ep, err := b.services.clusterEndpoint(p.ref.Namespace, service, port); err != "" {
			b.problem(p.ref, annotations.Field("service-upstream"), "%s; the Service's endpoints are used instead", err)
		} else {
			be.Endpoints = []model.Endpoint{ep}
		}
	}
	be.Protocol = strings.ToUpper(ba.Protocol)
	be.LoadBalance = ba.LoadBalance
	be.UpstreamHashBy = ba.UpstreamHashBy
	be.SessionAffinity = ba.SessionAffinity
	be.AlternativeBackends = []string{}
	b.backends[be.Name] = &be
	return &be
}
