package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// maxBackendsAnswer bounds the answer read: the Lua side keeps the backends
// in a 64 MiB shared dict.
const maxBackendsAnswer = 256 << 20

// backendInfo is one backend as a status server holds it: the fields Lua
// reads, decoded with the wire types of ingress-nginx's names, and what the
// wire types cannot say.
type backendInfo struct {
	wire luaapi.Backend
	// hashByPresent is true when upstreamHashByConfig holds
	// "upstream-hash-by", even empty: Lua then hashes (see balancer.lua).
	hashByPresent bool
}

// statusAnswer is a status server's answer to a GET.
type statusAnswer struct {
	path   string
	status int
	header http.Header
	body   []byte
}

// unexpected is the error of an answer whose status the caller did not
// expect.
func (a statusAnswer) unexpected() error {
	msg := fmt.Sprintf("GET %s: status %d %s", a.path, a.status, http.StatusText(a.status))
	if snippet := excerpt(a.body); snippet != "" {
		msg += ": " + snippet
	}
	return fmt.Errorf("%s (is this the status server of an ingress controller?)", msg)
}

// getStatus sends GET path?query to the status server at baseURL and reads
// at most limit bytes of the answer (more is an error).
func getStatus(ctx context.Context, hc *http.Client, baseURL, path string, query url.Values, limit int) (statusAnswer, error) {
	target := strings.TrimRight(baseURL, "/") + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return statusAnswer{}, fmt.Errorf("GET %s: %w", path, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		// The URL is said by the caller (or is a port-forward's).
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return statusAnswer{}, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return statusAnswer{}, fmt.Errorf("GET %s: reading the answer: %w", path, err)
	}
	if len(body) > limit {
		return statusAnswer{}, fmt.Errorf("GET %s: the answer is larger than %d MiB", path, limit>>20)
	}
	return statusAnswer{path: path, status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// decodeBackends decodes the answer of GET /configuration/backends: a JSON
// array of backends in ingress-nginx's shape (fields Lua does not read are
// ignored). null is no backends, as before the first sync. The result is
// sorted by name.
func decodeBackends(body []byte) ([]backendInfo, error) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return nil, fmt.Errorf("the answer is empty, not a JSON array of backends")
	case bytes.Equal(trimmed, []byte("null")):
		return []backendInfo{}, nil
	case trimmed[0] != '[':
		return nil, fmt.Errorf("the answer is not a JSON array of backends: it begins %s", excerpt(trimmed))
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON array of backends: %w", err)
	}
	out := make([]backendInfo, 0, len(raw))
	seen := make(map[string]int, len(raw))
	for i, r := range raw {
		b, err := decodeBackend(r)
		if err != nil {
			return nil, fmt.Errorf("backend %d of the answer: %w", i+1, err)
		}
		if j, dup := seen[b.wire.Name]; dup {
			return nil, fmt.Errorf("backend %d of the answer: name %q already used by backend %d", i+1, b.wire.Name, j+1)
		}
		seen[b.wire.Name] = i
		out = append(out, b)
	}
	sortBackends(out)
	return out, nil
}

func sortBackends(bs []backendInfo) {
	sort.Slice(bs, func(i, j int) bool { return bs[i].wire.Name < bs[j].wire.Name })
}

func decodeBackend(raw json.RawMessage) (backendInfo, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return backendInfo{}, fmt.Errorf("not a JSON object: %s", excerpt(t))
	}
	var b backendInfo
	if err := json.Unmarshal(raw, &b.wire); err != nil {
		return backendInfo{}, err
	}
	if b.wire.Name == "" {
		return backendInfo{}, fmt.Errorf(`no "name"`)
	}
	var probe struct {
		Hash map[string]json.RawMessage `json:"upstreamHashByConfig"`
	}
	if err := json.Unmarshal(raw, &probe); err == nil {
		v, ok := probe.Hash["upstream-hash-by"]
		b.hashByPresent = ok && len(v) > 0 && v[0] == '"'
	}
	return b, nil
}

// excerpt returns the beginning of body for an error message: at most 80
// characters, on one line, quoted.
func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return strconv.Quote(s)
}
