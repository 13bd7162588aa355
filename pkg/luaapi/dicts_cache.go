package luaapi

import (
	"fmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// DictsCache keeps the encoded length of each backend of the last Config,
// so that DictsFor encodes only the backends that changed (at 100,000
// backends encoding them all costs about a quarter of a second per sync).
// An entry is reused when the backend is Equal to the one it was encoded
// from and the Config's default load-balance is the same (the payload
// carries it where the backend has none): all that backendFromModel reads.
//
// The entries are in the order of the last Config's Backends (sorted by
// name, as model.Config keeps them), and a call walks them in step with
// the new Config's: no map of 100,000 names per sync. An entry points at
// the backend of the Config it last matched, whose backends must not be
// changed afterwards (a Config is not: render.Incremental copies the
// unchanged ones into the next, sharing their endpoints, so that Equal
// finds them alike without comparing every address). Unsorted backends
// still get exact lengths; they are only encoded again more often.
//
// A DictsCache is not safe for concurrent use. Its zero value is empty.
type DictsCache struct {
	// Encoded is the number of backends the last DictsFor encoded.
	Encoded int

	entries []sizedBackend
	// spare is the slice before entries, filled again by the next call.
	spare []sizedBackend
}

type sizedBackend struct {
	backend     *model.Backend
	loadBalance string
	length      int
}

// DictsFor is the package's DictsFor, with the backends' lengths taken
// from the cache where the backend did not change.
func (dc *DictsCache) DictsFor(cfg *model.Config, running DictSizes) (DictSizes, error) {
	need, err := dc.Needs(cfg)
	return dictsFor(need, err, running)
}

// Needs is the package's Needs(FromModel(cfg)), with the backends' lengths from the
// cache.
func (dc *DictsCache) Needs(cfg *model.Config) (DictSizes, error) {
	last := dc.entries
	next := dc.spare[:0]
	dc.Encoded = 0
	lengths := 0
	j := 0
	for i := range cfg.Backends {
		b := &cfg.Backends[i]
		for j < len(last) && last[j].backend.Name < b.Name {
			j++
		}
		var e sizedBackend
		if j < len(last) && last[j].loadBalance == cfg.Global.LoadBalance && last[j].backend.Equal(b) {
			e = last[j]
			j++
		} else {
			data, err := backendFromModel(b, cfg.Global.LoadBalance).MarshalJSON()
			if err != nil {
				clear(next)
				dc.spare = next[:0]
				return DictSizes{}, fmt.Errorf("encoding backend %s: %w", b.Name, err)
			}
			dc.Encoded++
			e = sizedBackend{loadBalance: cfg.Global.LoadBalance, length: len(data)}
		}
		e.backend = b
		next = append(next, e)
		lengths += e.length
	}
	// The old entries point into the last Config: drop them, so that it
	// can go.
	clear(last)
	dc.entries, dc.spare = next, last[:0]
	return needsOf(len(cfg.Backends), lengths, serversFromModel(cfg)), nil
}
