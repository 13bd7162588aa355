package nginx

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAndPruneFiles(t *testing.T) {
	in := New(t.TempDir(), Options{})
	ctx := context.Background()
	files := []File{
		{Name: "auth/a-file.htpasswd", Data: []byte("alice:{PLAIN}a\n"), WorkerReads: true},
		{Name: "ca/a-0123.pem", Data: []byte("ca")},
	}
	if err := in.WriteFiles(ctx, files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join(in.FilesDir(), filepath.FromSlash(f.Name))
		data, err := os.ReadFile(path)
		if err != nil || string(data) != string(f.Data) {
			t.Errorf("%s: %q %v", f.Name, data, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v %v, want 0600", f.Name, fi.Mode().Perm(), err)
		}
	}
	// A new content of the same name replaces the file; no temp file stays.
	files[0].Data = []byte("bob:{PLAIN}b\n")
	if err := in.WriteFiles(ctx, files[:1]); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(in.FilesDir(), "auth", "a-file.htpasswd")); string(data) != "bob:{PLAIN}b\n" {
		t.Errorf("after a rewrite: %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Join(in.FilesDir(), "auth")); len(entries) != 1 {
		t.Errorf("auth/ holds %d entries, want 1 (no temp file left)", len(entries))
	}
	// Prune keeps what it is told to, removes the rest and empty dirs.
	if err := in.PruneFiles(ctx, []string{"auth/a-file.htpasswd"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.FilesDir(), "ca")); !os.IsNotExist(err) {
		t.Errorf("ca/ after the prune: %v, want gone", err)
	}
	if _, err := os.Stat(filepath.Join(in.FilesDir(), "auth", "a-file.htpasswd")); err != nil {
		t.Errorf("kept file: %v", err)
	}
}

func TestWriteFilesRefusesPaths(t *testing.T) {
	in := New(t.TempDir(), Options{})
	for _, name := range []string{"../x/y", "auth/../../x", "/etc/passwd", "x", "a/b/c", "auth/.hidden", "Auth/x", "auth/"} {
		if err := in.WriteFiles(context.Background(), []File{{Name: name, Data: []byte("x")}}); err == nil {
			t.Errorf("%q: written", name)
		}
	}
}
