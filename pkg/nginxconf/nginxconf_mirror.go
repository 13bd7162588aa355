package nginxconf

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Request mirroring (mirror-target): the location copies each request to
// an internal location "= /_mirror-<id>" of its server, which proxies the
// copy to the target; nginx discards the answer. The target is a variable,
// so nginx resolves a DNS name per request (with the resolver the
// controller writes from its resolv.conf), never at load time: a name that
// does not resolve loses the copies, it does not fail nginx -t for every
// tenant. Every user value here was checked by
// annotations.valueMirrorTarget (an http(s) URL, allowlisted variables
// only) and goes through q.

// mirrorTargetVar holds the URL of the copy. The mirror subrequest shares
// its request's variables; only the internal location reads this one.
const mirrorTargetVar = "$kubectl_ingress_mirror_target"

func mirrorLocation(m *model.Mirror) string { return "/_mirror-" + m.ID }

// writeMirror writes the mirror lines of a location.
func writeMirror(w *confWriter, m *model.Mirror) {
	if m == nil {
		return
	}
	writeMirrorTo(w, mirrorLocation(m), m)
}

// writeMirrorTo writes the mirror lines that copy a request to the
// internal location path.
func writeMirrorTo(w *confWriter, path string, m *model.Mirror) {
	w.line("mirror", w.q(path))
	w.line("mirror_request_body", onOff(m.RequestBody))
}

// writeMirrorLocations writes the internal locations of the mirrors of a
// server's locations, once per mirror.
func writeMirrorLocations(w *confWriter, s *model.Server) {
	seen := map[string]bool{}
	for _, i := range model.LocationOrder(s.Locations) {
		l := &s.Locations[i]
		m := l.Settings.Mirror
		if m == nil || seen[m.ID] || l.Settings.Denied != "" {
			continue
		}
		seen[m.ID] = true
		block := w.beginOwned(s.Hostname, "= "+mirrorLocation(m), []model.ObjectRef{l.Ingress})
		writeMirrorLocation(w, mirrorLocation(m), m)
		w.endOwned(block)
	}
}

// writeMirrorLocation writes the internal location path that proxies the
// copies of the requests to mirror m (a classic server's, or the Lua
// router's for a shape with a mirror).
func writeMirrorLocation(w *confWriter, path string, m *model.Mirror) {
	w.open("location", "=", w.q(path))
	w.line("internal")
	// The copy shares the request's variables: it sets none but
	// mirrorTargetVar, and runs no balancer (the server's
	// rewrite_by_lua would pick the request's backend).
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
		w.line("proxy_ssl_server_name", "on")
	}
	w.line("set", mirrorTargetVar, w.q(m.Scheme+"://"+m.HostPort+m.URI))
	w.line("proxy_pass", mirrorTargetVar)
	w.close()
}
