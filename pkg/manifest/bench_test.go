package manifest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// generate runs ../shared/bench/genmanifests.py into a new directory under
// dir; it skips the test when python3 is missing.
func generate(tb testing.TB, dir string, ingresses string) string {
	tb.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		tb.Skip("python3 is not installed: cannot run genmanifests.py")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "bench", "genmanifests.py"))
	if err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "cluster")
	cmd := exec.Command(python, script, "--ingresses", ingresses, "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("genmanifests.py: %v\n%s", err, b)
	}
	return out
}

// BenchmarkRead10000 reads the 10,000-Ingress cluster of genmanifests.py
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
