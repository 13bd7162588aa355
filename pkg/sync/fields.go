package sync

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// fieldChange is one differing leaf field between two values of a type.
type fieldChange struct {
	Path     string // kebab-case field path, e.g. "proxy.body-size"
	Old, New string
}

// diffFields walks two values of the same type and returns the leaves that
// differ, in field order. Slices and maps are compared whole.
func diffFields(a, b any) []fieldChange {
	var out []fieldChange
	walkDiff("", reflect.ValueOf(a), reflect.ValueOf(b), &out)
	return out
}

func walkDiff(path string, a, b reflect.Value, out *[]fieldChange) {
	if a.Kind() == reflect.Pointer {
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				*out = append(*out, fieldChange{Path: path, Old: show(a), New: show(b)})
			}
			return
		}
		walkDiff(path, a.Elem(), b.Elem(), out)
		return
	}
	if a.Kind() == reflect.Struct {
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			name := kebab(t.Field(i).Name)
			if path != "" {
				name = path + "." + name
			}
			walkDiff(name, a.Field(i), b.Field(i), out)
		}
		return
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		*out = append(*out, fieldChange{Path: path, Old: show(a), New: show(b)})
	}
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	s := fmt.Sprint(v.Interface())
	if v.Kind() == reflect.String {
		s = fmt.Sprintf("%q", s)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// kebab turns a Go field name into kebab case, keeping acronyms together:
// ProxyBodySize → proxy-body-size, HSTSMaxAge → hsts-max-age.
func kebab(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if i > 0 && (prevLower || (nextLower && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// describe joins field changes as "a: x → y, b: …".
func describe(cs []fieldChange) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Path, c.Old, c.New))
	}
	return strings.Join(parts, ", ")
}
