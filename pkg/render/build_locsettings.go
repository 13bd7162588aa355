package render

import (
	"hash/fnv"
	"maps"
	"reflect"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The locations of one Ingress share their model.LocationSettings: all
// but three of them are the Ingress's (its annotations, its snippet, the
// ConfigMaps they name), and those three (upstream-vhost once resolved,
// default-backend, the error pages) are most often the same for all its
// paths. At 100,000 Ingresses of 2.5 paths a copy per location held about
// 100 MB more. Ingresses of one namespace with the same annotations most
// often have the same settings: they share them too (internSettings).

// ingressSettings are the settings of one Ingress's locations: base, and
// the variants its locations needed so far.
type ingressSettings struct {
	base     *model.LocationSettings
	variants []*model.LocationSettings
}

// locationOwnSettings are the settings that a location of an Ingress may
// have otherwise than its other locations.
type locationOwnSettings struct {
	upstreamVhost        string
	customDefaultBackend string
	errorPages           model.ErrorPages
}

func (o *locationOwnSettings) of(st *model.LocationSettings) bool {
	return st.UpstreamVhost == o.upstreamVhost && st.CustomDefaultBackend == o.customDefaultBackend &&
		sameErrorPages(&st.ErrorPages, &o.errorPages)
}

func sameErrorPages(a, b *model.ErrorPages) bool {
	return slices.Equal(a.Codes, b.Codes) && a.Intercept == b.Intercept && a.Backend == b.Backend && a.Fallback == b.Fallback
}

// ingressBaseSettings returns the settings that p gives all its locations,
// made on the first call for p in this build.
func (b *builder) ingressBaseSettings(p *parsedIngress) *ingressSettings {
	if is := b.locationSettings[p]; is != nil {
		return is
	}
	st := new(model.LocationSettings)
	*st = p.ann.Location
	st.Snippet = p.snippets.location
	st.AppRoot = "" // a server setting
	b.applyIngressConfigMaps(p, st)
	is := &ingressSettings{base: b.internSettings(p, st)}
	if b.locationSettings == nil {
		b.locationSettings = map[*parsedIngress]*ingressSettings{}
	}
	b.locationSettings[p] = is
	return is
}

// settingsFor returns the settings of a location of p with own: p's base
// or a variant of it, shared with p's other locations that have the same.
func (b *builder) settingsFor(p *parsedIngress, own locationOwnSettings) *model.LocationSettings {
	is := b.ingressBaseSettings(p)
	if own.of(is.base) {
		return is.base
	}
	for _, v := range is.variants {
		if own.of(v) {
			return v
		}
	}
	v := new(model.LocationSettings)
	*v = *is.base
	v.UpstreamVhost, v.CustomDefaultBackend, v.ErrorPages = own.upstreamVhost, own.customDefaultBackend, own.errorPages
	v = b.internSettings(p, v)
	is.variants = append(is.variants, v)
	return v
}

// finishLocationSettings gives loc, a path of pl on a server, its backend
// and its settings.
func (b *builder) finishLocationSettings(pl *pendingLocation, loc *model.Location) {
	base := b.ingressBaseSettings(pl.ing).base
	own := locationOwnSettings{
		upstreamVhost:        annotations.ResolveUpstreamVhost(base.UpstreamVhost, loc.Service, loc.Ingress.Namespace, loc.ServicePort),
		customDefaultBackend: base.CustomDefaultBackend,
		errorPages:           base.ErrorPages,
	}
	be := b.useBackend(pl.ing, loc.Service, pl.port, pl.field+".backend")
	loc.Backend = be.Name
	if d := pl.ing.ann.DefaultBackend; d != "" {
		own.customDefaultBackend = b.customDefaultBackend(pl.ing, d)
		if len(be.Endpoints) == 0 && own.customDefaultBackend != "" {
			loc.Backend = own.customDefaultBackend
		}
	}
	if ep, ok := b.locationErrorPages(pl.ing, loc.Backend, own.customDefaultBackend, be); ok {
		own.errorPages = ep
	}
	loc.Settings = b.settingsFor(pl.ing, own)
}

// internSettings returns settings equal to st that an Ingress of this
// build already has, else st, kept for the next ones. The candidates are
// those of Ingresses of p's namespace with the same annotations (a hash of
// them); the settings themselves decide (reflect.DeepEqual), so that what
// an Ingress puts of its own in them (its name in a snippet, a client CA
// it resolved) keeps them apart.
func (b *builder) internSettings(p *parsedIngress, st *model.LocationSettings) *model.LocationSettings {
	key := annotationsHash(p.ref.Namespace, p.obj.Annotations)
	for _, c := range b.sharedSettings[key] {
		if reflect.DeepEqual(c, st) {
			return c
		}
	}
	if b.sharedSettings == nil {
		b.sharedSettings = map[uint64][]*model.LocationSettings{}
	}
	b.sharedSettings[key] = append(b.sharedSettings[key], st)
	return st
}

// annotationsHash is a hash of namespace and the annotations, in the
// order of their keys.
func annotationsHash(namespace string, annotations map[string]string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(namespace))
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(annotations[k]))
	}
	return h.Sum64()
}
