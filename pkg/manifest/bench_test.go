package manifest

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
)

// generate writes the cluster of hack/genmanifests with the given number
// of Ingresses (its other options at their defaults) into a new directory
// under dir.
func generate(tb testing.TB, dir string, ingresses string) string {
	tb.Helper()
	n, err := strconv.Atoi(ingresses)
	if err != nil {
		tb.Fatal(err)
	}
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	out := filepath.Join(dir, "cluster")
	if err := genmanifests.Write(out, o); err != nil {
		tb.Fatalf("genmanifests: %v", err)
	}
	return out
}

// BenchmarkRead10000 reads the 10,000-Ingress cluster of hack/genmanifests
// (about 30,000 objects): the first step of rendering it.
func BenchmarkRead10000(b *testing.B) {
	dir := generate(b, b.TempDir(), "10000")
	b.ReportAllocs()
	for b.Loop() {
		res, err := Read([]string{dir}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Snapshot.Ingresses) != 10000 {
			b.Fatalf("read %d Ingresses", len(res.Snapshot.Ingresses))
		}
	}
}
