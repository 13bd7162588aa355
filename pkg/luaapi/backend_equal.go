package luaapi

import (
	"maps"
	"slices"
)

// Equal tells whether b and o encode alike: every field equal, a nil
// list equal to an empty one (MarshalJSON writes both as []), a nil
// Locations map to an empty one (omitempty leaves both out). The Client
// compares every backend it posts with the last it encoded under the same
// name and reuses the JSON when they are Equal; TestBackendEqualSeesEveryField
// fails when a field is added to Backend and not here.
func (b *Backend) Equal(o *Backend) bool {
	if b == nil || o == nil {
		return b == o
	}
	return b.Name == o.Name &&
		sameService(b.Service, o.Service) &&
		b.Port == o.Port &&
		b.SSLPassthrough == o.SSLPassthrough &&
		slices.Equal(b.Endpoints, o.Endpoints) &&
		b.SessionAffinity.equal(&o.SessionAffinity) &&
		b.UpstreamHashBy == o.UpstreamHashBy &&
		b.LoadBalance == o.LoadBalance &&
		b.NoServer == o.NoServer &&
		b.TrafficShapingPolicy == o.TrafficShapingPolicy &&
		slices.Equal(b.AlternativeBackends, o.AlternativeBackends)
}

func sameService(a, b *Service) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (a *SessionAffinityConfig) equal(o *SessionAffinityConfig) bool {
	ac, oc := &a.CookieSessionAffinity, &o.CookieSessionAffinity
	return a.Name == o.Name && a.Mode == o.Mode &&
		ac.Name == oc.Name && ac.Expires == oc.Expires && ac.MaxAge == oc.MaxAge &&
		ac.Path == oc.Path && ac.Domain == oc.Domain && ac.Secure == oc.Secure &&
		ac.SameSite == oc.SameSite && ac.ConditionalSameSiteNone == oc.ConditionalSameSiteNone &&
		ac.ChangeOnFailure == oc.ChangeOnFailure &&
		sameLocations(ac.Locations, oc.Locations)
}

// sameLocations compares two affinity Locations maps as JSON encodes them:
// a nil path list is null, an empty one [].
func sameLocations(a, b map[string][]string) bool {
	return maps.EqualFunc(a, b, func(x, y []string) bool {
		return slices.Equal(x, y) && (x == nil) == (y == nil)
	})
}
