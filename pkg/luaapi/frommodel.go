package luaapi

import (
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// FromModel returns the payloads that make nginx's Lua serve c: the
// backends (in the order of c.Backends) and the servers payload, which maps
// every server that has a certificate, and each of its aliases, to the
// certificate ID, and holds the PEM of every certificate of c.
//
// A backend whose LoadBalance is empty gets c.Global.LoadBalance, so that
// Lua needs no default of its own.
func FromModel(c *model.Config) ([]Backend, Servers) {
	backends := make([]Backend, 0, len(c.Backends))
	for i := range c.Backends {
		backends = append(backends, backendFromModel(&c.Backends[i], c.Global.LoadBalance))
	}
	return backends, serversFromModel(c)
}

func backendFromModel(b *model.Backend, defaultLoadBalance string) Backend {
	out := Backend{
		Name:      b.Name,
		Port:      Port(b.Port),
		Endpoints: make([]Endpoint, 0, len(b.Endpoints)),
		SessionAffinity: SessionAffinityConfig{
			Name: b.SessionAffinity.Type,
			Mode: b.SessionAffinity.Mode,
			CookieSessionAffinity: CookieSessionAffinity{
				Name:                    b.SessionAffinity.Cookie.Name,
				Expires:                 b.SessionAffinity.Cookie.Expires,
				MaxAge:                  b.SessionAffinity.Cookie.MaxAge,
				Path:                    b.SessionAffinity.Cookie.Path,
				Domain:                  b.SessionAffinity.Cookie.Domain,
				Secure:                  b.SessionAffinity.Cookie.Secure,
				SameSite:                b.SessionAffinity.Cookie.SameSite,
				ConditionalSameSiteNone: b.SessionAffinity.Cookie.ConditionalSameSiteNone,
				ChangeOnFailure:         b.SessionAffinity.Cookie.ChangeOnFailure,
				Locations:               b.SessionAffinity.Locations,
			},
		},
		UpstreamHashBy: UpstreamHashByConfig{
			UpstreamHashBy:           b.UpstreamHashBy.Expression,
			UpstreamHashBySubset:     b.UpstreamHashBy.Subset,
			UpstreamHashBySubsetSize: b.UpstreamHashBy.SubsetSize,
		},
		LoadBalance: b.LoadBalance,
		NoServer:    b.NoServer,
		TrafficShapingPolicy: TrafficShapingPolicy{
			Weight:        b.TrafficShaping.Weight,
			WeightTotal:   b.TrafficShaping.WeightTotal,
			Header:        b.TrafficShaping.Header,
			HeaderValue:   b.TrafficShaping.HeaderValue,
			HeaderPattern: b.TrafficShaping.HeaderPattern,
			Cookie:        b.TrafficShaping.Cookie,

			HeaderPatternInvalid: b.TrafficShaping.HeaderPatternInvalid,
		},
		AlternativeBackends: append(make([]string, 0, len(b.AlternativeBackends)), b.AlternativeBackends...),
	}
	if out.LoadBalance == "" {
		out.LoadBalance = defaultLoadBalance
	}
	out.from, out.fromLoadBalance = b, defaultLoadBalance
	if b.Service.Name != "" || b.ExternalName != "" {
		out.Service = &Service{Metadata: ServiceMetadata{Name: b.Service.Name, Namespace: b.Service.Namespace}}
		if b.ExternalName != "" {
			out.Service.Spec = ServiceSpec{Type: ServiceTypeExternalName, ExternalName: b.ExternalName}
		}
	}
	for _, e := range b.Endpoints {
		out.Endpoints = append(out.Endpoints, Endpoint{Address: e.Address, Port: strconv.Itoa(e.Port)})
	}
	return out
}

// serversFromModel maps hostnames first and aliases after, so that an alias
// never takes the place of a server of the same name.
func serversFromModel(c *model.Config) Servers {
	s := Servers{
		Servers:      make(map[string]string),
		Certificates: make(map[string]string, len(c.Certificates)),
	}
	for _, srv := range c.Servers {
		if srv.CertificateID != "" {
			s.Servers[srv.Hostname] = srv.CertificateID
		}
	}
	certs := make(map[string]*model.Certificate, len(c.Certificates))
	for i := range c.Certificates {
		certs[c.Certificates[i].ID] = &c.Certificates[i]
	}
	for _, srv := range c.Servers {
		cert := certs[srv.CertificateID]
		if cert == nil {
			continue
		}
		for _, alias := range srv.Aliases {
			// An alias gets its host's certificate only when the
			// certificate covers it, as ingress-nginx checks.
			if _, taken := s.Servers[alias]; !taken && cert.Covers(alias) {
				s.Servers[alias] = srv.CertificateID
			}
		}
	}
	// A from-to-www-redirect server serves its host's certificate when it
	// covers the redirected name (render set CertificateID only then).
	for _, r := range c.WWWRedirects {
		if _, taken := s.Servers[r.From]; !taken && r.CertificateID != "" {
			s.Servers[r.From] = r.CertificateID
		}
	}
	// The catch-all server's entry is the default certificate
	// (--default-ssl-certificate); Lua serves it when no host matches.
	if c.DefaultCertificate != "" {
		if _, taken := s.Servers[model.CatchAllHost]; !taken {
			s.Servers[model.CatchAllHost] = c.DefaultCertificate
		}
	}
	for _, cert := range c.Certificates {
		s.Certificates[cert.ID] = cert.PEM
	}
	return s
}
