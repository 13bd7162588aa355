package genmanifests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sequence of CPython's random.Random, checked against python3.
func TestPyRandomMatchesCPython(t *testing.T) {
	r := newPyRandom(1)
	for i, want := range []float64{0.13436424411240122, 0.8474337369372327, 0.763774618976614} {
		if got := r.random(); got != want {
			t.Errorf("Random(1).random() #%d = %v, want %v", i+1, got, want)
		}
	}
	r = newPyRandom(1<<40 + 5) // a seed of two 32-bit words
	for i, want := range []uint32{2166296868, 2220160828, 1153647273} {
		if got := r.uint32(); got != want {
			t.Errorf("Random(2**40+5).getrandbits(32) #%d = %d, want %d", i+1, got, want)
		}
	}
	if got := r.randint(1, 64); got != 4 {
		t.Errorf("randint(1, 64) = %d, want 4", got)
	}
	if got := r.choice([]string{"a", "b", "c"}); got != "c" {
		t.Errorf("choice = %q, want c", got)
	}
	r = newPyRandom(0) // past the first 624 words: the state is regenerated
	var last uint32
	for range 700 {
		last = r.uint32()
	}
	if last != 3579999110 {
		t.Errorf("Random(0): word 700 = %d, want 3579999110", last)
	}
}

// The output is the one genmanifests.py wrote for the same options: the
// sha256 of the six files concatenated in kind order, computed with the
// Python generator when this package replaced it.
func TestGenerateMatchesThePythonGenerator(t *testing.T) {
	opts := func(ingresses int, change Change, edit ...func(*Options)) Options {
		o := DefaultOptions()
		o.Ingresses, o.Change = ingresses, change
		for _, e := range edit {
			e(&o)
		}
		return o
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{opts(200, ChangeNone), "3e092c077c526b3f84c479f663bf610d892a60f610bcbc229bca44a033be9370"},
		{opts(1000, ChangeEndpoints), "3f35aabafd57004ebffad976609d8e17fed6b36c6339f4db3e043e7ea6b342dc"},
		{opts(1000, ChangePath), "8f0bb3d1ccdbb798a53ba7251d848f870de44f0c87b407116f01c54256c92939"},
		{opts(1000, ChangeAnnotation), "a7657844c936d61023d41451252c9fc738d2834e712f559b9f58a3314eb5ae43"},
		{opts(30, ChangeCert), "3c594efa74b0c6e902f13b4b96a89c921bfda17e2e111915409b15f2ed3a756f"},
		{opts(57, ChangeEndpoints, func(o *Options) { o.Namespaces, o.Endpoints, o.Seed = 3, 0, 12345678901 }), "e759e2792c2522a22797252e5a4a052a07091e95ba1562bc6f064334713061f4"},
	} {
		o := c.o
		files, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		var names []string
		for _, f := range files {
			h.Write(f.Data)
			names = append(names, f.Name)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.want {
			t.Errorf("%+v: sha256 %s, want %s", o, got, c.want)
		}
		if got := strings.Join(names, " "); got != "ingressclass.yaml configmap.yaml secret.yaml service.yaml endpointslice.yaml ingress.yaml" {
			t.Errorf("files %s", got)
		}
	}
}

// The committed 120-Ingress cluster of the admission tests is this
// generator's output.
func TestGenerateMatchesCommittedCluster(t *testing.T) {
	o := DefaultOptions()
	o.Ingresses = 120
	files, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "admission", "generated-120", f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from testdata/admission/generated-120", f.Name)
		}
	}
}

func TestGenerateChanges(t *testing.T) {
	gen := func(c Change) map[string]string {
		o := DefaultOptions()
		o.Ingresses, o.Change = 40, c
		files, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			out[f.Name] = string(f.Data)
		}
		return out
	}
	base := gen(ChangeNone)
	for c, changed := range map[Change]string{ChangeEndpoints: "endpointslice.yaml", ChangePath: "ingress.yaml", ChangeAnnotation: "ingress.yaml", ChangeCert: "secret.yaml"} {
		got := gen(c)
		for name, data := range got {
			if (data != base[name]) != (name == changed) {
				t.Errorf("--change %s: %s changed %v", c, name, data != base[name])
			}
		}
	}
	if !strings.Contains(gen(ChangePath)["ingress.yaml"], `"path": "/added"`) {
		t.Error("--change path adds no /added path")
	}
	if strings.Count(gen(ChangeEndpoints)["endpointslice.yaml"], `"172.16.`) != 4 {
		t.Error("--change endpoints moves no endpoint of every 10th slice")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{
		{Ingresses: -1, Namespaces: 1},
		{Ingresses: 1, Namespaces: 0},
		{Ingresses: 1, Namespaces: 1, Endpoints: -1},
		{Ingresses: 1, Namespaces: 1, Change: "everything"},
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := (Options{Namespaces: 1}).Validate(); err != nil {
		t.Errorf("empty change: %v", err)
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "cluster")
	o := DefaultOptions()
	o.Ingresses = 3
	if err := Write(dir, o); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 {
		t.Errorf("%d files written, want 6", len(entries))
	}
}

func TestDumpsEscapesAsPython(t *testing.T) {
	got := dumps(obj{{"k", "a\"b\\c\n\x01é😀\x7f"}, {"e", obj{}}, {"l", []any{}}, {"n", []any{1, true}}})
	want := "{\n \"k\": \"a\\\"b\\\\c\\n\\u0001\\u00e9\\ud83d\\ude00\\u007f\",\n \"e\": {},\n \"l\": [],\n \"n\": [\n  1,\n  true\n ]\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
