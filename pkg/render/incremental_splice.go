package render

import (
	"reflect"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// splice makes the Config of the new Snapshot from the last one (last and
// its Problems) and the Builds of the changed groups before (oldPart) and
// after (newPart) the change: what oldPart built leaves, what newPart
// built comes in. It says why when the parts reach into what it keeps
// (then the caller builds everything).
func splice(last *model.Config, lastProblems []model.Problem, oldPart *model.Config, oldProblems []model.Problem, newPart *model.Config, newProblems []model.Problem) (*model.Config, []model.Problem, string) {
	if !reflect.DeepEqual(last.Global, newPart.Global) || last.DefaultBackend != newPart.DefaultBackend ||
		last.DefaultCertificate != newPart.DefaultCertificate || !reflect.DeepEqual(last.Stream, newPart.Stream) {
		return nil, nil, "the controller-wide settings changed"
	}
	catchAll := last.Server(model.CatchAllHost)
	if !reflect.DeepEqual(catchAll, oldPart.Server(model.CatchAllHost)) || !reflect.DeepEqual(catchAll, newPart.Server(model.CatchAllHost)) {
		return nil, nil, "the change touches the catch-all server"
	}
	cfg := &model.Config{
		Global:             newPart.Global,
		DefaultBackend:     newPart.DefaultBackend,
		DefaultCertificate: newPart.DefaultCertificate,
		Stream:             newPart.Stream,
	}
	var why string
	cfg.Servers, why = spliceByKey(last.Servers, oldPart.Servers, newPart.Servers,
		func(s model.Server) string { return s.Hostname }, serverLess)
	if why != "" {
		return nil, nil, "host " + why
	}
	cfg.Backends, why = spliceByKey(last.Backends, oldPart.Backends, newPart.Backends,
		func(b model.Backend) string { return b.Name }, func(a, b string) bool { return a < b })
	if why != "" {
		return nil, nil, "backend " + why
	}
	if why := checkBackendsKept(last, oldPart, newPart); why != "" {
		return nil, nil, why
	}
	cfg.WWWRedirects, why = spliceByKey(last.WWWRedirects, oldPart.WWWRedirects, newPart.WWWRedirects,
		func(r model.WWWRedirect) string { return r.From }, func(a, b string) bool { return a < b })
	if why != "" {
		return nil, nil, "from-to-www-redirect " + why
	}
	if len(cfg.WWWRedirects) == 0 {
		cfg.WWWRedirects = nil // as Build
	}
	if cfg.Certificates, why = usedOf(last.Certificates, newPart.Certificates, func(c model.Certificate) string { return c.ID }, usedCertificates(cfg)); why != "" {
		return nil, nil, "certificate " + why
	}
	if cfg.Files, why = usedOf(last.Files, newPart.Files, func(f model.File) string { return f.Name }, usedFileNames(cfg)); why != "" {
		return nil, nil, "file " + why
	}
	return cfg, spliceProblems(lastProblems, oldProblems, newProblems), ""
}

// spliceByKey returns last without the entries of oldPart and with those
// of newPart, sorted by less of their keys (last and newPart are). The
// catch-all server is in all three alike (splice checks it) and stays. It
// says why when newPart builds an entry that last keeps.
func spliceByKey[T any](last, oldPart, newPart []T, key func(T) string, less func(a, b string) bool) ([]T, string) {
	gone := make(map[string]bool, len(oldPart))
	for _, e := range oldPart {
		if k := key(e); k != model.CatchAllHost {
			gone[k] = true
		}
	}
	kept := make([]T, 0, len(last))
	for _, e := range last {
		if !gone[key(e)] {
			kept = append(kept, e)
		}
	}
	out := make([]T, 0, len(kept)+len(newPart))
	i := 0
	for _, e := range newPart {
		k := key(e)
		if k == model.CatchAllHost {
			continue // kept
		}
		for i < len(kept) && less(key(kept[i]), k) {
			out = append(out, kept[i])
			i++
		}
		if i < len(kept) && key(kept[i]) == k {
			return nil, strings.TrimSpace(k) + " is built by two groups of Ingresses"
		}
		out = append(out, e)
	}
	return append(out, kept[i:]...), ""
}

// checkBackendsKept says why a backend that the kept servers use would be
// changed by the parts (a Service two groups share: incremental_groups.go
// joins them, so this is a guard).
func checkBackendsKept(last, oldPart, newPart *model.Config) string {
	rebuilt := map[string]bool{}
	for i := range oldPart.Servers {
		rebuilt[oldPart.Servers[i].Hostname] = true
	}
	before := map[string]*model.Backend{}
	for i := range oldPart.Backends {
		before[oldPart.Backends[i].Name] = &oldPart.Backends[i]
	}
	after := map[string]*model.Backend{}
	for i := range newPart.Backends {
		after[newPart.Backends[i].Name] = &newPart.Backends[i]
	}
	for i := range last.Servers {
		s := &last.Servers[i]
		if rebuilt[s.Hostname] {
			// rebuilt, or the catch-all server: the same in the three
			// (splice checked), so its Ingresses are all rebuilt
			continue
		}
		for j := range s.Locations {
			for _, name := range []string{s.Locations[j].Backend, s.Locations[j].Settings.CustomDefaultBackend} {
				if b, ok := before[name]; ok && !reflect.DeepEqual(b, after[name]) {
					return "backend " + name + " of host " + s.Hostname + " is rebuilt with another group of Ingresses"
				}
			}
		}
	}
	return ""
}

// usedOf returns the entries of last and newPart whose key is used, sorted
// by key; it says why when the two hold different entries under one key.
func usedOf[T any](last, newPart []T, key func(T) string, used map[string]bool) ([]T, string) {
	pool := make(map[string]T, len(newPart))
	for _, e := range newPart {
		pool[key(e)] = e
	}
	var out []T
	for _, e := range last {
		k := key(e)
		if n, ok := pool[k]; ok && !reflect.DeepEqual(n, e) {
			return nil, k + " differs between two builds"
		}
		if used[k] {
			out = append(out, e)
		}
		delete(pool, k)
	}
	for k, e := range pool {
		if used[k] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out, ""
}

// usedCertificates are the certificates config() keeps: the servers' and
// the default one.
func usedCertificates(c *model.Config) map[string]bool {
	used := map[string]bool{c.DefaultCertificate: true}
	for i := range c.Servers {
		used[c.Servers[i].CertificateID] = true
	}
	return used
}

// spliceProblems returns last without the Problems of the old part and
// with those of the new part. Problems are a set (SortProblems drops
// duplicates), and each is about an object of one group or about all
// (the ConfigMap, the default certificate: then in both parts).
func spliceProblems(last, oldPart, newPart []model.Problem) []model.Problem {
	gone := make(map[model.Problem]bool, len(oldPart))
	for _, p := range oldPart {
		gone[p] = true
	}
	out := make([]model.Problem, 0, len(last)+len(newPart))
	for _, p := range last {
		if !gone[p] {
			out = append(out, p)
		}
	}
	out = model.SortProblems(append(out, newPart...))
	if len(out) == 0 {
		return nil // as Build
	}
	return out
}
