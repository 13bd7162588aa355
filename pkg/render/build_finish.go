package render

import (
	"fmt"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// finishLocations decides the regex mode of each server (per namespace,
// see regexScope), drops invalid and conflicting paths (the older Ingress
// keeps a contested location, and, unless cross-namespace host sharing is
// allowed, a path that would take requests from an older Ingress of another
// namespace: see build_shadow.go), and resolves the backends of the paths
// that remain.
func (b *builder) finishLocations() {
	perHost := make(map[string]int, len(b.servers))
	regexMode := map[regexScope]bool{}
	// shared holds the hosts with paths of more than one namespace: only
	// there may a path take requests from another namespace's.
	namespaceOf, shared := make(map[string]string, len(b.servers)), map[string]bool{}
	for _, pl := range b.pending {
		perHost[pl.host]++
		if pl.ing.ann.UseRegex || pl.ing.ann.Location.RewriteTarget != "" {
			regexMode[b.regexScope(pl)] = true
		}
		if ns, seen := namespaceOf[pl.host]; !seen {
			namespaceOf[pl.host] = pl.ing.ref.Namespace
		} else if ns != pl.ing.ref.Namespace {
			shared[pl.host] = true
		}
	}
	for host, n := range perHost {
		b.servers[host].server.Locations = make([]model.Location, 0, n)
	}
	// A path written in an Ingress wins over the "/" that a default backend
	// adds, whatever the ages, as in ingress-nginx: synthetic ones go last.
	sort.SliceStable(b.pending, func(i, j int) bool { return !b.pending[i].synthetic && b.pending[j].synthetic })
	type hostMatcher struct{ host, matcher string }
	owners := make(map[hostMatcher]*pendingLocation, len(b.pending))
	claims := map[string]*hostClaims{}
	for _, pl := range b.pending {
		s := b.servers[pl.host]
		regex := regexMode[b.regexScope(pl)] && pl.loc.PathType != model.PathExact
		if err := checkPath(pl.loc.Path, pl.loc.PathType, regex); err != nil {
			if !pl.synthetic {
				b.problem(pl.ing.ref, pl.field+".path", "%v; path ignored", err)
			}
			continue
		}
		key := hostMatcher{pl.host, matcherKey(pl.loc.Path, string(pl.loc.PathType), regex)}
		if prev, taken := owners[key]; taken {
			if !pl.synthetic {
				b.problem(pl.ing.ref, pl.field, "host %q path %q (%s) is already served by ingress %s (older); path ignored",
					pl.host, pl.loc.Path, pl.loc.PathType, prev.ing.ref)
			}
			continue
		}
		loc := pl.loc
		loc.Regex = regex
		if shared[pl.host] && !b.opts.AllowCrossNamespaceHostSharing {
			hc := claims[pl.host]
			if hc == nil {
				hc = &hostClaims{}
				claims[pl.host] = hc
			}
			kept := &keptPath{pl: pl, loc: &loc, claims: claimsOf(&loc)}
			if k := hc.shadowOf(pl, &loc, kept.claims); k != nil {
				field := pl.field + ".path"
				if pl.synthetic {
					field = pl.field
				}
				b.problem(pl.ing.ref, field, "host %q path %s would take requests for path %s of ingress %s (older), in another namespace; path ignored (--allow-cross-namespace-host-sharing allows it)",
					pl.host, describePath(&loc), describePath(k.loc), k.pl.ing.ref)
				continue
			}
			hc.add(kept)
		}
		owners[key] = pl
		b.finishLocationSettings(pl, &loc)
		s.server.Locations = append(s.server.Locations, loc)
	}
	for _, s := range b.servers {
		sortLocations(s.server.Locations)
	}
}

// regexScope is the set of paths that use-regex or rewrite-target on one of
// them turns into regexes. ingress-nginx makes it the whole host; here it is
// the paths that Ingresses of one namespace have on the host, so that one
// tenant's annotation never changes how another's paths match, unless
// --allow-cross-namespace-host-sharing restores ingress-nginx's rule.
type regexScope struct{ host, namespace string }

func (b *builder) regexScope(pl *pendingLocation) regexScope {
	if b.opts.AllowCrossNamespaceHostSharing {
		return regexScope{host: pl.host}
	}
	return regexScope{host: pl.host, namespace: pl.ing.ref.Namespace}
}

// customDefaultBackend resolves the default-backend annotation (a Service
// in the Ingress namespace, its first port) to a backend name; "" when the
// Service does not exist or has no port (the annotation is then ignored and
// the path keeps its own backend, as in ingress-nginx).
func (b *builder) customDefaultBackend(p *parsedIngress, service string) string {
	svc, ok := b.services.services[nsName{p.ref.Namespace, service}]
	if !ok || len(svc.Spec.Ports) == 0 {
		b.problem(p.ref, annotations.Field("default-backend"), "service %q not found or has no ports; the annotation is ignored", p.ref.Namespace+"/"+service)
		return ""
	}
	port := networkingv1.ServiceBackendPort{Number: svc.Spec.Ports[0].Port}
	return b.useBackend(p, service, port, annotations.Field("default-backend")).Name
}

// sortLocations puts the longest path first (nginx tries regex locations in
// order), then by path and type so the order is total.
func sortLocations(ls []model.Location) {
	sort.Slice(ls, func(i, j int) bool { return locationBefore(&ls[i], &ls[j]) })
}

// locationBefore is the order of sortLocations.
func locationBefore(a, c *model.Location) bool {
	if len(a.Path) != len(c.Path) {
		return len(a.Path) > len(c.Path)
	}
	if a.Path != c.Path {
		return a.Path < c.Path
	}
	return a.PathType < c.PathType
}

// addCanary attaches a canary Ingress's backends as alternatives of the
// primary backends serving the same host and path.
func (b *builder) addCanary(p *parsedIngress) {
	for i, rule := range p.obj.Spec.Rules {
		host := rule.Host
		if host == "" {
			host = model.CatchAllHost
		}
		if rule.HTTP == nil {
			continue
		}
		for j, path := range rule.HTTP.Paths {
			field := fmt.Sprintf("spec.rules[%d].http.paths[%d]", i, j)
			b.addCanaryPath(p, host, path, field)
		}
	}
}

func (b *builder) addCanaryPath(p *parsedIngress, host string, path networkingv1.HTTPIngressPath, field string) {
	value := path.Path
	if value == "" {
		value = "/"
	}
	if path.Backend.Service == nil {
		b.problem(p.ref, field+".backend", "only service backends are supported")
		return
	}
	if err := checkServiceBackend(p.ref.Namespace, path.Backend.Service); err != nil {
		b.problem(p.ref, field+".backend.service", "%v; ignored", err)
		return
	}
	primary := b.findLocation(host, value, path.PathType)
	if primary == nil {
		b.problem(p.ref, field, "canary for host %q path %q has no primary (non-canary) ingress serving it; ignored", host, value)
		return
	}
	if primary.Ingress.Namespace != p.ref.Namespace && !b.opts.AllowCrossNamespaceHostSharing {
		// A canary takes a share of its primary's requests: another
		// namespace's canary would take them from another tenant.
		b.problem(p.ref, field, "canary for host %q path %q would take requests of ingress %s, in another namespace; ignored (--allow-cross-namespace-host-sharing allows it)", host, value, primary.Ingress)
		return
	}
	svc := path.Backend.Service
	canary := b.useBackend(p, svc.Name, svc.Port, field+".backend")
	if canary.Name == primary.Backend {
		b.problem(p.ref, field+".backend", "canary uses the same backend %s as its primary; ignored", canary.Name)
		return
	}
	// The traffic policy belongs to the backend, so the oldest canary
	// Ingress of a Service port sets it, as in ingress-nginx (where the
	// first Ingress to create an upstream configures it).
	if owner, ok := b.canaryOwners[canary.Name]; !ok {
		b.canaryOwners[canary.Name] = p.ref
		canary.NoServer = true
		canary.TrafficShaping = p.ann.Canary.TrafficShaping
	} else if owner != p.ref && canary.TrafficShaping != p.ann.Canary.TrafficShaping {
		b.problem(p.ref, field+".backend", "backend %s is already a canary with the traffic policy of ingress %s (older); this Ingress's canary annotations do not apply to it", canary.Name, owner)
	}
	pb := b.backends[primary.Backend]
	if pb == nil {
		return
	}
	if b.canaryOwners[canary.Name] == p.ref && p.ann.Canary.AffinityLegacy {
		b.noteLegacyCanary(canary.Name)
	}
	for _, a := range pb.AlternativeBackends {
		if a == canary.Name {
			return
		}
	}
	pb.AlternativeBackends = append(pb.AlternativeBackends, canary.Name)
	sort.Strings(pb.AlternativeBackends)
}

func (b *builder) findLocation(host, path string, pt *networkingv1.PathType) *model.Location {
	s, ok := b.servers[host]
	if !ok {
		return nil
	}
	want := model.PathImplementationSpecific
	if pt != nil {
		want = model.PathType(*pt)
	}
	for i := range s.server.Locations {
		l := &s.server.Locations[i]
		if l.Path == path && l.PathType == want {
			return l
		}
	}
	return nil
}

// addTLS gives the rule hosts of an Ingress their certificate, as
// ingress-nginx does: a host listed under spec.tls takes the Secret of its
// entry; a rule host listed nowhere takes the first entry's certificate
// that covers it (so a "*.example.com" entry serves every rule host under
// it). Hosts of spec.tls that no rule of the Ingress serves are left alone.
// An entry without a secretName gives its hosts --default-ssl-certificate,
// when there is one. A certificate that does not cover a listed host is not
// served for it; the oldest Ingress wins a host. As in ingress-nginx, a
// host listed under spec.tls is a TLS host (HTTP is redirected to HTTPS)
// even when its entry gives no usable certificate: the default one is
// served then (its Secret missing or unnamed, or not covering the host).
// So is a rule host of the Ingress that no entry lists or covers: once an
// Ingress has a tls section, all its rule hosts are TLS hosts, the ones
// without a certificate of their own serving the default one.
func (b *builder) addTLS(ing *networkingv1.Ingress) {
	if len(ing.Spec.TLS) == 0 {
		return
	}
	ref := model.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name}
	// listed maps a host of spec.tls to its first entry and field.
	type listing struct {
		entry int
		field string
	}
	listed := map[string]listing{}
	certs := make([]*model.Certificate, len(ing.Spec.TLS))
	defaultFor := make([]bool, len(ing.Spec.TLS)) // entries without a secretName
	for i, t := range ing.Spec.TLS {
		field := fmt.Sprintf("spec.tls[%d]", i)
		for k, host := range t.Hosts {
			hf := fmt.Sprintf("%s.hosts[%d]", field, k)
			if err := checkHost(host); err != nil {
				b.problem(ref, hf, "%v", err)
				continue
			}
			if _, dup := listed[host]; !dup {
				listed[host] = listing{entry: i, field: hf}
			}
		}
		if t.SecretName == "" {
			// ingress-nginx serves --default-ssl-certificate to the hosts
			// of such an entry, as TLS hosts (documented usage).
			if b.defaultCertificate != "" {
				defaultFor[i] = true
				certs[i] = b.certs[b.defaultCertificate]
				continue
			}
			b.problem(ref, field+".secretName", "no secret named and no --default-ssl-certificate; the self-signed certificate is served")
			continue
		}
		cert, err := b.certificate(ing.Namespace, t.SecretName)
		if err != nil {
			b.problem(ref, field+".secretName", "%v; the default certificate is served", err)
			continue
		}
		certs[i] = cert
	}
	seen := map[string]bool{}
	for _, r := range ing.Spec.Rules {
		host := r.Host
		if host == "" || seen[host] || checkHost(host) != nil {
			continue
		}
		seen[host] = true
		var cert *model.Certificate
		field := ""
		if l, ok := listed[host]; ok {
			cert, field = certs[l.entry], l.field
			if cert == nil {
				b.server(host).server.TLS = true // no usable Secret: reported above
				continue
			}
			if !defaultFor[l.entry] && !certificateCovers(cert, host) {
				b.problem(ref, field, "certificate of secret %s is not valid for host %q (it covers %v); the default certificate is served", cert.ID, host, cert.Hosts)
				b.server(host).server.TLS = true
				continue
			}
		} else {
			for i, c := range certs {
				if c != nil && !defaultFor[i] && certificateCovers(c, host) {
					cert, field = c, fmt.Sprintf("spec.tls[%d]", i)
					break
				}
			}
			if cert == nil {
				// ingress-nginx gives every rule host of an Ingress with
				// a tls section a certificate: the default one when no
				// entry lists or covers it, and redirects it like any
				// TLS host (its controller.go createServers and
				// extractTLSSecretName; its issue 3258).
				b.server(host).server.TLS = true
				continue
			}
		}
		s := b.server(host)
		switch {
		case s.server.CertificateID == "":
			s.server.CertificateID = cert.ID
			s.server.TLS = true
			s.certOwner = ref
		case s.server.CertificateID != cert.ID:
			b.problem(ref, field, "host %q already uses the certificate of secret %s from ingress %s (older)", host, s.server.CertificateID, s.certOwner)
		}
	}
}

// certificate parses a TLS Secret once per Build.
func (b *builder) certificate(namespace, name string) (*model.Certificate, error) {
	id := namespace + "/" + name
	if c, ok := b.certs[id]; ok {
		return c, nil
	}
	sec, ok := b.secrets[nsName{namespace, name}]
	if !ok {
		return nil, fmt.Errorf("secret %q not found", id)
	}
	c, err := certificateFromSecret(sec)
	if err != nil {
		return nil, err
	}
	b.certs[id] = &c
	return &c, nil
}

func (b *builder) addDefaultCertificate() {
	if b.opts.DefaultSSLCertificate == "" {
		return
	}
	ns, name, _ := cutNamespace(b.opts.DefaultSSLCertificate)
	c, err := b.certificate(ns, name)
	if err != nil {
		b.problem(model.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}, "--default-ssl-certificate", "%v; the self-signed certificate is served", err)
		return
	}
	b.defaultCertificate = c.ID
}

func cutNamespace(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return "", s, false
}
