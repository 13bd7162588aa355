package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// Each object's Location is its file and the first line of its document
// that is not blank or a comment; a List's items get the List's line.
func TestResultLocation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	data := `# leading comment
apiVersion: v1
kind: Service
metadata: {name: one}
---
# a comment on the next object

apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: old}
--- # separator comment
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cm, namespace: x}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Read([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind, ns, name string
		line           int
	}{
		{"Service", "default", "one", 2},
		{"Ingress", "default", "old", 8},
		{"ConfigMap", "x", "cm", 12},
	} {
		got, ok := res.Location(tc.kind, tc.ns, tc.name)
		if !ok || got != (Location{File: path, Line: tc.line}) {
			t.Errorf("Location(%s %s/%s) = %+v, %v; want line %d of %s", tc.kind, tc.ns, tc.name, got, ok, tc.line, path)
		}
	}
	if _, ok := res.Location("Service", "default", "absent"); ok {
		t.Error("an object not read has a Location")
	}
}
