package manifest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fileGen makes random parsed files: objects of every kind in a few
// namespaces with names from a small set (so keys meet), other kinds
// skipped, unread Ingresses, errors, and deliberate duplicates.
type fileGen struct {
	r     *rand.Rand
	files int
	// keys are keys made so far, to define one twice on purpose, and
	// unread the keys of unread Ingresses, for an Ingress to share one.
	keys, unread []objectKey
}

var genKinds = []string{"Ingress", "IngressClass", "Service", "EndpointSlice", "Secret", "ConfigMap"}

func (g *fileGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *fileGen) key() objectKey {
	switch {
	case len(g.keys) > 0 && g.chance(0.03):
		return g.keys[g.r.IntN(len(g.keys))] // defined twice, unless the other went
	case len(g.unread) > 0 && g.chance(0.03):
		return g.unread[g.r.IntN(len(g.unread))]
	}
	k := objectKey{kind: genKinds[g.r.IntN(len(genKinds))], namespace: []string{"a", "b", "c"}[g.r.IntN(3)], name: fmt.Sprintf("o%d", g.r.IntN(300))}
	if k.kind == "IngressClass" {
		k.namespace = ""
	}
	g.keys = append(g.keys, k)
	return k
}

func newObject(k objectKey) runtime.Object {
	meta := metav1.ObjectMeta{Namespace: k.namespace, Name: k.name}
	switch k.kind {
	case "Ingress":
		return &networkingv1.Ingress{ObjectMeta: meta}
	case "IngressClass":
		return &networkingv1.IngressClass{ObjectMeta: meta}
	case "Service":
		return &corev1.Service{ObjectMeta: meta}
	case "EndpointSlice":
		return &discoveryv1.EndpointSlice{ObjectMeta: meta}
	case "Secret":
		return &corev1.Secret{ObjectMeta: meta}
	default:
		return &corev1.ConfigMap{ObjectMeta: meta}
	}
}

// file makes a file named name (a new name when "").
func (g *fileGen) file(name string) *File {
	if name == "" {
		g.files++
		name = fmt.Sprintf("f%04d.yaml", g.files)
	}
	f := &File{Name: name}
	doc := 0
	next := func() origin {
		doc++
		return origin{file: name, document: doc, line: 3*doc - 2}
	}
	if g.chance(0.1) {
		for range 1 + g.r.IntN(2) {
			k := g.key()
			k.kind = "Ingress"
			g.unread = append(g.unread, k)
			f.unread = append(f.unread, unreadIngress{apiVersion: "extensions/v1beta1", namespace: k.namespace, name: k.name, origin: next()})
		}
	}
	for range g.r.IntN(9) {
		if g.chance(0.1) {
			f.skipped = append(f.skipped, []string{"apps/v1/Deployment", "v1/Namespace"}[g.r.IntN(2)])
			next()
			continue
		}
		k := g.key()
		f.objects = append(f.objects, object{origin: next(), obj: newObject(k), key: k})
	}
	if g.chance(0.04) {
		o := next()
		f.Err = o.errorf("a broken document")
	}
	return f
}

// edit makes the file read again after an edit, as Parse with Previous
// makes it: a new File of the same name whose objects are mostly f's (the
// same pointers, often at another place), some edited (a new pointer, the
// same key), some gone, some new.
func (g *fileGen) edit(f *File) *File {
	e := &File{Name: f.Name, skipped: slices.Clone(f.skipped), unread: f.unread}
	doc := len(f.unread)
	next := func() origin {
		doc++
		return origin{file: f.Name, document: doc, line: 3*doc - 2}
	}
	add := func() {
		k := g.key()
		e.objects = append(e.objects, object{origin: next(), obj: newObject(k), key: k})
	}
	if g.chance(0.3) {
		add() // the others move
	}
	for _, o := range f.objects {
		switch r := g.r.Float64(); {
		case r < 0.1: // gone
		case r < 0.25:
			e.objects = append(e.objects, object{origin: next(), obj: newObject(o.key), key: o.key})
		default:
			o.origin = next()
			e.objects = append(e.objects, o)
			if g.chance(0.01) {
				// the same object twice (a File a caller made; Parse
				// decodes a repeated document again)
				o.origin = next()
				e.objects = append(e.objects, o)
			}
		}
		if g.chance(0.1) {
			add()
		}
	}
	if g.chance(0.04) {
		e.Err = next().errorf("a broken document")
	}
	return e
}

// frozen is a copy of a Result's slices and maps, to tell whether it
// changed.
type frozen struct {
	res      *Result
	snapshot render.Snapshot
	files    []string
	skipped  map[string]int
	locs     locationIndex
}

func freeze(res *Result) frozen {
	s := res.Snapshot
	f := frozen{res: res, files: slices.Clone(res.Files), skipped: maps.Clone(res.Skipped)}
	f.snapshot = render.Snapshot{
		Ingresses: slices.Clone(s.Ingresses), IngressClasses: slices.Clone(s.IngressClasses),
		Services: slices.Clone(s.Services), EndpointSlices: slices.Clone(s.EndpointSlices),
		Secrets: slices.Clone(s.Secrets), ConfigMaps: slices.Clone(s.ConfigMaps),
		UnreadIngresses: slices.Clone(s.UnreadIngresses),
	}
	if res.locations != nil {
		f.locs = make(locationIndex, len(res.locations))
		for i, m := range res.locations {
			f.locs[i] = maps.Clone(m)
		}
	}
	return f
}

// unchanged tells whether the Result still holds what it held: the same
// object pointers in the same order, the same names and locations.
func (f frozen) unchanged() bool {
	s, c := f.res.Snapshot, f.snapshot
	return slices.Equal(s.Ingresses, c.Ingresses) && slices.Equal(s.IngressClasses, c.IngressClasses) &&
		slices.Equal(s.Services, c.Services) && slices.Equal(s.EndpointSlices, c.EndpointSlices) &&
		slices.Equal(s.Secrets, c.Secrets) && slices.Equal(s.ConfigMaps, c.ConfigMaps) &&
		slices.Equal(s.UnreadIngresses, c.UnreadIngresses) && slices.Equal(f.res.Files, f.files) &&
		maps.Equal(f.res.Skipped, f.skipped) && reflect.DeepEqual(f.res.locations, f.locs)
}

// samePointers tells whether a and b hold the same objects (pointers) in
// the same order; DeepEqual would take copies for the same.
func samePointers(a, b render.Snapshot) bool {
	return slices.Equal(a.Ingresses, b.Ingresses) && slices.Equal(a.IngressClasses, b.IngressClasses) &&
		slices.Equal(a.Services, b.Services) && slices.Equal(a.EndpointSlices, b.EndpointSlices) &&
		slices.Equal(a.Secrets, b.Secrets) && slices.Equal(a.ConfigMaps, b.ConfigMaps)
}

// sharesArray tells whether a and b, both not empty, are the same array.
func sharesArray[T any](a, b []T) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

func sharesSlices(a, b render.Snapshot) bool {
	return sharesArray(a.Ingresses, b.Ingresses) || sharesArray(a.IngressClasses, b.IngressClasses) ||
		sharesArray(a.Services, b.Services) || sharesArray(a.EndpointSlices, b.EndpointSlices) ||
		sharesArray(a.Secrets, b.Secrets) || sharesArray(a.ConfigMaps, b.ConfigMaps) ||
		sharesArray(a.UnreadIngresses, b.UnreadIngresses)
}

// step changes the list of files at random: a file added, removed or
// replaced (new content under its name), several of those, a file put
// back that went before (its old pointer), two files swapped, half of
// them replaced, or nothing.
func (g *fileGen) step(list []*File, gone *[]*File) []*File {
	list = slices.Clone(list)
	one := func() {
		switch op := g.r.IntN(10); {
		case op < 3 || len(list) == 0:
			list = slices.Insert(list, g.r.IntN(len(list)+1), g.file(""))
		case op < 6:
			i := g.r.IntN(len(list))
			*gone = append(*gone, list[i])
			list = slices.Delete(list, i, i+1)
		case op < 9:
			i := g.r.IntN(len(list))
			*gone = append(*gone, list[i])
			if g.chance(0.5) {
				list[i] = g.edit(list[i])
			} else {
				list[i] = g.file(list[i].Name)
			}
		default:
			if len(*gone) > 0 {
				f := (*gone)[g.r.IntN(len(*gone))]
				if !slices.Contains(list, f) {
					list = slices.Insert(list, g.r.IntN(len(list)+1), f)
				}
			}
		}
	}
	switch op := g.r.IntN(20); {
	case op < 14:
		one()
	case op < 17:
		for range 2 + g.r.IntN(4) {
			one()
		}
	case op == 17 && len(list) > 1:
		i, j := g.r.IntN(len(list)), g.r.IntN(len(list))
		list[i], list[j] = list[j], list[i]
	case op == 18:
		for i := range list {
			if g.chance(0.5) {
				list[i] = g.file(list[i].Name)
			}
		}
	}
	return list
}

// A Combiner's Result after each of random changes of the files is the
// Result of Combine (reflect.DeepEqual, the same object pointers, the
// same error), in fresh slices, and the Result before it is left as it
// was. The changes are of every kind the files source makes and more:
// duplicates, files with errors and unread Ingresses, files reordered,
// given twice, put back.
func TestCombinerMatchesCombine(t *testing.T) {
	total := map[string]int{}
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := &fileGen{r: rand.New(rand.NewPCG(seed, 1))}
			var list, gone []*File
			for len(list) < 25 {
				f := g.file("")
				if _, err := Combine(append(list, f)); err == nil {
					list = append(list, f)
				}
			}
			good := list
			var c Combiner
			var last *frozen
			for step := range 800 {
				next := g.step(list, &gone)
				if g.chance(0.01) && len(next) > 0 {
					next = append(next, next[g.r.IntN(len(next))]) // a File twice
				}
				got, gotErr := c.Combine(next)
				want, wantErr := Combine(next)
				ref, refErr := referenceCombine(next)
				switch {
				case !reflect.DeepEqual(want, ref) || !reflect.DeepEqual(wantErr, refErr):
					t.Fatalf("step %d: Combine gives %v, %v; the reference %v, %v", step, want, wantErr, ref, refErr)
				case !reflect.DeepEqual(gotErr, wantErr) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr):
					t.Fatalf("step %d: error %v, Combine's %v", step, gotErr, wantErr)
				case !reflect.DeepEqual(got, want):
					t.Fatalf("step %d: the Result differs from Combine's in %s:\n%+v\n%+v", step, resultDiff(got, want), got, want)
				case got != nil && !samePointers(got.Snapshot, want.Snapshot):
					t.Fatalf("step %d: the Snapshot holds other objects than the files'", step)
				}
				if last != nil && !last.unchanged() {
					t.Fatalf("step %d: the Result before changed", step)
				}
				switch {
				case gotErr == nil:
					total["ok"]++
					if last != nil && sharesSlices(got.Snapshot, last.res.Snapshot) {
						t.Fatalf("step %d: the Snapshot shares a slice with the one before", step)
					}
					f := freeze(got)
					last = &f
					list, good = next, next
				case g.chance(0.3):
					total["failed, kept"]++
					list = next // the broken files stay a while
				default:
					total["failed"]++
					list = good
				}
			}
			total["incremental"] += c.incremental
		})
	}
	t.Logf("steps: %v", total)
	if total["incremental"] < total["ok"]/2 || total["incremental"] == total["ok"] {
		t.Errorf("%d of %d Results made incrementally: the test should try both ways often", total["incremental"], total["ok"])
	}
}

// resultDiff names the parts of two Results that differ.
func resultDiff(a, b *Result) string {
	var parts []string
	if a == nil || b == nil {
		return "nil"
	}
	if !reflect.DeepEqual(a.Files, b.Files) {
		parts = append(parts, fmt.Sprintf("Files %v / %v", a.Files, b.Files))
	}
	if !reflect.DeepEqual(a.Skipped, b.Skipped) {
		parts = append(parts, fmt.Sprintf("Skipped %v / %v", a.Skipped, b.Skipped))
	}
	if !reflect.DeepEqual(a.Snapshot, b.Snapshot) {
		parts = append(parts, "Snapshot")
	}
	if !reflect.DeepEqual(a.locations, b.locations) {
		for i := range max(len(a.locations), len(b.locations)) {
			var ma, mb map[objectKey]Location
			if i < len(a.locations) {
				ma = a.locations[i]
			}
			if i < len(b.locations) {
				mb = b.locations[i]
			}
			for k, l := range ma {
				if mb[k] != l {
					parts = append(parts, fmt.Sprintf("locations[%d][%v] %v / %v", i, k, l, mb[k]))
				}
			}
			for k, l := range mb {
				if _, ok := ma[k]; !ok {
					parts = append(parts, fmt.Sprintf("locations[%d][%v] missing / %v", i, k, l))
				}
			}
		}
	}
	return strings.Join(parts, "; ")
}

// referenceCombine is Combine as it was before Combiner: duplicates found
// by a map of every key in reading order, locations in one map (put into
// a locationIndex at the end).
func referenceCombine(files []*File) (*Result, error) {
	res := &Result{Files: make([]string, len(files)), Skipped: make(map[string]int)}
	seen := make(map[objectKey]origin)
	locations := make(map[objectKey]Location)
	s := &res.Snapshot
	for i, f := range files {
		res.Files[i] = f.Name
		for _, key := range f.skipped {
			res.Skipped[key]++
		}
		for _, u := range f.unread {
			s.UnreadIngresses = append(s.UnreadIngresses, render.UnreadIngress{APIVersion: u.apiVersion, Namespace: u.namespace, Name: u.name})
			locations[objectKey{kind: "Ingress", namespace: u.namespace, name: u.name}] = Location{File: u.origin.file, Line: u.origin.line}
		}
		for _, o := range f.objects {
			if first, dup := seen[o.key]; dup {
				return nil, fmt.Errorf("%s %s is defined twice: in %s and in %s", o.key.kind, o.key.ref(), first, o.origin)
			}
			seen[o.key] = o.origin
			locations[o.key] = Location{File: o.origin.file, Line: o.origin.line}
			appendObject(s, o)
		}
		if f.Err != nil {
			return nil, f.Err
		}
	}
	sortSnapshot(s)
	for k, l := range locations {
		res.locations.set(k, l, 0)
	}
	return res, nil
}

// mergeSorted keeps the order of namespace, then name, for a change at
// each end, in the middle, of everything, and of a key replaced.
func TestMergeSorted(t *testing.T) {
	cm := func(ns, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	a, b, c, d := cm("a", "x"), cm("b", "a"), cm("b", "b"), cm("c", "")
	b2, first, last := cm("b", "a"), cm("", "z"), cm("z", "a")
	for _, tc := range []struct {
		name                  string
		sorted, removed, adds []*corev1.ConfigMap
		want                  []*corev1.ConfigMap
	}{
		{"nothing", []*corev1.ConfigMap{a, b}, nil, nil, []*corev1.ConfigMap{a, b}},
		{"ends", []*corev1.ConfigMap{a, b}, nil, []*corev1.ConfigMap{last, first}, []*corev1.ConfigMap{first, a, b, last}},
		{"middle", []*corev1.ConfigMap{a, d}, nil, []*corev1.ConfigMap{c, b}, []*corev1.ConfigMap{a, b, c, d}},
		{"removed", []*corev1.ConfigMap{a, b, c, d}, []*corev1.ConfigMap{d, a}, nil, []*corev1.ConfigMap{b, c}},
		{"replaced", []*corev1.ConfigMap{a, b, c}, []*corev1.ConfigMap{b}, []*corev1.ConfigMap{b2}, []*corev1.ConfigMap{a, b2, c}},
		{"all", []*corev1.ConfigMap{a, b}, []*corev1.ConfigMap{a, b}, nil, nil},
		{"into none", nil, nil, []*corev1.ConfigMap{b, a}, []*corev1.ConfigMap{a, b}},
	} {
		got, ok := mergeSorted(tc.sorted, tc.removed, tc.adds)
		if !ok || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := mergeSorted([]*corev1.ConfigMap{a, b}, []*corev1.ConfigMap{b2}, nil); ok {
		t.Error("removing an object that is not there (another pointer of the same key) succeeded")
	}
}
