package sync

import (
	"fmt"
	"sort"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// confReasons explains a change of nginx.conf from the models: ConfigMap
// settings, servers and locations. It also returns the hosts whose server
// block changed. The hosts of skip (Lua-routed before and after: they
// have no server block, planRoutes explains them) are left out.
func confReasons(old, cur *model.Config, skip map[string]bool) ([]Reason, []string) {
	var rs []Reason
	configMap := model.ObjectRef{Kind: "ConfigMap"}
	for _, c := range diffFields(old.Global, cur.Global) {
		rs = append(rs, Reason{Reload: true, Object: configMap, Message: fmt.Sprintf("%s changed from %s to %s", c.Path, c.Old, c.New)})
	}
	if old.DefaultBackend != cur.DefaultBackend {
		rs = append(rs, Reason{Reload: true, Message: fmt.Sprintf("default backend changed from %s to %s", old.DefaultBackend, cur.DefaultBackend)})
	}
	oldServers := serversByHost(old)
	curServers := serversByHost(cur)
	var changed []string
	for _, host := range unionKeys(oldServers, curServers) {
		if skip[host] {
			continue
		}
		o, c := oldServers[host], curServers[host]
		var srs []Reason
		switch {
		case o == nil:
			srs = []Reason{{Reload: true, Object: serverOwner(c), Message: fmt.Sprintf("server %s added", host)}}
		case c == nil:
			srs = []Reason{{Reload: true, Object: serverOwner(o), Message: fmt.Sprintf("server %s removed", host)}}
		default:
			srs = serverReasons(o, c)
		}
		if len(srs) > 0 {
			changed = append(changed, host)
			rs = append(rs, srs...)
		}
	}
	rs = append(rs, wwwRedirectReasons(old, cur)...)
	return rs, changed
}

// serverTLSView is what of a server's own TLS settings reaches nginx.conf
// (ssl-ciphers, ssl-prefer-server-ciphers).
type serverTLSView struct {
	SSLCiphers             string
	SSLPreferServerCiphers *bool
}

// wwwRedirectReasons explains the from-to-www-redirect servers added,
// removed or changed.
func wwwRedirectReasons(old, cur *model.Config) []Reason {
	o := map[string]model.WWWRedirect{}
	for _, r := range old.WWWRedirects {
		o[r.From] = r
	}
	c := map[string]model.WWWRedirect{}
	for _, r := range cur.WWWRedirects {
		c[r.From] = r
	}
	var rs []Reason
	for _, from := range unionKeys(o, c) {
		or, inOld := o[from]
		cr, inCur := c[from]
		switch {
		case !inOld:
			rs = append(rs, Reason{Reload: true, Object: cr.Ingress, Message: fmt.Sprintf("from-to-www-redirect server %s added (to %s)", from, cr.To)})
		case !inCur:
			rs = append(rs, Reason{Reload: true, Object: or.Ingress, Message: fmt.Sprintf("from-to-www-redirect server %s removed", from)})
		case or.To != cr.To:
			rs = append(rs, Reason{Reload: true, Object: cr.Ingress, Message: fmt.Sprintf("from-to-www-redirect server %s now redirects to %s", from, cr.To)})
		}
	}
	return rs
}

func serversByHost(c *model.Config) map[string]*model.Server {
	m := make(map[string]*model.Server, len(c.Servers))
	for i := range c.Servers {
		m[c.Servers[i].Hostname] = &c.Servers[i]
	}
	return m
}

// serverOwner names the Ingress behind a server: the owner of its first
// location, if any.
func serverOwner(s *model.Server) model.ObjectRef {
	if len(s.Locations) > 0 {
		return s.Locations[0].Ingress
	}
	return model.ObjectRef{}
}

func serverReasons(o, c *model.Server) []Reason {
	var rs []Reason
	owner := serverOwner(c)
	if fmt.Sprint(o.Aliases) != fmt.Sprint(c.Aliases) {
		rs = append(rs, Reason{Reload: true, Object: owner, Message: fmt.Sprintf("server-alias of %s changed from %v to %v", c.Hostname, o.Aliases, c.Aliases)})
	}
	if o.AppRoot != c.AppRoot {
		rs = append(rs, Reason{Reload: true, Object: owner, Message: fmt.Sprintf("app-root of %s changed from %q to %q", c.Hostname, o.AppRoot, c.AppRoot)})
	}
	if o.TLS != c.TLS {
		rs = append(rs, Reason{Reload: true, Object: owner, Message: fmt.Sprintf("TLS of %s turned %s", c.Hostname, onOff(c.TLS))})
	}
	if ch := diffFields(serverTLSView{o.SSLCiphers, o.SSLPreferServerCiphers}, serverTLSView{c.SSLCiphers, c.SSLPreferServerCiphers}); len(ch) > 0 {
		rs = append(rs, Reason{Reload: true, Object: owner, Message: fmt.Sprintf("TLS settings of %s changed: %s", c.Hostname, describe(ch))})
	}
	type key struct {
		path string
		pt   model.PathType
	}
	ol := map[key]*model.Location{}
	for i := range o.Locations {
		l := &o.Locations[i]
		ol[key{l.Path, l.PathType}] = l
	}
	cl := map[key]*model.Location{}
	var keys []key
	for i := range c.Locations {
		l := &c.Locations[i]
		k := key{l.Path, l.PathType}
		cl[k] = l
		keys = append(keys, k)
	}
	for k := range ol {
		if cl[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].path != keys[j].path {
			return keys[i].path < keys[j].path
		}
		return keys[i].pt < keys[j].pt
	})
	for _, k := range keys {
		ov, cv := ol[k], cl[k]
		switch {
		case ov == nil:
			rs = append(rs, Reason{Reload: true, Object: cv.Ingress, Message: fmt.Sprintf("path %s added (server %s)", k.path, c.Hostname)})
		case cv == nil:
			rs = append(rs, Reason{Reload: true, Object: ov.Ingress, Message: fmt.Sprintf("path %s removed (server %s)", k.path, c.Hostname)})
		default:
			if ch := diffFields(viewOf(ov), viewOf(cv)); len(ch) > 0 {
				rs = append(rs, Reason{Reload: true, Object: cv.Ingress, Message: fmt.Sprintf("path %s changed (server %s): %s", k.path, c.Hostname, describe(ch))})
			}
		}
	}
	return rs
}

// locationView is what of a location reaches nginx.conf.
type locationView struct {
	Backend       string
	Regex         bool
	HTTPSRedirect bool
	Settings      model.LocationSettings
	Ingress       model.ObjectRef
}

func viewOf(l *model.Location) locationView {
	return locationView{Backend: l.Backend, Regex: l.Regex, HTTPSRedirect: l.HTTPSRedirect, Settings: *l.Settings, Ingress: l.Ingress}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
