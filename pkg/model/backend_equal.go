package model

import "slices"

// Equal tells whether b and o hold the same backend: every field, the
// endpoints in order. It is reflect.DeepEqual's answer without reflection
// (the controller compares every backend of 100,000 each sync, and the
// sizes cache of the Lua dicts does too); TestBackendEqualSeesEveryField
// fails when a field is added to Backend and not here.
func (b *Backend) Equal(o *Backend) bool {
	if b == nil || o == nil {
		return b == o
	}
	return b.Name == o.Name &&
		b.Service == o.Service &&
		b.Port == o.Port &&
		slices.Equal(b.Endpoints, o.Endpoints) &&
		b.Protocol == o.Protocol &&
		b.LoadBalance == o.LoadBalance &&
		b.UpstreamHashBy == o.UpstreamHashBy &&
		b.SessionAffinity.equal(&o.SessionAffinity) &&
		b.NoServer == o.NoServer &&
		b.TrafficShaping == o.TrafficShaping &&
		slices.Equal(b.AlternativeBackends, o.AlternativeBackends) &&
		b.ExternalName == o.ExternalName
}

func (a *SessionAffinity) equal(o *SessionAffinity) bool {
	if a.Type != o.Type || a.Mode != o.Mode || a.Cookie != o.Cookie || len(a.Locations) != len(o.Locations) {
		return false
	}
	// reflect.DeepEqual tells a nil map from an empty one, and so does
	// Equal.
	if (a.Locations == nil) != (o.Locations == nil) {
		return false
	}
	for host, paths := range a.Locations {
		other, ok := o.Locations[host]
		if !ok || !slices.Equal(paths, other) || (paths == nil) != (other == nil) {
			return false
		}
	}
	return true
}
