package manifest

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// decodeAll decodes the documents; results keep the order of docs, so that
// what follows (and the first error) is deterministic.
func decodeAll(dec *decoder, docs []document) []decoded {
	out := make([]decoded, len(docs))
	_ = forEach(len(docs), func(i int) error {
		out[i] = dec.decode(docs[i])
		return nil
	})
	return out
}

// forEach calls f(0) … f(n-1) on up to GOMAXPROCS goroutines and returns
// the error of the lowest i that failed. f must only write to its own i.
func forEach(n int, f func(i int) error) error {
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			errs[i] = f(i)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					errs[i] = f(i)
				}
			})
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
