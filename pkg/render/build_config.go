package render

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// config assembles the sorted Config from the builder's state.
func (b *builder) config() *model.Config {
	c := &model.Config{
		Servers:            make([]model.Server, 0, len(b.servers)),
		Backends:           make([]model.Backend, 0, len(b.backends)),
		Global:             b.global,
		DefaultBackend:     b.controllerDefaultBackend(),
		DefaultCertificate: b.defaultCertificate,
	}
	used := map[string]bool{c.DefaultBackend: true}
	usedCerts := map[string]bool{b.defaultCertificate: true}
	hosts := make([]string, 0, len(b.servers))
	for h := range b.servers {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return serverLess(hosts[i], hosts[j]) })
	b.attachAliases()
	b.affinityLocations(hosts)
	for _, h := range hosts {
		s := b.servers[h].server
		for i := range s.Locations {
			l := &s.Locations[i]
			l.HTTPSRedirect = b.httpsRedirect(s, l)
			used[l.Backend] = true
			used[l.Settings.CustomDefaultBackend] = true
		}
		usedCerts[s.CertificateID] = true
		c.Servers = append(c.Servers, s)
	}
	names := make([]string, 0, len(b.backends))
	for n := range b.backends {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		be := *b.backends[n]
		if used[n] {
			be.NoServer = false
		} else if !be.NoServer {
			continue // only referenced by a location that was dropped
		}
		c.Backends = append(c.Backends, be)
	}
	ids := make([]string, 0, len(b.certs))
	for id := range b.certs {
		if usedCerts[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		c.Certificates = append(c.Certificates, *b.certs[id])
	}
	return c
}

// httpsRedirect decides whether a location redirects plain HTTP to HTTPS,
// as ingress-nginx: never under a path of no-tls-redirect-locations (ACME
// challenges); else force-ssl-redirect (the annotation, or the ConfigMap's
// when it has none), or ssl-redirect on a host with TLS.
func (b *builder) httpsRedirect(s model.Server, l *model.Location) bool {
	for _, p := range b.global.Redirects.NoTLSRedirectLocations {
		if strings.HasPrefix(l.Path, p) {
			return false
		}
	}
	force := b.global.Redirects.ForceSSLRedirect
	if l.Settings.ForceSSLRedirect != nil {
		force = *l.Settings.ForceSSLRedirect
	}
	return force || (s.TLS && b.sslRedirect(l))
}

func (b *builder) sslRedirect(l *model.Location) bool {
	if l.Settings.SSLRedirect != nil {
		return *l.Settings.SSLRedirect
	}
	return b.global.SSLRedirect
}

// serverLess sorts the catch-all server first, then by hostname.
func serverLess(a, b string) bool { return model.HostBefore(a, b) }

// attachAliases adds each server-alias to its host, unless a server of its
// own has that name (a real host wins over an alias).
func (b *builder) attachAliases() {
	for _, a := range slices.Sorted(maps.Keys(b.aliases)) {
		owner := b.aliases[a]
		if _, isHost := b.servers[a]; isHost {
			b.problem(owner.ing, annotations.Field("server-alias"), "alias %q is a host of its own; alias ignored", a)
			continue
		}
		s := b.servers[owner.host]
		s.server.Aliases = append(s.server.Aliases, a)
	}
}
