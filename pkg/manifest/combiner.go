package manifest

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Combiner combines files as Combine does, again and again as they
// change, in time that grows with the change rather than with every
// object: it keeps the last Result it returned and the files it came from,
// and makes the next Result from them when the new files differ by a few
// *File (a File that did not change is passed again as the same pointer).
// The objects of the files that went are taken out of each kind's sorted
// slice and those of the new files merged in; Files, Skipped and the
// locations are updated for those alone. A file read again (a new File
// of a name that went: Parse with Data.Previous keeps the objects of its
// unchanged documents) counts as the objects that came and went in it,
// compared by pointer, and those of its objects that moved have their
// locations updated: an edit of ten objects in a file of 100,000 is a
// change of ten.
//
// Each Result is what Combine(files) returns (reflect.DeepEqual, errors
// included), in fresh slices: a Result returned before is never changed,
// and the objects of files that stayed keep their pointers, so a consumer
// may compare the last Snapshot's objects with the new one's by pointer.
// The caller must not change a Result either: the next is made from it.
//
// Whatever the incremental way would have to decide as Combine does — a
// new file with an error, an object defined twice, a File given twice,
// files in another order, unread Ingresses (whose locations depend on the
// order of every file that names them), or a change of more than a
// quarter of the objects — is left to Combine itself, which then sets the
// state anew. A failed combine leaves the state at the last good one.
//
// The zero Combiner is ready to use; it is not safe for concurrent use.
type Combiner struct {
	// files are the files of result, in order, and position the index of
	// each in files.
	files    []*File
	position map[*File]int
	result   *Result
	// objects is the number of objects of files.
	objects int
	// unreadKeys are the keys of files' unread Ingresses: an object of
	// such a key shares its location with them.
	unreadKeys map[objectKey]bool
	// incremental counts the Results made from the last one, for tests.
	incremental int
}

// Combine returns what the package's Combine(files) returns.
func (c *Combiner) Combine(files []*File) (*Result, error) {
	if res := c.combineChange(files); res != nil {
		c.incremental++
		return res, nil
	}
	res, err := Combine(files)
	if err != nil {
		return nil, err
	}
	c.remember(files, res)
	return res, nil
}

// remember makes res, the combine of files, the last one.
func (c *Combiner) remember(files []*File, res *Result) {
	c.files = slices.Clone(files)
	c.position = make(map[*File]int, len(files))
	c.objects = 0
	c.unreadKeys = make(map[objectKey]bool)
	for i, f := range files {
		c.position[f] = i
		c.objects += len(f.objects)
		for _, u := range f.unread {
			c.unreadKeys[objectKey{kind: "Ingress", namespace: u.namespace, name: u.name}] = true
		}
	}
	c.result = res
}

// fileChange is how the files given differ from the last ones.
type fileChange struct {
	// added and removed are the files that came and went; of a file read
	// again that kept objects of its last version (a new File of the same
	// name: Data.Previous), only the objects that came and went, in a
	// File of their own.
	added, removed []*File
	// moved are the objects that such a file kept at another place.
	moved []object
	// position is the index of each file given.
	position map[*File]int
}

// combineChange makes the Result of files from the last one; nil when the
// change is one left to Combine (see Combiner).
func (c *Combiner) combineChange(files []*File) *Result {
	if c.result == nil {
		return nil
	}
	ch, ok := c.change(files)
	if !ok || !c.keysAllowChange(ch) {
		return nil
	}
	last := c.result
	res := &Result{Files: make([]string, len(files)), Skipped: skippedAfter(last.Skipped, ch)}
	for i, f := range files {
		res.Files[i] = f.Name
	}
	snap, ok := mergeSnapshot(last.Snapshot, objectsByKind(ch.removed), objectsByKind(ch.added))
	if !ok {
		return nil // the last Result does not hold what its files hold: start again
	}
	res.Snapshot = snap
	// No file with unread Ingresses came or went, and the others kept
	// their order: the same list.
	res.Snapshot.UnreadIngresses = slices.Clone(last.Snapshot.UnreadIngresses)
	res.locations = last.locations.withChanges(locationChanges(ch))

	c.files = slices.Clone(files)
	c.position = ch.position
	c.result = res
	for _, f := range ch.removed {
		c.objects -= len(f.objects)
	}
	for _, f := range ch.added {
		c.objects += len(f.objects)
	}
	return res
}

// change finds the files added and removed since the last combine; false
// when the change is one for Combine: a File given twice (now or last
// time), files that
// stayed in another order, a new file with an error, a file with unread
// Ingresses added or removed, more than a quarter of the objects changed.
func (c *Combiner) change(files []*File) (fileChange, bool) {
	ch := fileChange{position: make(map[*File]int, len(files))}
	if len(c.position) != len(c.files) {
		// the last files had a File twice (it gave no duplicate when it
		// holds no object): its second place is not in position
		return ch, false
	}
	for i, f := range files {
		if _, twice := ch.position[f]; twice {
			return ch, false
		}
		ch.position[f] = i
	}
	lastKept := -1
	var added []*File
	for _, f := range files {
		if i, kept := c.position[f]; kept {
			if i < lastKept {
				return ch, false
			}
			lastKept = i
			continue
		}
		if f.Err != nil || len(f.unread) > 0 {
			return ch, false
		}
		added = append(added, f)
	}
	var removed []*File
	for _, f := range c.files {
		if _, kept := ch.position[f]; kept {
			continue
		}
		if len(f.unread) > 0 {
			return ch, false
		}
		removed = append(removed, f)
	}
	// A file read again is the one file removed and the one file added of
	// a name (a name of several is left as whole files).
	removedOf := make(map[string]*File, len(removed))
	twice := make(map[string]bool)
	for _, f := range removed {
		if removedOf[f.Name] != nil {
			twice[f.Name] = true
		}
		removedOf[f.Name] = f
	}
	addedOf := make(map[string]int, len(added))
	for _, f := range added {
		if addedOf[f.Name]++; addedOf[f.Name] > 1 {
			twice[f.Name] = true
		}
	}
	changed := 0
	readAgain := make(map[*File]bool)
	for _, f := range added {
		old := removedOf[f.Name]
		if old == nil || twice[f.Name] {
			ch.added = append(ch.added, f)
			changed += len(f.objects)
			continue
		}
		in, out, moved, ok := objectChanges(old, f)
		if !ok {
			return ch, false
		}
		readAgain[old] = true
		ch.added = append(ch.added, &File{Name: f.Name, objects: in, skipped: f.skipped})
		ch.removed = append(ch.removed, &File{Name: old.Name, objects: out, skipped: old.skipped})
		ch.moved = append(ch.moved, moved...)
		changed += len(in) + len(out)
	}
	for _, f := range removed {
		if !readAgain[f] {
			ch.removed = append(ch.removed, f)
			changed += len(f.objects)
		}
	}
	return ch, 4*changed <= c.objects
}

// objectChanges compares a file read again, now, with its last version,
// old, by object pointer: the objects that came (in), went (out) and
// stayed at another place (moved, with the new place). false when now
// holds an object twice (a change for Combine, which finds it defined
// twice: Parse never does that, a caller's File might).
func objectChanges(old, now *File) (in, out, moved []object, ok bool) {
	at := make(map[runtime.Object]origin, len(old.objects))
	for _, o := range old.objects {
		at[o.obj] = o.origin
	}
	stays := make(map[runtime.Object]bool, len(now.objects))
	for _, o := range now.objects {
		if stays[o.obj] {
			return nil, nil, nil, false
		}
		was, kept := at[o.obj]
		switch {
		case !kept:
			in = append(in, o)
			continue
		case was.location() != o.origin.location():
			moved = append(moved, o)
		}
		stays[o.obj] = true
	}
	for _, o := range old.objects {
		if !stays[o.obj] {
			out = append(out, o)
		}
	}
	return in, out, moved, true
}

// keysAllowChange tells whether the objects added, removed and moved can
// be combined without Combine: no key defined twice (among those added,
// or by one added and one that stays) and none shared with an unread
// Ingress.
func (c *Combiner) keysAllowChange(ch fileChange) bool {
	removed := make(map[objectKey]bool)
	for _, f := range ch.removed {
		for _, o := range f.objects {
			if c.unreadKeys[o.key] {
				return false
			}
			removed[o.key] = true
		}
	}
	for _, o := range ch.moved {
		if c.unreadKeys[o.key] {
			return false // its location is the unread Ingress's, or not
		}
	}
	added := make(map[objectKey]bool)
	for _, f := range ch.added {
		for _, o := range f.objects {
			if c.unreadKeys[o.key] || added[o.key] {
				return false
			}
			// Not an unread Ingress's key: in the last locations, it is
			// an object's.
			if _, exists := c.result.locations.get(o.key); exists && !removed[o.key] {
				return false
			}
			added[o.key] = true
		}
	}
	return true
}

// skippedAfter is last's counts with those of the files removed taken
// out and those of the files added put in; a fresh map.
func skippedAfter(last map[string]int, ch fileChange) map[string]int {
	skipped := maps.Clone(last)
	if skipped == nil {
		skipped = make(map[string]int)
	}
	for _, f := range ch.added {
		for _, k := range f.skipped {
			skipped[k]++
		}
	}
	for _, f := range ch.removed {
		for _, k := range f.skipped {
			if skipped[k]--; skipped[k] <= 0 {
				delete(skipped, k)
			}
		}
	}
	return skipped
}

// locationChanges are the keys of the objects removed, then the
// locations of those added and moved: a key both removed and added (a
// file replaced) ends at its new location.
func locationChanges(ch fileChange) []locationChange {
	var out []locationChange
	for _, f := range ch.removed {
		for _, o := range f.objects {
			out = append(out, locationChange{key: o.key})
		}
	}
	for _, f := range ch.added {
		for _, o := range f.objects {
			out = append(out, locationChange{key: o.key, set: true, loc: o.origin.location()})
		}
	}
	for _, o := range ch.moved {
		out = append(out, locationChange{key: o.key, set: true, loc: o.origin.location()})
	}
	return out
}

// objectsByKind puts the objects of files into a Snapshot, unsorted.
func objectsByKind(files []*File) render.Snapshot {
	var s render.Snapshot
	for _, f := range files {
		for _, o := range f.objects {
			appendObject(&s, o)
		}
	}
	return s
}
