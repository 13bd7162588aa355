package luaapi

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"slices"
)

// EncodedBackends is a backends payload encoded for a Client: the hash of
// each backend's JSON, and the JSON of those encoded for it, so that a
// Client sends only the backends that changed (PATCH, see
// PostEncodedBackends). A Client's EncodeBackends encodes only the
// backends that changed since its last call and keeps, of the others, the
// hash alone: at 100,000 backends the JSON of every backend, kept between
// syncs, held 57 MB, and the whole array built for every push 57 MB more.
// Body builds the whole array when it is needed (a preload, a POST of
// the whole array), encoding the others again.
type EncodedBackends struct {
	backends []Backend
	// sums[i] is elementSum of the JSON of backends[i]; jsons[i] that
	// JSON, or nil when only its hash is known
	sums  []uint64
	jsons [][]byte
	body  []byte // the whole array, once Body built it
}

// elementSeed seeds the hashes of backends' JSON: the same in every
// EncodedBackends and Client of the process, which compare them.
var elementSeed = maphash.MakeSeed()

func elementSum(data []byte) uint64 { return maphash.Bytes(elementSeed, data) }

// EncodeBackends encodes backends (nil as an empty array).
func EncodeBackends(backends []Backend) (*EncodedBackends, error) {
	return encodeBackendsWith(backends, func(i int, b *Backend) ([]byte, uint64, error) {
		data, err := json.Marshal(b)
		return data, 0, err
	})
}

// encodeBackendsWith is EncodeBackends with each backend's JSON from
// encode: its JSON, or nil and the JSON's hash when that is known.
func encodeBackendsWith(backends []Backend, encode func(int, *Backend) ([]byte, uint64, error)) (*EncodedBackends, error) {
	e := &EncodedBackends{backends: backends, sums: make([]uint64, len(backends)), jsons: make([][]byte, len(backends))}
	for i := range backends {
		data, sum, err := encode(i, &backends[i])
		if err != nil {
			return nil, fmt.Errorf("encoding backend %s: %w", backends[i].Name, err)
		}
		if data != nil {
			sum = elementSum(data)
		}
		e.sums[i], e.jsons[i] = sum, data
	}
	return e, nil
}

// element returns the JSON of backend i, encoding it again when e kept
// only its hash.
func (e *EncodedBackends) element(i int) ([]byte, error) {
	if e.jsons[i] != nil {
		return e.jsons[i], nil
	}
	data, err := json.Marshal(&e.backends[i])
	if err != nil {
		return nil, fmt.Errorf("encoding backend %s: %w", e.backends[i].Name, err)
	}
	return data, nil
}

// Body returns the whole array, as PostBackends posts it (built once).
// The JSON e kept of each backend is then a part of it, not a copy beside
// it: after a start, when every backend was encoded, the array and the
// parts held 57 MB each at 100,000 backends until the first push.
func (e *EncodedBackends) Body() ([]byte, error) {
	if e.body != nil {
		return e.body, nil
	}
	size := 2 + len(e.backends)
	for _, data := range e.jsons {
		size += len(data)
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	spans := make([][2]int, len(e.backends))
	for i := range e.backends {
		data, err := e.element(i)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			body = append(body, ',')
		}
		spans[i] = [2]int{len(body), len(body) + len(data)}
		body = append(body, data...)
	}
	e.body = append(body, ']')
	for i, sp := range spans {
		if e.jsons[i] != nil {
			e.jsons[i] = e.body[sp[0]:sp[1]:sp[1]]
		}
	}
	return e.body, nil
}

// minDeltaLimit and deltaShare bound a PATCH: when the backends changed
// since the last whole array weigh more than a quarter of the new array
// (and more than 1 MiB), the whole array is posted again instead. A PATCH
// is cumulative, so this also bounds what each one carries.
const (
	minDeltaLimit = 1 << 20
	deltaShare    = 4
)

// backendsBase is the whole array this Client posted last, as nginx
// applied it: its md5 (which a PATCH names) and a hash of each backend's
// JSON, to find the ones that changed.
type backendsBase struct {
	sum   string
	size  int
	items map[string]uint64
}

// newBase is the base of the whole array e, posted as body of md5 sum.
func newBase(e *EncodedBackends, body []byte, sum [md5.Size]byte) *backendsBase {
	b := &backendsBase{sum: hex.EncodeToString(sum[:]), size: len(body), items: make(map[string]uint64, len(e.backends))}
	for i := range e.backends {
		b.items[e.backends[i].Name] = e.sums[i]
	}
	return b
}

// deltaBody returns the PATCH body that turns the base into e (see
// lua/delta.lua), or false when the whole array should be posted: too
// large a change, or a repeated name.
func deltaBody(base *backendsBase, e *EncodedBackends) ([]byte, bool) {
	seen := make(map[string]struct{}, len(e.backends))
	var changed [][]byte
	size, limit := 0, max(base.size/deltaShare, minDeltaLimit)
	for i := range e.backends {
		name := e.backends[i].Name
		if _, dup := seen[name]; dup {
			return nil, false
		}
		seen[name] = struct{}{}
		if h, ok := base.items[name]; ok && h == e.sums[i] {
			continue
		}
		data, err := e.element(i)
		if err != nil {
			return nil, false // the whole array says what is wrong
		}
		changed = append(changed, data)
		if size += len(data) + 1; size > limit {
			return nil, false
		}
	}
	deleted := []string{}
	for name := range base.items {
		if _, ok := seen[name]; !ok {
			deleted = append(deleted, name)
		}
	}
	slices.Sort(deleted)
	head, err := json.Marshal(struct {
		Base    string   `json:"base"`
		Deleted []string `json:"deleted"`
	}{base.sum, deleted})
	if err != nil {
		return nil, false
	}
	body := make([]byte, 0, len(head)+size+3)
	body = append(append(body, head...), '\n', '[')
	for n, data := range changed {
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, data...)
	}
	return append(body, ']'), true
}

// PostEncodedBackends replaces the backends of nginx with e, as
// PostBackendsReport does, but sends only what changed since the whole
// array this Client posted last when it can: a PATCH of the backends added
// or changed and the names deleted since then, which nginx checks against
// that array's md5. When nginx holds another array (it started again, a
// reload emptied its dict, another client posted), when it refuses the
// PATCH (any 4xx: ingress-nginx has no PATCH), or when the change is
// large, the whole array is posted.
// Calls are serialized.
func (c *Client) PostEncodedBackends(ctx context.Context, e *EncodedBackends) ([]Dropped, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base != nil {
		if body, ok := deltaBody(c.base, e); ok {
			dropped, err := c.patchBackends(ctx, body)
			if err == nil {
				return dropped, nil
			}
			var se *StatusError
			if !errors.As(err, &se) || se.Code < 400 || se.Code >= 500 {
				return nil, err // may pass: the caller tries again
			}
			// 409: another array; 413; 400/404/405: an nginx without PATCH
			// (ingress-nginx answers 400). The whole array says what is wrong
			// with a payload, if anything.
		}
	}
	c.base = nil
	body, err := e.Body()
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", PathBackends, err)
	}
	// one md5 for the header and the base (57 MB at 100,000 backends)
	sum := md5.Sum(body)
	answer, err := c.sendSummed(ctx, http.MethodPost, PathBackends, body, sum)
	dropped, err := droppedIn(http.MethodPost, PathBackends, answer, err)
	if err != nil {
		return nil, err
	}
	c.base = newBase(e, body, sum)
	return dropped, nil
}

func (c *Client) patchBackends(ctx context.Context, body []byte) ([]Dropped, error) {
	answer, err := c.send(ctx, http.MethodPatch, PathBackends, body)
	return droppedIn(http.MethodPatch, PathBackends, answer, err)
}
