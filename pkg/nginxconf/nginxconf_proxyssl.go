package nginxconf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeProxySSL writes the TLS client side towards an HTTPS backend
// (proxy_ssl_*) or a GRPCS one (grpc_ssl_*); nothing for plain backends,
// where nginx would ignore it. As in ingress-nginx, the verification, its
// depth, the protocols and the ciphers are written only with a trusted CA.
// nginx reads the certificate, key and CA when it loads nginx.conf: new
// content is a new file name (model.File), so nginx reloads.
func writeProxySSL(w *confWriter, ps *model.ProxySSL, protocol string) {
	if ps == nil {
		return
	}
	var prefix string
	switch strings.ToUpper(protocol) {
	case "HTTPS":
		prefix = "proxy_ssl_"
	case "GRPCS":
		prefix = "grpc_ssl_"
	default:
		return
	}
	if ps.CertFile != "" {
		w.line(prefix+"certificate", w.q(model.FilePath(ps.CertFile)))
		w.line(prefix+"certificate_key", w.q(model.FilePath(ps.CertFile)))
	}
	if ps.CAFile != "" {
		w.line(prefix+"trusted_certificate", w.q(model.FilePath(ps.CAFile)))
		w.line(prefix+"ciphers", w.q(ps.Ciphers))
		protocols := []string{prefix + "protocols"}
		for _, p := range strings.Fields(ps.Protocols) {
			protocols = append(protocols, w.q(p))
		}
		w.line(protocols...)
		w.line(prefix+"verify", onOff(ps.Verify))
		w.line(prefix+"verify_depth", strconv.Itoa(ps.VerifyDepth))
	}
	if ps.Name != "" {
		w.line(prefix+"name", w.q(ps.Name))
	}
	w.line(prefix+"server_name", onOff(ps.ServerName))
}

// Upstreams of backend TLS. nginx keeps idle connections to backends per
// upstream block, by address only (the keepalive module): a TLS connection
// that one location opened (without verification, with another SNI or
// client certificate) would be reused by any location proxying to the same
// endpoint, so a location that verifies the backend could be sent over a
// connection nobody verified. Each distinct backend TLS setting therefore
// proxies through an upstream block of its own, the same as
// upstream_balancer (balancer.balance() picks the endpoint) with its own
// pool of idle connections.

// balancerUpstream is the upstream a location with backend TLS settings
// ps proxies to: upstream_balancer when it has none (or the protocol is
// not TLS).
func balancerUpstream(ps *model.ProxySSL, protocol string) string {
	p := strings.ToUpper(protocol)
	if ps == nil || (p != "HTTPS" && p != "GRPCS") {
		return "upstream_balancer"
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%+v", p, *ps)))
	return "upstream_balancer_tls_" + hex.EncodeToString(sum[:8])
}

// writeProxySSLUpstreams writes the upstream of each distinct backend TLS
// setting of the locations and of the Lua router's shape locations,
// sorted by name.
func writeProxySSLUpstreams(w *confWriter, c *model.Config) {
	names := map[string]bool{}
	for _, shape := range w.shapes { // the Lua router's (none in classic mode)
		if name := balancerUpstream(shape.ProxySSL, shape.Protocol); name != "upstream_balancer" {
			names[name] = true
		}
	}
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			st := c.Servers[i].Locations[j].Settings
			if name := balancerUpstream(st.ProxySSL, st.BackendProtocol); name != "upstream_balancer" {
				names[name] = true
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		w.open("upstream", n)
		w.line("server", "0.0.0.1")
		w.open("balancer_by_lua_block")
		w.raw(`balancer.balance()`)
		w.close()
		// The same as upstream_balancer's (writeLua).
		if k := c.Global.UpstreamKeepaliveConnections; k > 0 {
			w.line("keepalive", strconv.Itoa(k))
			writeUpstreamKeepalive(w, c.Global)
		}
		w.close()
	}
}
