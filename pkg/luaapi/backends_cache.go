package luaapi

import (
	"encoding/json"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// encodedBackend is a backend as the Client last encoded it, and the hash
// of its JSON (elementSum; the JSON itself is not kept, see
// EncodedBackends). A backend of FromModel is known by the model backend
// it was made from and the default load-balance (all that
// backendFromModel reads), which its Config holds anyway: at 100,000
// backends a copy of each, with its endpoints, held about 60 MB. Another
// backend is kept as a copy.
type encodedBackend struct {
	from        *model.Backend
	loadBalance string
	backend     *Backend // when from is nil
	sum         uint64
}

// encodes says whether e was encoded of a backend like b.
func (e *encodedBackend) encodes(b *Backend) bool {
	if b.from != nil {
		return e.from != nil && e.loadBalance == b.fromLoadBalance && e.from.Equal(b.from)
	}
	return e.backend != nil && e.backend.Equal(b)
}

// EncodeBackends is the package's EncodeBackends, encoding only the
// backends not the same as the one last encoded under their name
// (encodes): of the others it takes the hash from the Client's cache. At
// 100,000 backends encoding them all for a push that changes one cost
// about 0.7 s of CPU (the PATCH then sends only the changed ones, see
// PostEncodedBackends). The cache holds the last call's backends only; it
// points at the model backends of their Config, which must not change
// afterwards (a Config does not, see DictsCache).
//
// The preload before a start encodes through it too, so that the first
// push after the start encodes only what changed since (at 100,000
// backends it encoded them all again: 0.7 s of CPU).
func (c *Client) EncodeBackends(backends []Backend) (*EncodedBackends, error) {
	c.encMu.Lock()
	defer c.encMu.Unlock()
	next := make(map[string]*encodedBackend, len(backends))
	e, err := encodeBackendsWith(backends, func(_ int, b *Backend) ([]byte, uint64, error) {
		if old := c.encoded[b.Name]; old != nil && old.encodes(b) {
			if b.from != nil {
				old.from = b.from // the new Config's: the old one can go
			}
			next[b.Name] = old
			return nil, old.sum, nil
		}
		data, err := json.Marshal(b)
		if err != nil {
			return nil, 0, err
		}
		entry := &encodedBackend{from: b.from, loadBalance: b.fromLoadBalance, sum: elementSum(data)}
		if b.from == nil {
			copied := *b
			entry.backend = &copied
		}
		next[b.Name] = entry
		return data, 0, nil
	})
	if err != nil {
		return nil, err
	}
	c.encoded = next
	return e, nil
}
