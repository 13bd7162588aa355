package luaapi

import (
	"fmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// DictsCache keeps the encoded length of each backend of the last Config,
// by name, so that DictsFor encodes only the backends that changed (at
// 100,000 backends encoding them all costs about a quarter of a second per
// sync). An entry is reused when the backend is Equal to the one it was
// encoded from and the Config's default load-balance is the same (the
// payload carries it where the backend has none): all that
// backendFromModel reads.
//
// A DictsCache is not safe for concurrent use. Its zero value is empty.
type DictsCache struct {
	// Encoded is the number of backends the last DictsFor encoded.
	Encoded int

	backends map[string]*sizedBackend
	// round marks the entries the last call used; the others are dropped.
	round uint64
}

type sizedBackend struct {
	backend     model.Backend
	loadBalance string
	length      int
	round       uint64
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
	if dc.backends == nil {
		dc.backends = make(map[string]*sizedBackend, len(cfg.Backends))
	}
	dc.round++
	dc.Encoded = 0
	lengths := 0
	for i := range cfg.Backends {
		b := &cfg.Backends[i]
		e := dc.backends[b.Name]
		if e == nil || e.loadBalance != cfg.Global.LoadBalance || !e.backend.Equal(b) {
			data, err := backendFromModel(b, cfg.Global.LoadBalance).MarshalJSON()
			if err != nil {
				return DictSizes{}, fmt.Errorf("encoding backend %s: %w", b.Name, err)
			}
			dc.Encoded++
			e = &sizedBackend{backend: *b, loadBalance: cfg.Global.LoadBalance, length: len(data)}
			dc.backends[b.Name] = e
		}
		e.round = dc.round
		lengths += e.length
	}
	if len(dc.backends) > len(cfg.Backends) {
		for name, e := range dc.backends {
			if e.round != dc.round {
				delete(dc.backends, name)
			}
		}
	}
	return needsOf(len(cfg.Backends), lengths, serversFromModel(cfg)), nil
}
