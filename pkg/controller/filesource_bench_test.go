package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
)

// benchIngresses is the size of the generated cluster of the files source
// benchmarks: 10,000 Ingresses (with their Services and EndpointSlices),
// or $KUBECTL_INGRESS_BENCH_INGRESSES (100000 is the cluster of six files,
// ingress.yaml 99 MB, that the source was profiled on).
func benchIngresses(b *testing.B) int {
	n := 10000
	if v := os.Getenv("KUBECTL_INGRESS_BENCH_INGRESSES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("KUBECTL_INGRESS_BENCH_INGRESSES=%q: %v", v, err)
		}
	}
	return n
}

// BenchmarkFileScanNewFile measures one read of the files source after a
// new small file (one Ingress) appeared beside a generated cluster: what
// the controller does after each change. Only that read is timed; before
// it, the previous iteration's file is removed and that removal read.
func BenchmarkFileScanNewFile(b *testing.B) {
	n := benchIngresses(b)
	dir := b.TempDir()
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	if err := genmanifests.Write(dir, o); err != nil {
		b.Fatal(err)
	}
	// The cluster's files are old in a running cluster: wait until the
	// scan trusts their stats (defaultStatSettle, two seconds).
	time.Sleep(2*time.Second + 100*time.Millisecond)
	sc := newFileScan(dir, FileSourceOptions{DefaultNamespace: "default", MaxFileSize: 1 << 30})
	log := logr.Discard()
	if res := sc.run(log); res.errs != "" || len(res.snapshot.Ingresses) != n {
		b.Fatalf("first read: %d Ingresses, errors %q", len(res.snapshot.Ingresses), res.errs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if i > 0 {
			if err := os.Remove(filepath.Join(dir, fmt.Sprintf("new-%d.yaml", i-1))); err != nil {
				b.Fatal(err)
			}
			sc.run(log)
		}
		path := filepath.Join(dir, fmt.Sprintf("new-%d.yaml", i))
		if err := os.WriteFile(path, []byte(fileIngressYAML(fmt.Sprintf("new-%d", i), "new.example.com", "/")), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := sc.run(log)
		if !res.changed || len(res.snapshot.Ingresses) != n+1 || res.errs != "" {
			b.Fatalf("read %d: changed %v, %d Ingresses, errors %q", i, res.changed, len(res.snapshot.Ingresses), res.errs)
		}
	}
}
