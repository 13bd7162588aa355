package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The kinds of entry that nginx may drop from a payload.
const (
	DroppedBackend     = "backend"
	DroppedCertificate = "certificate"
	DroppedServer      = "server"
)

// Dropped is one entry of a payload that nginx's Lua refused while it
// applied the others (see lua/CONTRACT.md): POST /configuration/backends
// and /configuration/servers answer 201 with {"dropped": [...]} then.
type Dropped struct {
	// Kind is DroppedBackend, DroppedCertificate (an ID of the certificates
	// map) or DroppedServer (a host of the servers map).
	Kind string `json:"kind"`
	// Name is the backend name, certificate ID or host name; "" for a
	// backend without a usable name (Index says which).
	Name string `json:"name"`
	// Index is the 0-based position of a backend in the payload.
	Index int `json:"index,omitempty"`
	// Reason names the bad field and says what is wrong with it.
	Reason string `json:"reason"`
	// Kept is true when nginx kept serving the last version of the entry
	// it accepted; false when the entry is not served at all.
	Kept bool `json:"kept"`
}

func (d Dropped) String() string {
	s := d.Kind + " " + d.Name
	if d.Kind == DroppedBackend && d.Name == "" {
		s = fmt.Sprintf("backend at index %d", d.Index)
	}
	s += ": " + d.Reason
	if d.Kept {
		s += " (its last accepted version still serves)"
	}
	return s
}

// droppedAnswer is the body of a 201 that dropped entries.
type droppedAnswer struct {
	Dropped []Dropped `json:"dropped"`
}

// parseDropped reads the answer of a successful POST: empty (nothing
// dropped, also ingress-nginx's answer) or {"dropped": [...]}.
func parseDropped(body []byte) ([]Dropped, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, nil
	}
	var a droppedAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("decoding the list of dropped entries: %w", err)
	}
	return a.Dropped, nil
}
