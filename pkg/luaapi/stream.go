package luaapi

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Stream is the stream payload: the file stream.json under the nginx
// prefix that lua/stream.js (njs, in nginx's stream module) reads for each
// new connection to choose an endpoint (see lua/STREAM.md). It is written
// to a file, not posted: the stream module has no HTTP API to post to.
type Stream struct {
	// Services maps a stream server ("tcp/9000", "udp/53") to its
	// endpoints ("10.0.0.1:9000", "[fd00::1]:53").
	Services map[string][]string `json:"services"`
	// Passthrough maps an SSL passthrough host to the endpoints of its
	// backend.
	Passthrough map[string][]string `json:"passthrough"`
}

// StreamFromModel returns the stream payload of c; both maps are empty
// (never null) when c has no stream servers.
func StreamFromModel(c *model.Config) Stream {
	s := Stream{Services: map[string][]string{}, Passthrough: map[string][]string{}}
	for _, svc := range c.Stream.Services {
		s.Services[svc.Key()] = endpointAddrs(svc.Endpoints)
	}
	for _, h := range c.Stream.PassthroughHosts {
		var eps []model.Endpoint
		if b := c.Backend(h.Backend); b != nil {
			eps = b.Endpoints
		}
		s.Passthrough[h.Hostname] = endpointAddrs(eps)
	}
	return s
}

// StreamPayload is the JSON of StreamFromModel(c): deterministic bytes
// (encoding/json sorts map keys), nil when c has no stream servers.
func StreamPayload(c *model.Config) ([]byte, error) {
	if c.Stream.Empty() {
		return nil, nil
	}
	data, err := json.Marshal(StreamFromModel(c))
	if err != nil {
		return nil, fmt.Errorf("luaapi: encoding the stream payload: %w", err)
	}
	return data, nil
}

func endpointAddrs(eps []model.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, e := range eps {
		out = append(out, net.JoinHostPort(e.Address, strconv.Itoa(e.Port)))
	}
	return out
}
