package envtesting

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestAssetsDir(t *testing.T) {
	dir, err := AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	// go test runs in internal/envtesting; the module root is two up.
	want, err := filepath.Abs(filepath.Join("..", "..", "bin", "envtest"))
	if err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Errorf("AssetsDir() = %s, want %s", dir, want)
	}
}

func TestMissingBinaries(t *testing.T) {
	dir := t.TempDir()
	if got, want := missingBinaries(dir), []string{"kube-apiserver", "etcd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("empty dir: missing %v, want %v", got, want)
	}
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("kube-apiserver", 0o755)
	write("etcd", 0o644) // not executable
	if got, want := missingBinaries(dir), []string{"etcd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("etcd not executable: missing %v, want %v", got, want)
	}
	if err := os.Chmod(filepath.Join(dir, "etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := missingBinaries(dir); len(got) != 0 {
		t.Errorf("both present: missing %v", got)
	}
}
