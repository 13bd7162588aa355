package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

var generated sync.Map // ingress count -> *render.Snapshot

// generatedSnapshot reads a cluster of n Ingresses made by
// hack/genmanifests, once per test binary.
func generatedSnapshot(b *testing.B, n int) render.Snapshot {
	b.Helper()
	if s, ok := generated.Load(n); ok {
		return *s.(*render.Snapshot)
	}
	dir := b.TempDir()
	writeCluster(b, dir, n, genmanifests.ChangeNone)
	res, err := manifest.Read([]string{dir}, manifest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	generated.Store(n, &res.Snapshot)
	return res.Snapshot
}

// BenchmarkRender measures Build + NGINXConf + the backends and servers
// JSON, the pure part of "kubectl ingress render", and reports the size of
// nginx.conf per location.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n)+"-ingresses", func(b *testing.B) {
			snap := generatedSnapshot(b, n)
			flags := NewRenderFlags()
			b.ReportAllocs()
			b.ResetTimer()
			var out *rendered
			for i := 0; i < b.N; i++ {
				var err error
				if out, err = renderBundle(snap, flags); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			locations := 0
			for _, s := range out.Config.Servers {
				locations += len(s.Locations)
			}
			b.ReportMetric(float64(len(out.NGINXConf)), "conf-bytes")
			b.ReportMetric(float64(len(out.NGINXConf))/float64(locations), "conf-bytes/location")
			b.ReportMetric(float64(len(out.Problems)), "problems")
		})
	}
}

// BenchmarkDiff10000 runs the whole "kubectl ingress diff --from --to" on a
// one-line change (a new path) in a 10,000-Ingress cluster: reading both
// sets, rendering both, planning and printing. Target: under 2 s.
func BenchmarkDiff10000(b *testing.B) {
	dir := b.TempDir()
	writeCluster(b, filepath.Join(dir, "old"), 10000, genmanifests.ChangeNone)
	writeCluster(b, filepath.Join(dir, "new"), 10000, genmanifests.ChangePath)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out, errOut bytes.Buffer
		cmd := NewCmdRoot(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
		cmd.SetArgs([]string{"diff", "--from", filepath.Join(dir, "old"), "--to", filepath.Join(dir, "new")})
		if code := run(cmd); code != diffExitReload {
			b.Fatalf("exit %d, want %d: %s", code, diffExitReload, errOut.String())
		}
	}
}

// writeCluster writes the hack/genmanifests cluster of n Ingresses, with
// change, into dir.
func writeCluster(b *testing.B, dir string, n int, change genmanifests.Change) {
	b.Helper()
	o := genmanifests.DefaultOptions()
	o.Ingresses, o.Change = n, change
	if err := genmanifests.Write(dir, o); err != nil {
		b.Fatalf("genmanifests: %v", err)
	}
}
