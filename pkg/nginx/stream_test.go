package nginx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteStream(t *testing.T) {
	in := New(t.TempDir(), Options{})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.Prefix(), "lua", "stream.js")); err != nil {
		t.Errorf("Layout did not write lua/stream.js: %v", err)
	}
	ctx := context.Background()
	dir := filepath.Join(in.Prefix(), "stream")
	list := func() []string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	if err := in.WriteStream(ctx, map[string][]byte{"tcp-1.json": []byte(`["10.0.0.1:1"]`), "sni-a.example.com.json": []byte(`[]`)}); err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{"sni-a.example.com.json", "tcp-1.json"}) {
		t.Errorf("files %v", got)
	}
	if err := in.WriteStream(ctx, map[string][]byte{"tcp-1.json": []byte(`["10.0.0.2:1"]`)}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "tcp-1.json"))
	if err != nil || string(got) != `["10.0.0.2:1"]` {
		t.Errorf("tcp-1.json holds %q (%v)", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tcp-1.json")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v): workers must read the files", fi.Mode(), err)
	}
	if got := list(); !slices.Equal(got, []string{"tcp-1.json"}) {
		t.Errorf("files %v after the host went away", got)
	}
	if err := in.WriteStream(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 0 {
		t.Errorf("nil left %v", got)
	}
	for _, bad := range []string{"../x.json", ".hidden.json", "a/b.json", "x.txt", ".json"} {
		if err := in.WriteStream(ctx, map[string][]byte{bad: nil}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}
