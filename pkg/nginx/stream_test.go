package nginx

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
	path := filepath.Join(in.Prefix(), "stream.json")
	for _, payload := range []string{`{"services":{"tcp/1":["10.0.0.1:1"]},"passthrough":{}}`, `{"services":{},"passthrough":{}}`} {
		if err := in.WriteStream(ctx, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != payload {
			t.Errorf("stream.json holds %q (%v), want %q", got, err, payload)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("stream.json mode %v (%v): workers must read it", fi.Mode(), err)
		}
	}
	if err := in.WriteStream(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("nil payload left stream.json: %v", err)
	}
	if err := in.WriteStream(ctx, nil); err != nil {
		t.Errorf("removing a missing stream.json: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(in.Prefix(), ".stream.json.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
