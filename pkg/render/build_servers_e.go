package render

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Server settings of Ingress annotations that are not paths:
// ssl-ciphers and ssl-prefer-server-ciphers (the oldest Ingress of a host
// that sets one wins, as in ingress-nginx, and a younger one that
// disagrees is a Problem), and from-to-www-redirect (redirect servers made
// once every host is known).

// builderExtras is the state of these settings and of the ConfigMaps that
// annotations name (build_headers.go).
type builderExtras struct {
	configMaps configMapIndex
	ingressCMs map[model.ObjectRef]*ingressConfigMaps
	// cipherOwner and preferOwner name the Ingress that set a host's
	// ssl-ciphers and ssl-prefer-server-ciphers.
	cipherOwner map[string]model.ObjectRef
	preferOwner map[string]model.ObjectRef
	// www are the hosts whose Ingress asked for from-to-www-redirect, with
	// the first such Ingress.
	www map[string]model.ObjectRef
	// locationSettings are the settings each Ingress's locations share
	// (build_locsettings.go), made on demand.
	locationSettings map[*parsedIngress]*ingressSettings
	// sharedSettings are the settings of those Ingresses, by a hash of
	// their namespace and annotations (internSettings).
	sharedSettings map[uint64][]*model.LocationSettings
}

func newBuilderExtras(cms []*corev1.ConfigMap) builderExtras {
	return builderExtras{
		configMaps:  newConfigMapIndex(cms),
		ingressCMs:  map[model.ObjectRef]*ingressConfigMaps{},
		cipherOwner: map[string]model.ObjectRef{},
		preferOwner: map[string]model.ObjectRef{},
		www:         map[string]model.ObjectRef{},
	}
}

// addServerExtras applies ssl-ciphers, ssl-prefer-server-ciphers and
// from-to-www-redirect of an Ingress to its hosts.
func (b *builder) addServerExtras(p *parsedIngress, hosts []string) {
	a := &p.ann
	for _, h := range hosts {
		s := b.server(h)
		if a.SSLCiphers != "" {
			switch owner, taken := b.cipherOwner[h]; {
			case !taken:
				s.server.SSLCiphers = a.SSLCiphers
				b.cipherOwner[h] = p.ref
			case s.server.SSLCiphers != a.SSLCiphers:
				b.problem(p.ref, annotations.Field("ssl-ciphers"), "host %q already has ssl-ciphers %q from ingress %s (older); the annotation is ignored for this host", h, s.server.SSLCiphers, owner)
			}
		}
		if a.SSLPreferServerCiphers != nil {
			switch owner, taken := b.preferOwner[h]; {
			case !taken:
				v := *a.SSLPreferServerCiphers
				s.server.SSLPreferServerCiphers = &v
				b.preferOwner[h] = p.ref
			case *s.server.SSLPreferServerCiphers != *a.SSLPreferServerCiphers:
				b.problem(p.ref, annotations.Field("ssl-prefer-server-ciphers"), "host %q already has ssl-prefer-server-ciphers %t from ingress %s (older); the annotation is ignored for this host", h, *s.server.SSLPreferServerCiphers, owner)
			}
		}
		if a.FromToWWWRedirect {
			switch {
			case h == model.CatchAllHost:
				b.problem(p.ref, annotations.Field("from-to-www-redirect"), "needs a rule with a host; ignored for the rule without one")
			case strings.HasPrefix(h, "*."):
				b.problem(p.ref, annotations.Field("from-to-www-redirect"), "host %q is a wildcard: there is no www name to redirect; ignored for this host", h)
			default:
				if _, taken := b.www[h]; !taken {
					b.www[h] = p.ref
				}
			}
		}
	}
}

// wwwOther is the name from-to-www-redirect redirects to host from.
func wwwOther(host string) string {
	if rest, ok := strings.CutPrefix(host, "www."); ok {
		return rest
	}
	return "www." + host
}

// wwwRedirects makes the redirect servers of from-to-www-redirect, sorted
// by From. A name that is a host (or an alias) of its own is served by its
// rules, not redirected, as in ingress-nginx; so is a name two hosts would
// redirect (foo.com and www.www.foo.com cannot both own www.foo.com).
func (b *builder) wwwRedirects(c *model.Config) []model.WWWRedirect {
	if len(b.www) == 0 {
		return nil
	}
	taken := map[string]bool{}
	for i := range c.Servers {
		taken[c.Servers[i].Hostname] = true
		for _, a := range c.Servers[i].Aliases {
			taken[a] = true
		}
	}
	hosts := make([]string, 0, len(b.www))
	for h := range b.www {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var out []model.WWWRedirect
	seen := map[string]bool{}
	for _, h := range hosts {
		from := wwwOther(h)
		if taken[from] || seen[from] || checkHost(from) != nil {
			continue
		}
		seen[from] = true
		r := model.WWWRedirect{From: from, To: h, Ingress: b.www[h]}
		if s := c.Server(h); s != nil && s.CertificateID != "" {
			for i := range c.Certificates {
				if c.Certificates[i].ID == s.CertificateID && c.Certificates[i].Covers(from) {
					r.CertificateID = s.CertificateID
				}
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}
