package model

import "strconv"

// Stream is what nginx's stream module serves: the TCP and UDP services of
// the --tcp-services-configmap and --udp-services-configmap ConfigMaps, and
// SSL passthrough (--enable-ssl-passthrough with the ssl-passthrough
// annotation). The listen ports go to nginx.conf (a change reloads); the
// endpoints go to the stream payload that nginx reads per connection (a
// change is applied without a reload). The zero value serves nothing and
// adds nothing to nginx.conf.
type Stream struct {
	// Services are sorted by protocol ("TCP" before "UDP"), then port.
	Services []StreamService
	// Passthrough is true with --enable-ssl-passthrough: the HTTPS port is
	// then a stream server that routes TLS connections by SNI, and the
	// HTTPS servers of nginx listen on a loopback port behind it.
	Passthrough bool
	// PassthroughHosts are the hosts whose TLS connections go to their
	// backend unterminated, sorted by hostname.
	PassthroughHosts []PassthroughHost
}

// Empty reports whether nginx.conf gets no stream block.
func (s Stream) Empty() bool {
	return len(s.Services) == 0 && !s.Passthrough
}

// The protocols of stream services, as in a Service port.
const (
	ProtocolTCP = "TCP"
	ProtocolUDP = "UDP"
)

// StreamService is one entry of a TCP or UDP services ConfigMap:
// "<port>": "namespace/service:port[:PROXY][:PROXY]".
type StreamService struct {
	// Protocol is ProtocolTCP or ProtocolUDP.
	Protocol string
	// Port is the port nginx listens on (the ConfigMap key).
	Port int
	// ConfigMap is the ConfigMap the entry comes from.
	ConfigMap ObjectRef
	// Service and ServicePort name the target as written in the entry (a
	// port number or name).
	Service     ObjectRef
	ServicePort string
	// ProxyProtocolDecode (the first PROXY) makes nginx expect the PROXY
	// protocol header from the client; ProxyProtocolEncode (the second)
	// makes it send one to the backend. TCP only.
	ProxyProtocolDecode bool
	ProxyProtocolEncode bool
	// Endpoints are the ready endpoints, sorted by address and port.
	Endpoints []Endpoint
}

// Key names the stream server in the stream payload: "tcp/9000", "udp/53".
func (s StreamService) Key() string {
	p := "tcp"
	if s.Protocol == ProtocolUDP {
		p = "udp"
	}
	return p + "/" + strconv.Itoa(s.Port)
}

// PassthroughHost is a host whose TLS connections are passed through.
type PassthroughHost struct {
	Hostname string
	// Ingress is the Ingress with the ssl-passthrough annotation.
	Ingress ObjectRef
	// Backend is the name of the Backend of the host's "/" path, whose
	// endpoints receive the connections.
	Backend string
}
