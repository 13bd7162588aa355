package luaapi

import (
	"bytes"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func deltaBackends(n int, port string) []Backend {
	var out []Backend
	for i := range n {
		out = append(out, Backend{Name: fmt.Sprintf("b%03d", i), Endpoints: []Endpoint{{Address: "127.0.0.1", Port: port}}})
	}
	return out
}

// TestDeltaBody: the PATCH body names the base's md5, the deleted names
// (sorted) and the changed backends' JSON byte for byte; too large a
// change, or a repeated name, posts the whole array.
func TestDeltaBody(t *testing.T) {
	first, err := EncodeBackends(deltaBackends(5, "80"))
	if err != nil {
		t.Fatal(err)
	}
	firstBody, err := first.Body()
	if err != nil {
		t.Fatal(err)
	}
	base := newBase(first, firstBody, md5.Sum(firstBody))
	if base.sum != md5Hex(firstBody) || len(base.items) != 5 {
		t.Fatalf("base %+v", base)
	}

	next := deltaBackends(5, "80")
	next[1].Endpoints[0].Port = "81"
	next = append(next[:3], Backend{Name: "zz"}, Backend{Name: "b000x"})
	e, err := EncodeBackends(next)
	if err != nil {
		t.Fatal(err)
	}
	body, ok := deltaBody(base, e)
	if !ok {
		t.Fatal("a small change posts the whole array")
	}
	head, array, _ := bytes.Cut(body, []byte("\n"))
	if want := `{"base":"` + base.sum + `","deleted":["b003","b004"]}`; string(head) != want {
		t.Errorf("head %s, want %s", head, want)
	}
	var want []string
	for _, b := range []Backend{next[1], next[3], next[4]} {
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(j))
	}
	if w := "[" + strings.Join(want, ",") + "]"; string(array) != w {
		t.Errorf("array %s, want %s", array, w)
	}

	// a Client's encoding keeps the JSON of what it encoded again only:
	// the other changed backends are encoded again for the PATCH
	c := NewClient("http://127.0.0.1:1", nil)
	if _, err := c.EncodeBackends(next); err != nil {
		t.Fatal(err)
	}
	cached, err := c.EncodeBackends(next)
	if err != nil || slices.ContainsFunc(cached.jsons, func(b []byte) bool { return b != nil }) {
		t.Fatalf("the same backends again: %v, JSON kept %q", err, cached.jsons)
	}
	if again, ok := deltaBody(base, cached); !ok || !bytes.Equal(again, body) {
		t.Errorf("the PATCH of backends known by hash:\n%s\nwant\n%s", again, body)
	}

	same, ok := deltaBody(base, first)
	if !ok || string(same) != `{"base":"`+base.sum+`","deleted":[]}`+"\n[]" {
		t.Errorf("no change: %q %v", same, ok)
	}

	big := deltaBackends(5, "80")
	big[0].Name = strings.Repeat("x", minDeltaLimit)
	dup := append(deltaBackends(5, "80"), Backend{Name: "b001"})
	for what, list := range map[string][]Backend{"a change over the limit": big, "a repeated name": dup} {
		e, err := EncodeBackends(list)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := deltaBody(base, e); ok {
			t.Errorf("%s is sent as a PATCH", what)
		}
	}
}
