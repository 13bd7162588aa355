package nginxconf

import (
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The stream block (see lua/STREAM.md). nginx.conf holds what needs a
// reload anyway: the listen ports, the PROXY protocol flags and the SNI
// names of passthrough hosts. Which endpoint a connection goes to is chosen
// per connection by lua/stream.js (njs) from the stream payload files, so an
// endpoint change is a file rewrite, not a reload.

// passthroughLoopback is the address of the two loopback listeners behind
// the SNI router: the HTTPS servers and the passthrough hop.
const passthroughLoopback = "127.0.0.1"

// writeStreamModules loads the stream and njs modules when the config has
// a stream block.
func writeStreamModules(w *confWriter, c *model.Config, o ConfOptions) {
	if c.Stream.Empty() {
		return
	}
	loadModule(w, o, "ngx_stream_module.so")
	loadModule(w, o, "ngx_stream_js_module.so")
}

// writeHTTPSListen writes the HTTPS listen directive (with extra
// parameters): the public HTTPS port (writeListen), or with SSL
// passthrough a loopback port that takes the PROXY protocol from the SNI
// router in front of it.
func writeHTTPSListen(w *confWriter, c *model.Config, o ConfOptions, extra ...string) {
	opts := []string{"ssl"}
	if c.Global.Tuning.UseHTTP2 {
		opts = append(opts, "http2")
	}
	if !c.Stream.Passthrough {
		writeListen(w, o, o.HTTPSPort, append(append(opts, w.listenOptions()...), extra...)...)
		return
	}
	w.line(append(append(append([]string{"listen", w.q(passthroughLoopback + ":" + strconv.Itoa(o.SSLPassthroughProxyPort))}, opts...), "proxy_protocol"), extra...)...)
}

// serverHTTPSPort is the port the HTTPS servers listen on: the public HTTPS
// port, or with SSL passthrough the loopback port behind the SNI router.
// X-Forwarded-Port says 443 for it (see writeForwardedVariables), as
// ingress-nginx does.
func serverHTTPSPort(c *model.Config, o ConfOptions) int {
	if c.Stream.Passthrough {
		return o.SSLPassthroughProxyPort
	}
	return o.HTTPSPort
}

// writeStream writes the stream block: one server per TCP or UDP service,
// and with SSL passthrough the SNI router on the HTTPS port.
func writeStream(w *confWriter, c *model.Config, o ConfOptions) {
	st := &c.Stream
	if st.Empty() {
		return
	}
	w.open("stream")
	w.line("js_import", "kit_stream", "from", "lua/stream.js")
	w.line("js_set", "$kit_stream_upstream", "kit_stream.service")
	w.line("proxy_connect_timeout", strconv.Itoa(c.Global.ProxyConnectTimeout)+"s")
	w.line("proxy_timeout", "600s")
	for i := range st.Services {
		writeStreamService(w, &st.Services[i], c.Global.ProxyStreamResponses, o)
	}
	if st.Passthrough {
		writePassthrough(w, st, o)
	}
	w.close()
}

// writeStreamService writes one TCP or UDP service; a UDP one expects
// responses answers per datagram (proxy-stream-responses).
func writeStreamService(w *confWriter, s *model.StreamService, responses int, o ConfOptions) {
	w.comment("stream " + s.Key() + " from " + s.ConfigMap.String())
	w.open("server")
	var params []string
	if s.Protocol == model.ProtocolUDP {
		params = append(params, "udp")
	}
	if s.ProxyProtocolDecode {
		params = append(params, "proxy_protocol")
	}
	writeListen(w, o, s.Port, params...)
	if s.Protocol == model.ProtocolUDP {
		w.line("proxy_responses", strconv.Itoa(responses))
	}
	if s.ProxyProtocolEncode {
		w.line("proxy_protocol", "on")
	}
	w.line("proxy_pass", "$kit_stream_upstream")
	w.close()
}

// writePassthrough writes the SNI router. A connection whose SNI names a
// passthrough host goes, with its client address in a PROXY protocol
// header, to the hop listener, which reads the header and the SNI again
// and proxies to an endpoint of the host's backend without the header.
// Every other connection goes to the HTTPS servers on the loopback port,
// also with the header. The router cannot send the header to some
// destinations and not to others: hence the hop.
func writePassthrough(w *confWriter, st *model.Stream, o ConfOptions) {
	w.comment("SSL passthrough: route by SNI")
	w.line("js_set", "$kit_passthrough_upstream", "kit_stream.passthrough")
	w.open("map", "$ssl_preread_server_name", "$kit_passthrough_host")
	w.line("hostnames")
	for _, h := range st.PassthroughHosts {
		w.line(w.q(sniMapKey(h.Hostname)), w.q(h.Hostname))
	}
	w.line("default", `""`)
	w.close()
	w.open("map", "$kit_passthrough_host", "$kit_passthrough_target")
	w.line(`""`, w.q(passthroughLoopback+":"+strconv.Itoa(o.SSLPassthroughProxyPort)))
	w.line("default", w.q(passthroughLoopback+":"+strconv.Itoa(o.SSLPassthroughHopPort)))
	w.close()
	w.open("server")
	writeListen(w, o, o.HTTPSPort, append(w.listenOptions(), "reuseport", "backlog=4096")...)
	if r := w.global().RealIP; r.UseProxyProtocol {
		// The load balancer's PROXY protocol header says the client
		// address, which the router passes on in its own header.
		for _, cidr := range r.ProxyRealIPCIDR {
			w.line("set_real_ip_from", w.q(cidr))
		}
	}
	w.line("ssl_preread", "on")
	w.line("proxy_protocol", "on")
	w.line("proxy_pass", "$kit_passthrough_target")
	w.close()
	w.open("server")
	w.line("listen", w.q(passthroughLoopback+":"+strconv.Itoa(o.SSLPassthroughHopPort)), "proxy_protocol")
	w.line("ssl_preread", "on")
	w.line("proxy_pass", "$kit_passthrough_upstream")
	w.close()
}
