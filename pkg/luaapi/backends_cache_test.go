package luaapi

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestClientEncodeBackendsCache: through a sequence of changes, the
// Client's cached encoding is EncodeBackends's byte for byte, and only the
// changed backends are encoded again.
func TestClientEncodeBackendsCache(t *testing.T) {
	c := NewClient("http://127.0.0.1:1", nil)
	list := make([]Backend, 0, 10)
	for i := range 10 {
		b := fullBackend()
		b.Name = fmt.Sprintf("ns-svc%d-80", i)
		list = append(list, b)
	}
	step := func(what string, backends []Backend, encoded int) {
		t.Helper()
		before := map[string][]byte{}
		for name, e := range c.encoded {
			before[name] = e.json
		}
		got, err := c.encodeBackends(backends)
		if err != nil {
			t.Fatal(err)
		}
		want, err := EncodeBackends(backends)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Body, want.Body) || !slices.Equal(got.names, want.names) || !slices.Equal(got.spans, want.spans) {
			t.Fatalf("%s: the cached encoding differs from EncodeBackends's", what)
		}
		n := 0
		for name, e := range c.encoded {
			if old, ok := before[name]; !ok || &old[0] != &e.json[0] {
				n++
			}
		}
		if n != encoded || len(c.encoded) != len(backends) {
			t.Errorf("%s: encoded %d backends (cache of %d), want %d (of %d)", what, n, len(c.encoded), encoded, len(backends))
		}
	}
	step("first", list, 10)
	step("again", slices.Clone(list), 0)
	next := slices.Clone(list)
	next[2].Endpoints = append(slices.Clone(next[2].Endpoints), Endpoint{Address: "10.9.9.9", Port: "80"})
	next[5].SessionAffinity.CookieSessionAffinity.Locations = map[string][]string{"b.example.com": {"/x"}}
	step("two changed", next, 2)
	step("one removed", slices.Delete(slices.Clone(next), 0, 1), 0)
	extra := fullBackend()
	extra.Name = "ns-new-80"
	step("one added", append(slices.Clone(next[1:]), extra), 1)
	step("none", nil, 0)
}
