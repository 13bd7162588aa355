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
// built comes in. shared says whether Ingresses outside the parts use a
// backend's Service. It says why when the parts reach into what it keeps
// (then the caller builds everything).
func splice(last *model.Config, lastProblems []model.Problem, oldPart *model.Config, oldProblems []model.Problem, newPart *model.Config, newProblems []model.Problem, shared func(*model.Backend) bool) (*model.Config, []model.Problem, string) {
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
		func(s model.Server) string { return s.Hostname }, serverLess, nil)
	if why != "" {
		return nil, nil, "host " + why
	}
	if services := sharedBackendsChanged(last, oldPart, newPart, shared); len(services) > 0 {
		return nil, nil, "the backend of " + strings.TrimPrefix(services[0], "s:") + " is shared with other Ingresses and comes out different"
	}
	if sameBackends(last.Backends, oldPart.Backends, newPart.Backends) {
		// a change of paths or settings alone: the same array, not a copy
		// of 100,000 backends (which the caches of luaapi point into)
		cfg.Backends = last.Backends
	} else {
		cfg.Backends, why = spliceByKey(last.Backends, oldPart.Backends, newPart.Backends,
			func(b model.Backend) string { return b.Name }, func(a, b string) bool { return a < b },
			func(a, b *model.Backend) bool { return reflect.DeepEqual(a, b) })
		if why != "" {
			return nil, nil, "backend " + why
		}
	}
	if why := checkProblemsKept(oldProblems, newProblems); why != "" {
		return nil, nil, why
	}
	cfg.WWWRedirects, why = spliceByKey(last.WWWRedirects, oldPart.WWWRedirects, newPart.WWWRedirects,
		func(r model.WWWRedirect) string { return r.From }, func(a, b string) bool { return a < b }, nil)
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
// says why when newPart builds an entry that last keeps, unless same says
// the two are alike (a backend two groups share).
func spliceByKey[T any](last, oldPart, newPart []T, key func(T) string, less func(a, b string) bool, same func(a, b *T) bool) ([]T, string) {
	// The keys of oldPart, in order: last is walked in step with them, so
	// that its 100,000 entries are not looked up in a set one by one.
	gone := make([]string, 0, len(oldPart))
	for _, e := range oldPart {
		if k := key(e); k != model.CatchAllHost {
			gone = append(gone, k)
		}
	}
	slices.SortFunc(gone, func(a, b string) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	g := 0
	isGone := func(k string) bool {
		for g < len(gone) && less(gone[g], k) {
			g++
		}
		return g < len(gone) && gone[g] == k
	}
	// One pass over last and newPart in key order, into one new slice:
	// at 100,000 backends each copy is 40 MB for the garbage collector.
	// The entries of last are copied in runs, one memmove each, not one
	// by one.
	out := make([]T, 0, len(last)+len(newPart))
	i, run := 0, 0
	flush := func() {
		out = append(out, last[run:i]...)
	}
	for _, e := range newPart {
		k := key(e)
		if k == model.CatchAllHost {
			continue // kept
		}
		for ; i < len(last); i++ {
			lk := key(last[i])
			if isGone(lk) {
				flush()
				run = i + 1
				continue
			}
			if !less(lk, k) {
				break
			}
		}
		flush()
		run = i
		if i < len(last) && key(last[i]) == k {
			if same == nil || !same(&last[i], &e) {
				return nil, strings.TrimSpace(k) + " is built by two groups of Ingresses"
			}
			continue // last[i], alike, comes next
		}
		out = append(out, e)
	}
	for ; i < len(last); i++ {
		if isGone(key(last[i])) {
			flush()
			run = i + 1
		}
	}
	flush()
	return out, ""
}

// sameBackends says whether the splice of last's backends would be last's:
// every backend that the parts built before (oldPart) they build again,
// and each that they build now (newPart) last has already, alike. All
// three are sorted by name, as Build makes them.
func sameBackends(last, oldPart, newPart []model.Backend) bool {
	j := 0
	for i := range oldPart {
		for j < len(newPart) && newPart[j].Name < oldPart[i].Name {
			j++
		}
		if j == len(newPart) || newPart[j].Name != oldPart[i].Name {
			return false // it goes
		}
	}
	for i := range newPart {
		at, found := slices.BinarySearchFunc(last, newPart[i].Name, func(b model.Backend, name string) int { return strings.Compare(b.Name, name) })
		if !found || !reflect.DeepEqual(&last[at], &newPart[i]) {
			return false
		}
	}
	return true
}

// sharedBackendsChanged returns the Service keys of the backends that
// splice cannot take from the parts: the parts build them, Ingresses of
// other groups use their Service too (shared), and the new part's, built
// of the changed Ingresses alone, is not the one last has, built of all.
// When it is the same, the Ingresses of the other groups did not change
// it, nor did the change (the oldest Ingress gives its settings, the first
// that asks its affinity).
func sharedBackendsChanged(last, oldPart, newPart *model.Config, shared func(*model.Backend) bool) []string {
	checked := map[string]bool{}
	var out []string
	for _, part := range []*model.Config{oldPart, newPart} {
		for i := range part.Backends {
			b := &part.Backends[i]
			if checked[b.Name] {
				continue
			}
			checked[b.Name] = true
			if !shared(b) {
				continue
			}
			now, before := backendNamed(newPart, b.Name), backendNamed(last, b.Name)
			if now == nil || before == nil || !reflect.DeepEqual(now, before) {
				out = append(out, serviceKey(b))
			}
		}
	}
	return out
}

// serviceKey is the group key of a backend's Service (groupKeys).
func serviceKey(b *model.Backend) string {
	return "s:" + b.Service.Namespace + "/" + b.Service.Name
}

// backendNamed finds a backend in c's sorted Backends (nil when absent).
func backendNamed(c *model.Config, name string) *model.Backend {
	i, ok := slices.BinarySearchFunc(c.Backends, name, func(b model.Backend, n string) int { return strings.Compare(b.Name, n) })
	if !ok {
		return nil
	}
	return &c.Backends[i]
}

// checkProblemsKept says why the Problems cannot be spliced: the old part
// reported a Problem on an object other than an Ingress (a Service) that
// the new part does not, and Ingresses of other groups may still use it.
func checkProblemsKept(oldPart, newPart []model.Problem) string {
	now := make(map[model.Problem]bool, len(newPart))
	for _, p := range newPart {
		now[p] = true
	}
	for _, p := range oldPart {
		if p.Object.Kind != "Ingress" && !now[p] {
			return "a Problem on " + p.Object.String() + " is gone from the changed Ingresses' build"
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
