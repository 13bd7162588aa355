package nginxconf

import (
	"net"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Request mirroring (mirror-target): the location copies each request to
// an internal location "= /_mirror-<id>" of its server, which proxies the
// copy to the target; nginx discards the answer. The target's host and
// port are an upstream of their own ("kubectl_ingress_mirror_<id>"), so
// proxy_pass may hold the target's variables ($request_uri …) without a
// resolver: nginx looks the name up among the upstreams first. Every user
// value here was checked by annotations.valueMirrorTarget (an http(s) URL,
// allowlisted variables only) and goes through q.

func mirrorLocation(m *model.Mirror) string { return "/_mirror-" + m.ID }

func mirrorUpstream(m *model.Mirror) string { return "kubectl_ingress_mirror_" + m.ID }

// writeMirror writes the mirror lines of a location.
func writeMirror(w *confWriter, m *model.Mirror) {
	if m == nil {
		return
	}
	w.line("mirror", w.q(mirrorLocation(m)))
	w.line("mirror_request_body", onOff(m.RequestBody))
}

// writeMirrorLocations writes the internal locations of the mirrors of a
// server's locations, once per mirror.
func writeMirrorLocations(w *confWriter, s *model.Server) {
	seen := map[string]bool{}
	for _, i := range locationOrder(s.Locations) {
		l := &s.Locations[i]
		m := l.Settings.Mirror
		if m == nil || seen[m.ID] || l.Settings.Denied != "" {
			continue
		}
		seen[m.ID] = true
		block := w.beginOwned(s.Hostname, "= "+mirrorLocation(m), []model.ObjectRef{l.Ingress})
		w.open("location", "=", w.q(mirrorLocation(m)))
		w.line("internal")
		// The copy shares the request's variables: no "set" here, and no
		// balancer (the server's rewrite_by_lua would pick the request's
		// backend).
		w.open("rewrite_by_lua_block")
		w.raw("return")
		w.close()
		w.line("proxy_set_header", "Host", w.q(m.Host))
		if !m.RequestBody {
			// Without the body the copy must not announce one: the
			// mirror would wait for the request's Content-Length bytes.
			w.line("proxy_pass_request_body", "off")
			w.line("proxy_set_header", "Content-Length", `""`)
		}
		if m.Scheme == "https" {
			// The TLS name is the target's host (nginx sends no SNI for an
			// address), not the upstream's name.
			host, _, _ := net.SplitHostPort(m.HostPort)
			w.line("proxy_ssl_server_name", "on")
			w.line("proxy_ssl_name", w.q(host))
		}
		w.line("proxy_pass", w.q(m.Scheme+"://"+mirrorUpstream(m)+m.URI))
		w.close()
		w.endOwned(block)
	}
}

// writeMirrorUpstreams declares the upstream of each mirror, once.
func writeMirrorUpstreams(w *confWriter, c *model.Config) {
	seen := map[string]bool{}
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			l := &c.Servers[i].Locations[j]
			m := l.Settings.Mirror
			if m == nil || seen[m.ID] || l.Settings.Denied != "" {
				continue
			}
			seen[m.ID] = true
			block := w.beginOwned("", "", []model.ObjectRef{l.Ingress})
			w.open("upstream", mirrorUpstream(m))
			w.line("server", w.q(m.HostPort))
			w.close()
			w.endOwned(block)
		}
	}
}
