// Package equaltest checks a hand-written Equal method against every
// field of its type: a test helper, so that a field added to a struct and
// forgotten in its Equal fails a test instead of caching stale data.
package equaltest

import (
	"reflect"
	"testing"
)

// EveryField makes, from full() (a value with every field set, slices
// and maps not empty, pointers not nil), one copy per change of a single
// exported field (unexported ones are the type's own bookkeeping, which
// Equal does not compare), down to the leaves of its structs, pointers, slices and maps
// (an element more, another key, another value, nil), and fails t when
// equal holds a changed copy equal to full() in either direction, or two
// full() values unequal. It returns the number of changes tried.
func EveryField[T any](t *testing.T, full func() T, equal func(a, b *T) bool) int {
	t.Helper()
	a, b := full(), full()
	if !equal(&a, &b) {
		t.Fatal("two full values built alike are not equal")
	}
	tried := 0
	check := func(what string, change func(v reflect.Value)) {
		t.Helper()
		orig, c := full(), full()
		change(reflect.ValueOf(&c).Elem())
		if reflect.DeepEqual(orig, c) {
			t.Fatalf("%s: the change changed nothing", what)
		}
		if equal(&orig, &c) || equal(&c, &orig) {
			t.Errorf("%s: Equal does not see a change of it", what)
		}
		tried++
	}
	var walk func(path []step, v reflect.Value)
	walk = func(path []step, v reflect.Value) {
		at := func(root reflect.Value) reflect.Value { return follow(root, path) }
		name := pathName(path)
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				if !v.Type().Field(i).IsExported() {
					continue // bookkeeping of the type's own (not encoded)
				}
				walk(append(path[:len(path):len(path)], step{field: v.Type().Field(i).Name}), v.Field(i))
			}
		case reflect.Pointer:
			check(name+" (nil)", func(root reflect.Value) { at(root).SetZero() })
			walk(append(path[:len(path):len(path)], step{deref: true}), v.Elem())
		case reflect.Slice:
			for i := range v.Len() {
				walk(append(path[:len(path):len(path)], step{index: i, isIndex: true}), v.Index(i))
			}
			check(name+" (longer)", func(root reflect.Value) {
				f := at(root)
				f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
			})
		case reflect.Map:
			check(name+" (other key)", func(root reflect.Value) {
				f := at(root)
				m := reflect.MakeMap(f.Type())
				for _, k := range f.MapKeys() {
					m.SetMapIndex(reflect.ValueOf(k.String()+"x"), f.MapIndex(k))
				}
				f.Set(m)
			})
			check(name+" (other value)", func(root reflect.Value) {
				f := at(root)
				m := reflect.MakeMap(f.Type())
				for _, k := range f.MapKeys() {
					other := reflect.MakeSlice(f.Type().Elem(), 1, 1)
					other.Index(0).SetString("/other")
					m.SetMapIndex(k, other)
				}
				f.Set(m)
			})
			check(name+" (nil)", func(root reflect.Value) { at(root).SetZero() })
		default:
			check(name, func(root reflect.Value) { changeLeaf(at(root)) })
		}
	}
	walk(nil, reflect.ValueOf(a))
	return tried
}

// step is one move from a value to a part of it.
type step struct {
	field   string
	deref   bool
	index   int
	isIndex bool
}

func follow(v reflect.Value, path []step) reflect.Value {
	for _, s := range path {
		switch {
		case s.deref:
			v = v.Elem()
		case s.isIndex:
			v = v.Index(s.index)
		default:
			v = v.FieldByName(s.field)
		}
	}
	return v
}

func pathName(path []step) string {
	name := ""
	for _, s := range path {
		switch {
		case s.deref:
			name += "*"
		case s.isIndex:
			name += "[i]"
		default:
			name += "." + s.field
		}
	}
	return name
}

func changeLeaf(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(v.Int() + 1)
	default:
		panic("equaltest: add a change for " + v.Kind().String())
	}
}
