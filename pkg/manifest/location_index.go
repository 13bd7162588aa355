package manifest

import (
	"maps"
	"math"
)

// locationShards is the number of maps a locationIndex spreads its keys
// over: at 300,000 objects, about 300 keys a map, so that a Combiner
// copies a few small maps for a small change instead of one map of every
// object (46 ms at 300,000).
const locationShards = 1024

// locationIndex maps object keys to where they were read, spread over
// locationShards maps by a hash of the key. A Result's index is never
// changed once the Result is returned; a Combiner makes the next one from
// it copying only the maps it changes (withChanges), and the Results share
// the others. nil holds nothing; so does a nil map: an index made by set
// and withChanges has no empty maps and is nil when it holds nothing, so
// that indexes of the same keys and locations are reflect.DeepEqual
// however they were made.
type locationIndex []map[objectKey]Location

func (x locationIndex) get(k objectKey) (Location, bool) {
	if x == nil {
		return Location{}, false
	}
	l, ok := x[k.shard()][k]
	return l, ok
}

// set is for an index being built (Combine): it changes x's maps, and
// makes those it needs for hint keys (shardSizeHint).
func (x *locationIndex) set(k objectKey, l Location, hint int) {
	if *x == nil {
		*x = make(locationIndex, locationShards)
	}
	s := k.shard()
	if (*x)[s] == nil {
		(*x)[s] = make(map[objectKey]Location, hint)
	}
	(*x)[s][k] = l
}

// shardSizeHint is the size to make a map of an index of about n keys:
// the mean with two standard deviations (keys spread over the maps as a
// Poisson distribution), so that few maps grow while they are filled.
func shardSizeHint(n int) int {
	mean := n / locationShards
	if mean == 0 {
		return 0
	}
	return mean + 2*int(math.Sqrt(float64(mean))) + 1
}

// locationChange is a key to remove (set false) or to set to loc.
type locationChange struct {
	key objectKey
	set bool
	loc Location
}

// withChanges returns a new index: x with the changes applied in order.
// x is not changed: the maps that change are copied, the others shared.
func (x locationIndex) withChanges(changes []locationChange) locationIndex {
	if len(changes) == 0 {
		return x
	}
	out := make(locationIndex, locationShards)
	copy(out, x)
	copied := make(map[int]bool)
	for _, c := range changes {
		s := c.key.shard()
		if !copied[s] {
			copied[s] = true
			out[s] = maps.Clone(out[s])
		}
		switch {
		case c.set && out[s] == nil:
			out[s] = map[objectKey]Location{c.key: c.loc}
		case c.set:
			out[s][c.key] = c.loc
		default:
			delete(out[s], c.key)
		}
	}
	for s := range copied {
		if len(out[s]) == 0 {
			out[s] = nil
		}
	}
	for _, m := range out {
		if m != nil {
			return out
		}
	}
	return nil
}

// shard is the map of a locationIndex that holds k: FNV-1a of the key's
// strings, each followed by a 0 byte so that ("ab", "c") and ("a", "bc")
// differ. Deterministic, so that Combine and a Combiner shard alike.
func (k objectKey) shard() int {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, s := range [3]string{k.kind, k.namespace, k.name} {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= prime
		}
		h *= prime // the 0 byte: h ^= 0 changes nothing
	}
	return int(h % locationShards)
}
