package model

import (
	"reflect"
	"testing"
)

// fullBackend has every field set, so that a change of any one of them
// is a difference Equal must see.
func fullBackend() Backend {
	return Backend{
		Name:           "ns-svc-80",
		Service:        ObjectRef{Kind: "Service", Namespace: "ns", Name: "svc"},
		Port:           "80",
		Endpoints:      []Endpoint{{Address: "10.0.0.1", Port: 8080}, {Address: "10.0.0.2", Port: 8080}},
		Protocol:       "HTTP",
		LoadBalance:    "ewma",
		UpstreamHashBy: UpstreamHashBy{Expression: "$request_uri", Subset: true, SubsetSize: 3},
		SessionAffinity: SessionAffinity{
			Type: "cookie", Mode: "balanced",
			Cookie: SessionCookie{Name: "route", Path: "/", Domain: "d", Expires: "1", MaxAge: "2",
				Secure: true, SameSite: "Lax", ConditionalSameSiteNone: true, ChangeOnFailure: true},
			Locations: map[string][]string{"a.example.com": {"/", "/x"}},
		},
		NoServer:            true,
		TrafficShaping:      TrafficShaping{Weight: 1, WeightTotal: 100, Header: "h", HeaderValue: "v", HeaderPattern: "p", Cookie: "c", HeaderPatternInvalid: true},
		AlternativeBackends: []string{"ns-canary-80"},
		ExternalName:        "ext.example.com",
	}
}

// TestBackendEqualSeesEveryField changes each field of a Backend, down to
// the leaves of its structs, slices and maps, one at a time, and checks
// that Equal tells the copy from the original (and that it holds equal
// what reflect.DeepEqual holds equal).
func TestBackendEqualSeesEveryField(t *testing.T) {
	a, b := fullBackend(), fullBackend()
	if !a.Equal(&b) || !reflect.DeepEqual(a, b) {
		t.Fatal("two full backends built alike are not Equal")
	}
	changed := 0
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
			return
		case reflect.Slice:
			for i := range v.Len() {
				walk(path+"[i]", v.Index(i))
			}
			// One element more.
			check(t, path+" (longer)", func(c *Backend) {
				f := fieldOf(c, path)
				f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
			})
			changed++
			return
		case reflect.Map:
			check(t, path+" (other key)", func(c *Backend) {
				f := fieldOf(c, path)
				m := reflect.MakeMap(f.Type())
				for _, k := range f.MapKeys() {
					m.SetMapIndex(reflect.ValueOf(k.String()+"x"), f.MapIndex(k))
				}
				f.Set(m)
			})
			check(t, path+" (other value)", func(c *Backend) {
				f := fieldOf(c, path)
				m := reflect.MakeMap(f.Type())
				for _, k := range f.MapKeys() {
					m.SetMapIndex(k, reflect.ValueOf([]string{"/other"}))
				}
				f.Set(m)
			})
			check(t, path+" (nil)", func(c *Backend) { fieldOf(c, path).SetZero() })
			changed += 3
			return
		}
		check(t, path, func(c *Backend) { changeLeaf(fieldOf(c, path)) })
		changed++
	}
	walk("", reflect.ValueOf(a))
	if changed < 30 {
		t.Fatalf("only %d changes tried: the walk missed fields", changed)
	}
}

// check applies change to a copy of fullBackend and fails when Equal
// holds the two equal.
func check(t *testing.T, what string, change func(*Backend)) {
	t.Helper()
	orig, c := fullBackend(), fullBackend()
	change(&c)
	if reflect.DeepEqual(orig, c) {
		t.Fatalf("%s: the change changed nothing", what)
	}
	if orig.Equal(&c) || c.Equal(&orig) {
		t.Errorf("%s: Equal does not see a change of it", what)
	}
}

// fieldOf follows path (".Field", "[i]" for the first element) from c.
func fieldOf(c *Backend, path string) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for path != "" {
		if path[0] == '[' {
			v, path = v.Index(0), path[3:]
			continue
		}
		path = path[1:]
		end := len(path)
		for i := range path {
			if path[i] == '.' || path[i] == '[' {
				end = i
				break
			}
		}
		v, path = v.FieldByName(path[:end]), path[end:]
	}
	return v
}

func changeLeaf(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	default:
		panic("changeLeaf: add a case for " + v.Kind().String())
	}
}

// TestBackendEqualNil: nil equals only nil.
func TestBackendEqualNil(t *testing.T) {
	b := fullBackend()
	var none *Backend
	if !none.Equal(nil) || b.Equal(nil) || none.Equal(&b) {
		t.Fatal("nil backends compare wrongly")
	}
}
