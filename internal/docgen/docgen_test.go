package docgen

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/textdiff"
)

var update = flag.Bool("update", false, "rewrite docs/annotations.md and the README's summary from the code")

const (
	annotationsDoc = "../../docs/annotations.md"
	readme         = "../../README.md"
)

// checkFile compares path with want, or rewrites it with -update.
func checkFile(t *testing.T, path string, want string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/docgen -update writes it)", err)
	}
	if string(got) != want {
		ops := textdiff.Diff(textdiff.Lines(string(got)), textdiff.Lines(want))
		t.Errorf("%s differs from what pkg/annotations' tables give; run `go test ./internal/docgen -update` and commit it:\n%s",
			path, textdiff.Unified(path, "generated", ops, 2, nil))
	}
}

// docs/annotations.md is the code's tables.
func TestAnnotationsDoc(t *testing.T) {
	checkFile(t, annotationsDoc, string(AnnotationsMarkdown(FromAnnotations())))
}

// The README's summary is the code's tables.
func TestREADMESummary(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReplaceSummary(string(data), Summary(FromAnnotations()))
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, readme, want)
}

// Every supported annotation and key, every refused one, is in the
// document, and a change of the tables changes it: the comparison above
// sees a new annotation, a changed default and a removed key.
func TestAnnotationsDocFollowsTheTables(t *testing.T) {
	tables := FromAnnotations()
	doc := string(AnnotationsMarkdown(tables))
	for _, a := range tables.Annotations {
		if !strings.Contains(doc, "| `"+a.Name+"` |") {
			t.Errorf("annotation %s is not in the document", a.Name)
		}
	}
	for _, k := range tables.ConfigKeys {
		if !strings.Contains(doc, "| `"+k.Key+"` |") {
			t.Errorf("ConfigMap key %s is not in the document", k.Key)
		}
	}
	for _, u := range append(tables.Unsupported, tables.Snippets...) {
		if !strings.Contains(doc, "| `"+u.Name+"` |") {
			t.Errorf("refused annotation %s is not in the document", u.Name)
		}
	}
	if len(tables.Annotations) == 0 || len(tables.ConfigKeys) == 0 || len(tables.Unsupported) == 0 {
		t.Fatal("pkg/annotations gave empty tables")
	}

	changed := FromAnnotations()
	changed.Annotations = append(changed.Annotations[:1:1], changed.Annotations...)
	changed.Annotations[0].Name = "new-annotation"
	if string(AnnotationsMarkdown(changed)) == doc || Summary(changed) == Summary(tables) {
		t.Error("a new annotation does not change the generated text")
	}
	changed = FromAnnotations()
	changed.ConfigKeys[0].Default = "something else"
	if string(AnnotationsMarkdown(changed)) == doc {
		t.Error("a changed default does not change the generated text")
	}
	changed = FromAnnotations()
	changed.ConfigKeys = changed.ConfigKeys[1:]
	if string(AnnotationsMarkdown(changed)) == doc || Summary(changed) == Summary(tables) {
		t.Error("a removed key does not change the generated text")
	}
}

func TestCellEscapesPipes(t *testing.T) {
	if got := cell("a|b"); got != `a\|b` {
		t.Errorf("cell(a|b) = %q", got)
	}
	if _, err := ReplaceSummary("no markers", "x"); err == nil {
		t.Error("ReplaceSummary without markers: no error")
	}
}
