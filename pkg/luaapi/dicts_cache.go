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
	certs, hosts := entrySizes(cfg)
	return needsFrom(len(cfg.Backends), lengths, certs, hosts), nil
}

// entrySizes returns the slabs needsOf sums over serversFromModel(c): the
// certificates by ID and the host → certificate entries. When no name can
// be taken twice (no server alias, no www redirect, no hostname nor
// certificate ID twice: the model keeps both sorted, so a repeat is next
// to its first) it sums them without building those maps: at 100,000
// hosts the maps were 11 ms of every sync, a new Ingress's too.
func entrySizes(c *model.Config) (certs, hosts int64) {
	simple := len(c.WWWRedirects) == 0
	catchAllTaken := false
	for i := 0; simple && i < len(c.Servers); i++ {
		srv := &c.Servers[i]
		if len(srv.Aliases) > 0 || i > 0 && c.Servers[i-1].Hostname == srv.Hostname {
			simple = false
			break
		}
		if srv.CertificateID != "" {
			hosts += slab(len(srv.Hostname), len(srv.CertificateID))
			catchAllTaken = catchAllTaken || srv.Hostname == model.CatchAllHost
		}
	}
	for i := 0; simple && i < len(c.Certificates); i++ {
		if i > 0 && c.Certificates[i-1].ID == c.Certificates[i].ID {
			simple = false
			break
		}
		certs += slab(len(c.Certificates[i].ID), len(c.Certificates[i].PEM))
	}
	if !simple {
		s := serversFromModel(c)
		return certificatesSize(s), hostsSize(s)
	}
	if c.DefaultCertificate != "" && !catchAllTaken {
		hosts += slab(len(model.CatchAllHost), len(c.DefaultCertificate))
	}
	return certs, hosts
}
