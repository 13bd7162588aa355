package textdiff

import (
	"math/rand"
	"strings"
	"testing"
)

// apply rebuilds both sides from an edit script.
func apply(ops []Op) (a, b []string) {
	for _, op := range ops {
		if op.Kind != '+' {
			a = append(a, op.Line)
		}
		if op.Kind != '-' {
			b = append(b, op.Line)
		}
	}
	return a, b
}

func TestDiffRebuildsBothSides(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		a := randomLines(rnd)
		b := randomLines(rnd)
		ops := Diff(a, b)
		ga, gb := apply(ops)
		if strings.Join(ga, "\n") != strings.Join(a, "\n") || strings.Join(gb, "\n") != strings.Join(b, "\n") {
			t.Fatalf("edit script does not rebuild the inputs: %q %q", a, b)
		}
		if n := changes(ops); n > len(a)+len(b) {
			t.Fatalf("too many changes %d", n)
		}
	}
}

func TestDiffIsMinimal(t *testing.T) {
	a := Lines("a\nb\nc\nd\n")
	b := Lines("a\nc\nd\ne\n")
	if n := changes(Diff(a, b)); n != 2 {
		t.Errorf("changes = %d, want 2 (remove b, add e)", n)
	}
}

func TestUnified(t *testing.T) {
	a := Lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	b := Lines("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n")
	got := Unified("old", "new", Diff(a, b), 2, nil)
	want := "--- old\n+++ new\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n"
	if got != want {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
	}
	if Unified("a", "b", Diff(a, a), 3, nil) != "" {
		t.Error("no change must give no output")
	}
}

func changes(ops []Op) int {
	n := 0
	for _, op := range ops {
		if op.Kind != ' ' {
			n++
		}
	}
	return n
}

func randomLines(rnd *rand.Rand) []string {
	n := rnd.Intn(12)
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + rnd.Intn(4)))
	}
	return out
}
