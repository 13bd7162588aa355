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

// EncodedBackends is a backends payload encoded once: the body of a POST
// of the whole array, and where each backend's JSON is in it, so that a
// Client can send only the backends that changed (PATCH, see
// PostEncodedBackends) without encoding them again.
type EncodedBackends struct {
	// Body is the JSON array, as PostBackends posts it.
	Body  []byte
	names []string
	spans [][2]int
}

// EncodeBackends encodes backends (nil as an empty array).
func EncodeBackends(backends []Backend) (*EncodedBackends, error) {
	return encodeBackendsWith(backends, func(b *Backend) ([]byte, error) { return json.Marshal(b) })
}

// encodeBackendsWith is EncodeBackends with each backend's JSON from
// encode.
func encodeBackendsWith(backends []Backend, encode func(*Backend) ([]byte, error)) (*EncodedBackends, error) {
	e := &EncodedBackends{
		Body:  make([]byte, 0, 512*len(backends)+2),
		names: make([]string, 0, len(backends)),
		spans: make([][2]int, 0, len(backends)),
	}
	e.Body = append(e.Body, '[')
	for i := range backends {
		b, err := encode(&backends[i])
		if err != nil {
			return nil, fmt.Errorf("encoding backend %s: %w", backends[i].Name, err)
		}
		if i > 0 {
			e.Body = append(e.Body, ',')
		}
		e.names = append(e.names, backends[i].Name)
		e.spans = append(e.spans, [2]int{len(e.Body), len(e.Body) + len(b)})
		e.Body = append(e.Body, b...)
	}
	e.Body = append(e.Body, ']')
	return e, nil
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func (e *EncodedBackends) element(i int) []byte { return e.Body[e.spans[i][0]:e.spans[i][1]] }

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

func (c *Client) newBase(e *EncodedBackends) *backendsBase {
	b := &backendsBase{sum: md5Hex(e.Body), size: len(e.Body), items: make(map[string]uint64, len(e.names))}
	for i, name := range e.names {
		b.items[name] = maphash.Bytes(c.seed, e.element(i))
	}
	return b
}

// deltaBody returns the PATCH body that turns the base into e (see
// lua/delta.lua), or false when the whole array should be posted: too
// large a change, or a repeated name.
func (c *Client) deltaBody(base *backendsBase, e *EncodedBackends) ([]byte, bool) {
	seen := make(map[string]struct{}, len(e.names))
	var changed []int
	size := 0
	for i, name := range e.names {
		if _, dup := seen[name]; dup {
			return nil, false
		}
		seen[name] = struct{}{}
		h, ok := base.items[name]
		if ok && h == maphash.Bytes(c.seed, e.element(i)) {
			continue
		}
		changed = append(changed, i)
		size += len(e.element(i)) + 1
	}
	if size > max(base.size/deltaShare, minDeltaLimit) {
		return nil, false
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
	for n, i := range changed {
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, e.element(i)...)
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
		if body, ok := c.deltaBody(c.base, e); ok {
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
	dropped, err := c.PostBody(ctx, PathBackends, e.Body)
	if err != nil {
		return nil, err
	}
	c.base = c.newBase(e)
	return dropped, nil
}

func (c *Client) patchBackends(ctx context.Context, body []byte) ([]Dropped, error) {
	answer, err := c.send(ctx, http.MethodPatch, PathBackends, body)
	return droppedIn(http.MethodPatch, PathBackends, answer, err)
}
