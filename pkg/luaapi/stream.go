package luaapi

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Stream is the stream payload: the endpoints that lua/stream.js (njs, in
// nginx's stream module) chooses from for each new connection (see
// lua/STREAM.md). It reaches nginx as files, one per stream server and
// passthrough host (Files), not by a POST: the stream module has no HTTP
// API. `kubectl ingress render` shows it whole as stream.json.
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

// Files gives the payload as the files under $prefix/stream/ that
// lua/stream.js reads: "tcp-9000.json", "udp-53.json" for the services,
// "sni-<host>.json" for the passthrough hosts, each a JSON array of
// endpoints. A connection reads only the file of its own server or host,
// whatever the size of the whole payload.
func (s Stream) Files() (map[string][]byte, error) {
	files := make(map[string][]byte, len(s.Services)+len(s.Passthrough))
	add := func(name string, eps []string) error {
		data, err := json.Marshal(eps)
		if err != nil {
			return fmt.Errorf("luaapi: encoding %s: %w", name, err)
		}
		files[name] = data
		return nil
	}
	for k, eps := range s.Services {
		if err := add(strings.Replace(k, "/", "-", 1)+".json", eps); err != nil {
			return nil, err
		}
	}
	for h, eps := range s.Passthrough {
		if err := add("sni-"+h+".json", eps); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// StreamFiles is StreamFromModel(c).Files(); nil when c has no stream
// servers.
func StreamFiles(c *model.Config) (map[string][]byte, error) {
	if c.Stream.Empty() {
		return nil, nil
	}
	return StreamFromModel(c).Files()
}

func endpointAddrs(eps []model.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, e := range eps {
		out = append(out, net.JoinHostPort(e.Address, strconv.Itoa(e.Port)))
	}
	return out
}
