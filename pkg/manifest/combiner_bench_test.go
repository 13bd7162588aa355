package manifest

import (
	"os"
	"testing"
)

// BenchmarkCombineNewFile combines a generated cluster (10,000 Ingresses,
// or $KUBECTL_INGRESS_BENCH_INGRESSES) with and without one new small
// file, in turns: each combine follows a change of one file. Combine
// combines everything each time; a Combiner only the change.
func BenchmarkCombineNewFile(b *testing.B) {
	ingresses := "10000"
	if v := os.Getenv("KUBECTL_INGRESS_BENCH_INGRESSES"); v != "" {
		ingresses = v
	}
	dir := generate(b, b.TempDir(), ingresses)
	paths, _, err := FindFiles(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	data, err := readAll(paths, Options{MaxFileSize: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	cluster := Parse(data, Options{})
	small := Parse([]Data{{Name: "new.yaml", Bytes: []byte(configMap)}}, Options{})[0]
	if small.Err != nil {
		b.Fatal(small.Err)
	}
	with := append(cluster[:len(cluster):len(cluster)], small)
	for _, bc := range []struct {
		name    string
		combine func([]*File) (*Result, error)
	}{
		{"Combine", Combine},
		{"Combiner", new(Combiner).Combine},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := bc.combine(cluster); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				files := cluster
				if i++; i%2 == 1 {
					files = with
				}
				if _, err := bc.combine(files); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
