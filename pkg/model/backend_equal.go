package model

import (
	"reflect"
	"slices"
)

// Equal tells whether b and o hold the same backend: every field, the
// endpoints in order. It is reflect.DeepEqual's answer without reflection
// (the controller compares every backend of 100,000 each sync, and the
// sizes cache of the Lua dicts does too); TestBackendEqualSeesEveryField
// fails when a field is added to Backend and not here.
func (b *Backend) Equal(o *Backend) bool {
	if b == nil || o == nil || b == o {
		return b == o
	}
	return b.Name == o.Name &&
		b.Service == o.Service &&
		b.Port == o.Port &&
		(sameArray(b.Endpoints, o.Endpoints) || slices.Equal(b.Endpoints, o.Endpoints)) &&
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
	if sameMap(a.Locations, o.Locations) {
		return true
	}
	for host, paths := range a.Locations {
		other, ok := o.Locations[host]
		if !ok || !slices.Equal(paths, other) || (paths == nil) != (other == nil) {
			return false
		}
	}
	return true
}

// sameArray says whether a and b are the same elements of one array: a
// backend that render.Incremental handed on unchanged shares its
// endpoints with the one before, and comparing them address by address
// is a cache miss each at 100,000 backends.
func sameArray[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameMap says whether a and b are the same map (not two equal ones).
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
