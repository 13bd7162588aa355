package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
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
		got, err := c.EncodeBackends(backends)
		if err != nil {
			t.Fatal(err)
		}
		checkEncoded(t, what, got, backends, encoded)
		if len(c.encoded) != len(backends) {
			t.Errorf("%s: a cache of %d, want %d", what, len(c.encoded), len(backends))
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

// TestClientEncodeBackendsCacheFromModel: for the backends of FromModel,
// the cache keeps no copy of them but their model backends, follows each
// new Config (as render.Incremental hands unchanged backends on: copied),
// encodes again exactly the backends whose model backend or default
// load-balance changed, and its JSON is EncodeBackends's.
func TestClientEncodeBackendsCacheFromModel(t *testing.T) {
	c := NewClient("http://127.0.0.1:1", nil)
	cfg := &model.Config{Global: model.Global{LoadBalance: "round_robin"}}
	for i := range 12 {
		cfg.Backends = append(cfg.Backends, modelBackend(i))
	}
	step := func(what string, encoded int) {
		t.Helper()
		backends, _ := FromModel(cfg)
		got, err := c.EncodeBackends(backends)
		if err != nil {
			t.Fatal(err)
		}
		checkEncoded(t, what, got, backends, encoded)
		for i := range cfg.Backends {
			b := &cfg.Backends[i]
			e := c.encoded[b.Name]
			if e == nil || e.from != b || e.backend != nil {
				t.Fatalf("%s: the entry of %s does not point at the Config's backend alone: %+v", what, b.Name, e)
			}
		}
		if len(c.encoded) != len(cfg.Backends) {
			t.Errorf("%s: a cache of %d, want %d", what, len(c.encoded), len(cfg.Backends))
		}
	}
	change := func(f func(c *model.Config)) {
		next := *cfg
		next.Backends = slices.Clone(cfg.Backends)
		f(&next)
		cfg = &next
	}
	step("first", 12)
	change(func(*model.Config) {})
	step("the same, copied", 0)
	change(func(c *model.Config) {
		b := &c.Backends[3]
		b.Endpoints = append(slices.Clone(b.Endpoints), model.Endpoint{Address: "10.1.1.1", Port: 8080})
	})
	step("an endpoint more", 1)
	change(func(c *model.Config) { c.Backends[1].SessionAffinity.Cookie.Name = "other" })
	step("a cookie name", 1)
	change(func(c *model.Config) { c.Global.LoadBalance = "ewma" })
	step("the default load-balance", 12) // all: the cache does not know which backends read it
}

// checkEncoded: got, a Client's encoding of backends, has the hashes and
// the whole array of EncodeBackends's, and the JSON of exactly encoded
// backends (those it encoded again), each EncodeBackends's; the cache
// holds each backend's hash.
func checkEncoded(t *testing.T, what string, got *EncodedBackends, backends []Backend, encoded int) {
	t.Helper()
	want, err := EncodeBackends(backends)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.sums, want.sums) {
		t.Fatalf("%s: the hashes differ from EncodeBackends's", what)
	}
	n := 0
	for i, data := range got.jsons {
		if data == nil {
			continue
		}
		n++
		if j, _ := json.Marshal(&backends[i]); !bytes.Equal(data, j) {
			t.Errorf("%s: the JSON of %s is %s, want %s", what, backends[i].Name, data, j)
		}
	}
	if n != encoded {
		t.Errorf("%s: encoded %d backends, want %d", what, n, encoded)
	}
	gotBody, err := got.Body()
	if err != nil {
		t.Fatal(err)
	}
	wantBody, err := want.Body()
	if err != nil || !bytes.Equal(gotBody, wantBody) {
		t.Fatalf("%s: the whole array differs from EncodeBackends's (%v)", what, err)
	}
	if again, _ := got.Body(); &again[0] != &gotBody[0] {
		t.Errorf("%s: Body built the array twice", what)
	}
}
