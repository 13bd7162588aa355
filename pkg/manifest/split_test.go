package manifest

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSplitDocuments(t *testing.T) {
	type doc struct {
		Number int
		Line   int
		Data   string
		JSON   bool
	}
	for _, tc := range []struct {
		name string
		in   string
		want []doc
	}{
		{"empty", "", nil},
		{"one document", "a: 1\n", []doc{{1, 1, "a: 1\n", false}}},
		{"leading separator", "---\na: 1\n", []doc{{1, 1, "\na: 1\n", false}}},
		{"comments before the first separator", "# c\n\n---\na: 1\n", []doc{{1, 3, "\na: 1\n", false}}},
		{"content before the first separator", "a: 1\n---\nb: 2\n", []doc{{1, 1, "a: 1\n", false}, {2, 2, "\nb: 2\n", false}}},
		{"empty documents count", "---\n---\nb: 2\n---\n", []doc{{1, 1, "\n", false}, {2, 2, "\nb: 2\n", false}, {3, 4, "\n", false}}},
		{"separator with a comment or content", "--- # x\na: 1\n--- b: 2\n", []doc{{1, 1, " # x\na: 1\n", false}, {2, 3, " b: 2\n", false}}},
		{"not separators", "a: |\n  ---\n----\n---x\n", []doc{{1, 1, "a: |\n  ---\n----\n---x\n", false}}},
		{"no newline at the end", "a: 1\n---", []doc{{1, 1, "a: 1\n", false}, {2, 2, "", false}}},
		{"JSON object", "\n {\"a\": 1}\n", []doc{{1, 2, "{\"a\": 1}\n", true}}},
		{"JSON stream", "{\"a\": 1}\n\n{\"b\":\n 2} {\"c\": 3}", []doc{{1, 1, "{\"a\": 1}", true}, {2, 3, "{\"b\":\n 2}", true}, {3, 4, "{\"c\": 3}", true}}},
		{"JSON stream after a comment and separator", "# c\n---\n{\"a\": 1}\n{\"b\": 2}\n", []doc{{1, 3, "{\"a\": 1}", true}, {2, 4, "{\"b\": 2}", true}}},
		{"JSON stream with a bad value", "{\"a\": 1}\n{\"b\" 2}\n", []doc{{1, 1, "{\"a\": 1}", true}, {2, 2, "{\"b\" 2}\n", false}}},
		{"flow YAML", "{a: 1}\n", []doc{{1, 1, "{a: 1}\n", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []doc
			for _, d := range splitDocuments("f.yaml", []byte(tc.in)) {
				if d.file != "f.yaml" {
					t.Errorf("file %q", d.file)
				}
				got = append(got, doc{d.document, d.line, string(d.data), d.isJSON})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestFindTypeMeta(t *testing.T) {
	for _, tc := range []struct {
		in               string
		apiVersion, kind string
		ok               bool
	}{
		{`{"apiVersion": "v1", "kind": "Service"}`, "v1", "Service", true},
		{` { "metadata": {"kind": "Nested", "apiVersion": "x/v9", "a": [1, {"kind": "deeper"}, "]}"]},
		    "kind" : "Ingress", "spec": {"s": "\"}"}, "n": -1.5e3, "t": true, "z": null,
		    "apiVersion": "networking.k8s.io/v1"}`, "networking.k8s.io/v1", "Ingress", true},
		{`{"data": {"k": "v"}}`, "", "", true},
		{`{}`, "", "", true},
		{`{"kind": "Ser\u0076ice", "apiVersion": "v1"}`, "", "", false},
		{`{"ki\u006ed": "Service", "apiVersion": "v1"}`, "", "", false},
		{`{"kind": 5}`, "", "", false},
		{`[1]`, "", "", false},
		{`{"kind": "Service"`, "", "", false},
	} {
		apiVersion, kind, ok := findTypeMeta([]byte(tc.in))
		if apiVersion != tc.apiVersion || kind != tc.kind || ok != tc.ok {
			t.Errorf("findTypeMeta(%s) = %q, %q, %v; want %q, %q, %v", tc.in, apiVersion, kind, ok, tc.apiVersion, tc.kind, tc.ok)
		}
	}

	// What findTypeMeta cannot read goes to apimachinery's own reader.
	gvk, err := typeMetaFinder{}.Interpret([]byte(`{"kind": "Ser\u0076ice", "apiVersion": "v1"}`))
	if err != nil || gvk.Kind != "Service" || gvk.Version != "v1" || gvk.Group != "" {
		t.Errorf("Interpret with escapes = %v, %v", gvk, err)
	}
	gvk, err = typeMetaFinder{}.Interpret([]byte(`{"kind": "Ingress", "apiVersion": "networking.k8s.io/v1"}`))
	if err != nil || gvk.Group != "networking.k8s.io" || gvk.Version != "v1" || gvk.Kind != "Ingress" {
		t.Errorf("Interpret = %v, %v", gvk, err)
	}
	if _, err := (typeMetaFinder{}).Interpret([]byte(`{"kind": "X", "apiVersion": "a/b/c"}`)); err == nil {
		t.Error("Interpret accepted apiVersion a/b/c")
	}
}

// findTypeMeta agrees with encoding/json whenever it answers, and never
// panics on malformed input.
func FuzzFindTypeMeta(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion": "v1", "kind": "Service"}`,
		`{"metadata": {"kind": "x"}, "kind": "Ingress", "apiVersion": "networking.k8s.io/v1"}`,
		`{"a": [1, "]", {"b": "\"}"}], "kind": "K"}`,
		`{"kind": "A", "kind": "B"}`,
		`{"kind": "Service"`,
		`{"kind" "x"}`,
		`[`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		apiVersion, kind, ok := findTypeMeta([]byte(in))
		if !ok || !json.Valid([]byte(in)) {
			return
		}
		// The keys are case-sensitive, as in kubectl (encoding/json's struct
		// decoding, which apimachinery's own reader uses, is not).
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			return
		}
		var wantAPIVersion, wantKind string
		if raw, ok := m["apiVersion"]; ok && json.Unmarshal(raw, &wantAPIVersion) != nil {
			t.Fatalf("findTypeMeta(%s) answered for a non-string apiVersion", in)
		}
		if raw, ok := m["kind"]; ok && json.Unmarshal(raw, &wantKind) != nil {
			t.Fatalf("findTypeMeta(%s) answered for a non-string kind", in)
		}
		if apiVersion != wantAPIVersion || kind != wantKind {
			t.Errorf("findTypeMeta(%s) = %q, %q; encoding/json says %q, %q", in, apiVersion, kind, wantAPIVersion, wantKind)
		}
	})
}
