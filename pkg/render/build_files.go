package render

import (
	"maps"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// finishClientAuth decides the client certificate authentication of each
// server: the oldest Ingress with a path on the host and auth-tls-secret
// sets it for the whole host, as in ingress-nginx (nginx asks for the
// certificate in the TLS handshake, before any path is known). Every
// location of the server gets it too (the headers sent upstream and the
// CN check are written per location), in settings of its own where it
// shared them with locations of other hosts. A younger Ingress of the host with
// other auth-tls settings is a Problem.
func (b *builder) finishClientAuth() {
	// The Ingresses with auth-tls-secret, by their place in b.ingresses
	// (oldest first): a host looks only at its own Ingresses, so the work
	// is linear in the hosts' locations, not hosts × Ingresses.
	order := map[model.ObjectRef]int{}
	for i, p := range b.ingresses {
		if p.ann.Location.ClientAuth != nil {
			order[p.ref] = i
		}
	}
	if len(order) == 0 {
		return
	}
	for _, h := range slices.Sorted(maps.Keys(b.servers)) {
		s := &b.servers[h].server
		var onHost []int
		for i := range s.Locations {
			if at, ok := order[s.Locations[i].Ingress]; ok && !slices.Contains(onHost, at) {
				onHost = append(onHost, at)
			}
		}
		if len(onHost) == 0 {
			continue
		}
		slices.Sort(onHost)
		var chosen *model.ClientAuth
		for _, at := range onHost {
			p := b.ingresses[at]
			ca := p.ann.Location.ClientAuth
			if chosen == nil {
				chosen = ca
				continue
			}
			if !sameClientAuth(chosen, ca) {
				b.problem(p.ref, annotations.Field("auth-tls-secret"), "host %q already has client certificate authentication from ingress %s (older), which applies to the whole host; the auth-tls settings of this Ingress are ignored there", h, chosen.Ingress)
			}
		}
		s.ClientAuth = chosen
		// the locations share their settings with their Ingress's other
		// locations, maybe on other hosts: copies, one per settings
		withAuth := map[*model.LocationSettings]*model.LocationSettings{}
		for i := range s.Locations {
			l := &s.Locations[i]
			if l.Settings.ClientAuth == chosen {
				continue
			}
			if st := withAuth[l.Settings]; st != nil {
				l.Settings = st
				continue
			}
			from := l.Settings
			l.OwnSettings().ClientAuth = chosen
			withAuth[from] = l.Settings
		}
	}
}

func sameClientAuth(a, c *model.ClientAuth) bool {
	x, y := *a, *c
	x.Ingress, y.Ingress = model.ObjectRef{}, model.ObjectRef{}
	return x == y
}

// usedFiles returns the files that c's servers and locations name, sorted
// by name: a file of an Ingress whose paths were all dropped is not written.
func (b *builder) usedFiles(c *model.Config) []model.File {
	used := usedFileNames(c)
	var files []model.File
	for name, f := range b.files {
		if used[name] {
			files = append(files, f)
		}
	}
	model.SortFiles(files)
	return files
}

// usedFileNames are the names of the files c's servers and locations name.
func usedFileNames(c *model.Config) map[string]bool {
	used := map[string]bool{}
	used[c.Global.TLS.DHParamFile], used[c.Global.TLS.SessionTicketKeyFile] = true, true // resolveTLSFiles
	for i := range c.Servers {
		s := &c.Servers[i]
		if ca := s.ClientAuth; ca != nil {
			used[ca.CAFile], used[ca.CRLFile] = true, true
		}
		for j := range s.Locations {
			st := s.Locations[j].Settings
			if st.BasicAuth != nil {
				used[st.BasicAuth.File] = true
			}
			if ps := st.ProxySSL; ps != nil {
				used[ps.CertFile], used[ps.CAFile] = true, true
			}
		}
	}
	return used
}
