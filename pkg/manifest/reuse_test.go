package manifest

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

const (
	reuseIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules:
  - host: web.example.com
`
	reuseService = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: team}
spec: {ports: [{port: 80}]}
`
	reuseList = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Service, metadata: {name: svc-x}}
- {apiVersion: v1, kind: Service, metadata: {name: svc-y}}
`
	reuseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
`
	reuseConfigMap = `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
`
)

func reuseFile(docs ...string) []byte { return []byte(strings.Join(docs, "---\n")) }

// TestParseKeepsUnchangedDocuments: a file parsed again with its last
// version as Previous keeps the objects of the documents it finds byte for
// byte (the same pointers, at their new place: a document inserted before
// them moves them), decodes the others, and is otherwise what a Parse
// without Previous gives (reflect.DeepEqual: contents, origins, skipped
// kinds). Previous is not used when it did not parse or was completed
// with another default namespace.
func TestParseKeepsUnchangedDocuments(t *testing.T) {
	v1 := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(reuseIngress, reuseService, reuseList, reuseDeployment, reuseConfigMap)}}, Options{})[0]
	if v1.Err != nil || len(v1.objects) != 5 {
		t.Fatalf("v1: %v, %d objects", v1.Err, len(v1.objects))
	}
	// a new first document, the Service edited, the rest as it was
	edited := strings.Replace(reuseService, "port: 80", "port: 8080", 1)
	v2Bytes := reuseFile("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: new}\n", reuseIngress, edited, reuseList, reuseDeployment, reuseConfigMap)
	v2 := Parse([]Data{{Name: "all.yaml", Bytes: v2Bytes, Previous: v1}}, Options{})[0]
	fresh := Parse([]Data{{Name: "all.yaml", Bytes: v2Bytes}}, Options{})[0]
	if !reflect.DeepEqual(v2, fresh) {
		t.Fatalf("with Previous:\n%+v\nwithout:\n%+v", v2, fresh)
	}
	byName := func(f *File) map[string]object {
		out := map[string]object{}
		for _, o := range f.objects {
			out[o.key.kind+"/"+o.key.name] = o
		}
		return out
	}
	old, now, decoded := byName(v1), byName(v2), byName(fresh)
	for _, key := range []string{"Ingress/web", "Service/svc-x", "Service/svc-y", "ConfigMap/c"} {
		if now[key].obj != old[key].obj {
			t.Errorf("%s: a new object, want the unchanged document's kept", key)
		}
		if now[key].obj == decoded[key].obj {
			t.Fatalf("%s: the Parse without Previous gave the same pointer: the test tells nothing", key)
		}
		if now[key].origin.document != old[key].origin.document+1 {
			t.Errorf("%s: document %d, want %d (moved by the new first document)", key, now[key].origin.document, old[key].origin.document+1)
		}
	}
	if now["Service/web"].obj == old["Service/web"].obj {
		t.Error("Service/web was edited: want it decoded again")
	}
	if s := now["Service/web"].obj.(*corev1.Service); s.Spec.Ports[0].Port != 8080 {
		t.Errorf("Service/web: port %d, want the edit's 8080", s.Spec.Ports[0].Port)
	}
	if ing := now["Ingress/web"].obj.(*networkingv1.Ingress); ing.Namespace != DefaultNamespace {
		t.Errorf("kept Ingress: namespace %q", ing.Namespace)
	}
	if !reflect.DeepEqual(now["Service/svc-y"].origin.items, old["Service/svc-y"].origin.items) || len(now["Service/svc-y"].origin.items) == 0 {
		t.Errorf("Service/svc-y: items %v, want its place in the List kept (%v)", now["Service/svc-y"].origin.items, old["Service/svc-y"].origin.items)
	}

	// another default namespace: nothing kept
	other := Parse([]Data{{Name: "all.yaml", Bytes: v2Bytes, Previous: v1}}, Options{DefaultNamespace: "team"})[0]
	if o := byName(other)["Ingress/web"]; o.obj == old["Ingress/web"].obj || o.obj.(*networkingv1.Ingress).Namespace != "team" {
		t.Errorf("another default namespace: kept %v", o.obj == old["Ingress/web"].obj)
	}
	// a Previous that did not parse is not used
	broken := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(reuseIngress, "kind: [")}}, Options{})[0]
	if broken.Err == nil {
		t.Fatal("the broken file parsed")
	}
	again := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(reuseIngress), Previous: broken}}, Options{})[0]
	if again.objects[0].obj == broken.objects[0].obj {
		t.Error("kept an object of a Previous that did not parse")
	}
	// an error after kept documents names the right document
	bad := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(reuseIngress, reuseService, "kind: [", reuseConfigMap), Previous: v1}}, Options{})[0]
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), "document 3") || len(bad.objects) != 2 {
		t.Errorf("an error after kept documents: %v, %d objects", bad.Err, len(bad.objects))
	}
}

// TestWithoutLeadingBlankLines: only whole blank lines go; the first
// content line keeps its indentation, the end stays as it is.
func TestWithoutLeadingBlankLines(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "",
		"\n\n  a: 1\n":         "  a: 1\n",
		" \t\r\n  a: |+\n\n\n": "  a: |+\n\n\n",
		"a: 1":                 "a: 1",
		"  \n\t":               "\t",
		"# c\n":                "# c\n",
	} {
		if got := string(withoutLeadingBlankLines([]byte(in))); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestCombinerTakesAFileReadAgain: a file parsed again with Previous is
// combined from the last Result (its objects that came and went, those
// that moved), and the Result is Combine's.
func TestCombinerTakesAFileReadAgain(t *testing.T) {
	var docs []string
	for i := range 40 {
		docs = append(docs, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm"+strings.Repeat("x", i)+"}\n")
	}
	v1 := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(docs...)}}, Options{})[0]
	other := Parse([]Data{{Name: "other.yaml", Bytes: reuseFile(reuseIngress, reuseService)}}, Options{})[0]
	var c Combiner
	if _, err := c.Combine([]*File{v1, other}); err != nil {
		t.Fatal(err)
	}
	edited := append([]string{reuseConfigMap}, docs[:35]...) // one new first, 5 gone
	v2 := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(edited...), Previous: v1}}, Options{})[0]
	got, err := c.Combine([]*File{v2, other})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Combine([]*File{v2, other})
	if err != nil {
		t.Fatal(err)
	}
	if c.incremental != 1 {
		t.Errorf("%d Results made from the last one, want 1", c.incremental)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the Result differs from Combine's in %s", resultDiff(got, want))
	}
	if loc, _ := got.Location("ConfigMap", DefaultNamespace, "cm"); loc.Line != 3 {
		t.Errorf("ConfigMap cm (moved by a new first document): %+v, want line 3", loc)
	}
}

// TestParseKeepsADocumentOnce: a document pasted twice keeps its objects
// the first time only (the second copy is decoded again), and the
// Combiner refuses the file as Combine does: the object is defined twice.
func TestParseKeepsADocumentOnce(t *testing.T) {
	var docs []string
	for i := range 10 {
		docs = append(docs, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm"+strings.Repeat("x", i)+"}\n")
	}
	v1 := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(docs...)}}, Options{})[0]
	var c Combiner
	if _, err := c.Combine([]*File{v1}); err != nil {
		t.Fatal(err)
	}
	v2 := Parse([]Data{{Name: "all.yaml", Bytes: reuseFile(append(docs, docs[0])...), Previous: v1}}, Options{})[0]
	first, last := v2.objects[0], v2.objects[len(v2.objects)-1]
	if first.obj != v1.objects[0].obj || last.obj == first.obj {
		t.Errorf("kept: first %v, pasted copy %v; want the first kept and the copy decoded again", first.obj == v1.objects[0].obj, last.obj == first.obj)
	}
	_, want := Combine([]*File{v2})
	_, got := c.Combine([]*File{v2})
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("the Combiner: %v; Combine: %v (want the same error)", got, want)
	}
}
