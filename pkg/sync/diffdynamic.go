package sync

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// diffBackends compares the backends, which go to Lua: endpoints, balancing,
// affinity and canary settings change without a reload.
func diffBackends(old, cur *model.Config, sorted bool) ([]Reason, Changes) {
	var rs []Reason
	var ch Changes
	pairBackends(old.Backends, cur.Backends, sorted, func(name string, o, c *model.Backend) {
		switch {
		case o == nil:
			ch.Added = append(ch.Added, name)
			rs = append(rs, Reason{Object: c.Service, Message: fmt.Sprintf("backend %s added (%s)", name, plural(len(c.Endpoints), "endpoint", "endpoints"))})
		case c == nil:
			ch.Removed = append(ch.Removed, name)
			rs = append(rs, Reason{Object: o.Service, Message: fmt.Sprintf("backend %s removed", name)})
		case !o.Equal(c):
			ch.Changed = append(ch.Changed, name)
			rs = append(rs, backendReasons(o, c)...)
		}
	})
	return rs, ch
}

// pairBackends calls f for each backend name of old or cur, in name order,
// with the backend of each (nil where absent). Backends are sorted by name
// (model.Config): when sorted says both are, it walks the two in step,
// without a map of 100,000 names per sync; unsorted input is paired
// through maps.
func pairBackends(old, cur []model.Backend, sorted bool, f func(name string, o, c *model.Backend)) {
	if !sorted {
		ob, cb := backendsByName(old), backendsByName(cur)
		for _, name := range unionKeys(ob, cb) {
			f(name, ob[name], cb[name])
		}
		return
	}
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Name < cur[j].Name:
			f(old[i].Name, &old[i], nil)
			i++
		case i == len(old) || cur[j].Name < old[i].Name:
			f(cur[j].Name, nil, &cur[j])
			j++
		default:
			f(cur[j].Name, &old[i], &cur[j])
			i++
			j++
		}
	}
}

func backendReasons(o, c *model.Backend) []Reason {
	var rs []Reason
	if !slices.Equal(o.Endpoints, c.Endpoints) {
		added, removed := endpointDelta(o.Endpoints, c.Endpoints)
		obj := c.Service
		obj.Kind = "Endpoints"
		rs = append(rs, Reason{Object: obj, Message: fmt.Sprintf("%d added, %d removed (backend %s, now %s)", added, removed, c.Name, plural(len(c.Endpoints), "endpoint", "endpoints"))})
	}
	oc, cc := *o, *c
	oc.Endpoints, cc.Endpoints = nil, nil
	if ch := diffFields(oc, cc); len(ch) > 0 {
		rs = append(rs, Reason{Object: c.Service, Message: fmt.Sprintf("backend %s changed: %s", c.Name, describe(ch))})
	}
	return rs
}

func endpointDelta(old, cur []model.Endpoint) (added, removed int) {
	in := make(map[model.Endpoint]bool, len(old))
	for _, e := range old {
		in[e] = true
	}
	for _, e := range cur {
		if in[e] {
			delete(in, e)
		} else {
			added++
		}
	}
	return added, len(in)
}

func backendsByName(backends []model.Backend) map[string]*model.Backend {
	m := make(map[string]*model.Backend, len(backends))
	for i := range backends {
		m[backends[i].Name] = &backends[i]
	}
	return m
}

// diffCertificates compares the certificates and which host serves which:
// both go to Lua (/configuration/servers), so a rotation needs no reload.
func diffCertificates(old, cur *model.Config, sortedServers bool) ([]Reason, Changes, bool) {
	oc, cc := certsByID(old), certsByID(cur)
	var rs []Reason
	var ch Changes
	for _, id := range unionKeys(oc, cc) {
		o, c := oc[id], cc[id]
		switch {
		case o == nil:
			ch.Added = append(ch.Added, id)
			rs = append(rs, Reason{Object: c.Secret, Message: "certificate added"})
		case c == nil:
			ch.Removed = append(ch.Removed, id)
			rs = append(rs, Reason{Object: o.Secret, Message: "certificate removed"})
		case o.Checksum != c.Checksum:
			ch.Changed = append(ch.Changed, id)
			rs = append(rs, Reason{Object: c.Secret, Message: fmt.Sprintf("certificate rotated (expires %s)", c.NotAfter.Format("2006-01-02"))})
		}
	}
	hosts := hostCertificateChanges(old, cur, sortedServers)
	for _, hc := range hosts {
		rs = append(rs, Reason{Message: fmt.Sprintf("server %s: certificate %s → %s", hc.host, orNone(hc.old), orNone(hc.cur))})
	}
	return rs, ch, len(hosts) > 0 || !ch.Empty() || old.DefaultCertificate != cur.DefaultCertificate
}

func orNone(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

func certsByID(c *model.Config) map[string]*model.Certificate {
	m := make(map[string]*model.Certificate, len(c.Certificates))
	for i := range c.Certificates {
		m[c.Certificates[i].ID] = &c.Certificates[i]
	}
	return m
}

// hostCertificate is a host (or server alias) whose certificate differs:
// old and cur are the IDs ("" for none).
type hostCertificate struct {
	host, old, cur string
}

// hostCertificateChanges returns the hosts and aliases whose certificate
// differs between old and cur, sorted. When sortedServers says both
// Configs keep their servers in order (model.HostBefore) and no server
// has aliases, it walks the two in step: a hostname names one server, so
// only the servers that differ count, and no map of 100,000 hosts is
// made per sync. Otherwise it compares the maps of host to certificate.
func hostCertificateChanges(old, cur *model.Config, sortedServers bool) []hostCertificate {
	if sortedServers {
		if out, ok := stepHostCertificates(old.Servers, cur.Servers); ok {
			return out
		}
	}
	oh, chosts := hostCertificates(old), hostCertificates(cur)
	// Only the hosts that differ are sorted, not the union of 100,000.
	var hosts []string
	for host, id := range oh {
		if chosts[host] != id {
			hosts = append(hosts, host)
		}
	}
	for host := range chosts {
		if _, ok := oh[host]; !ok {
			hosts = append(hosts, host)
		}
	}
	slices.Sort(hosts)
	out := make([]hostCertificate, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, hostCertificate{h, oh[h], chosts[h]})
	}
	return out
}

// stepHostCertificates is hostCertificateChanges for servers in order;
// false when a server has aliases (an alias may name the host of another
// server, and which wins depends on the order of all).
func stepHostCertificates(old, cur []model.Server) ([]hostCertificate, bool) {
	var out []hostCertificate
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		var o, c *model.Server
		switch {
		case j == len(cur) || i < len(old) && model.HostBefore(old[i].Hostname, cur[j].Hostname):
			o = &old[i]
			i++
		case i == len(old) || model.HostBefore(cur[j].Hostname, old[i].Hostname):
			c = &cur[j]
			j++
		default:
			o, c = &old[i], &cur[j]
			i++
			j++
		}
		var host, oid, cid string
		if o != nil {
			if len(o.Aliases) > 0 {
				return nil, false
			}
			host, oid = o.Hostname, o.CertificateID
		}
		if c != nil {
			if len(c.Aliases) > 0 {
				return nil, false
			}
			host, cid = c.Hostname, c.CertificateID
		}
		if oid != cid {
			out = append(out, hostCertificate{host, oid, cid})
		}
	}
	// The catch-all comes first in server order; the reasons list hosts
	// by name, as the maps give them.
	slices.SortFunc(out, func(a, b hostCertificate) int { return strings.Compare(a.host, b.host) })
	return out, true
}

func hostCertificates(c *model.Config) map[string]string {
	m := make(map[string]string, len(c.Servers))
	for _, s := range c.Servers {
		if s.CertificateID == "" {
			continue
		}
		m[s.Hostname] = s.CertificateID
		for _, a := range s.Aliases {
			m[a] = s.CertificateID
		}
	}
	return m
}
