package controller

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
)

// testSettle is the statSettle of the scans of these tests, and settle
// waits it out (with a margin) so that the files' last changes are
// settled: their stats are then trusted.
const testSettle = 200 * time.Millisecond

func settle() { time.Sleep(testSettle + 50*time.Millisecond) }

// scanOfOneSettledFile writes a.yaml (Ingress a1) into a new directory,
// lets it settle and reads it once with a fileScan that trusts a stat
// testSettle after the change.
func scanOfOneSettledFile(t *testing.T) (*fileScan, string) {
	t.Helper()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	write(t, a, fileIngressYAML("a1", "a.example.com", "/"))
	settle()
	sc := newFileScan(dir, FileSourceOptions{})
	sc.statSettle = testSettle
	scanExpect(t, sc, "first read", 1, true, "a1")
	return sc, a
}

// unknownStats is how many of paths the next read reads again because
// their stat was taken less than statSettle after their last change: the
// fact the expectation rests on, not a guess from the sleeps (a loaded
// machine can stall past testSettle between a write and the stat).
func unknownStats(sc *fileScan, paths ...string) int {
	n := 0
	for _, p := range paths {
		if st := sc.files[p]; st == nil || !st.statKnown {
			n++
		}
	}
	return n
}

// scanExpect runs sc once and checks how many files it read, whether the
// snapshot changed, and its Ingresses (names in order).
func scanExpect(t *testing.T, sc *fileScan, what string, read int, changed bool, ingresses ...string) scanResult {
	t.Helper()
	res := sc.run(logr.Discard())
	if res.read != read || res.changed != changed {
		t.Errorf("%s: read %d files, changed %v; want %d, %v", what, res.read, res.changed, read, changed)
	}
	if changed {
		var names []string
		for _, ing := range res.snapshot.Ingresses {
			names = append(names, ing.Name)
		}
		if !slices.Equal(names, ingresses) {
			t.Errorf("%s: Ingresses %q, want %q", what, names, ingresses)
		}
	}
	return res
}

// statChanged fails the test as unable to tell when the file system
// gives path the same stat as the scan recorded for it: its clock is too
// coarse for the short testSettle (the default, two seconds, is not).
func statChanged(t *testing.T, sc *fileScan, path string) {
	t.Helper()
	st, err := manifest.StatFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if st == sc.files[path].stat {
		t.Skipf("the file system gave %s the same stat after a rewrite %v later: its clock is too coarse for this test", path, testSettle)
	}
}

// A file whose stat did not change since it was read is not read again;
// any change of the stat makes it read: a rewrite of the same size (with
// its modification time set back, where the system has change times too),
// another file renamed in its place, a touch (read, hashed, not parsed).
func TestFileScanSkipsFilesByStat(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	write(t, a, fileIngressYAML("a1", "a.example.com", "/"))
	write(t, b, fileIngressYAML("b1", "b.example.com", "/"))
	settle()
	sc := newFileScan(dir, FileSourceOptions{})
	sc.statSettle = testSettle
	scanExpect(t, sc, "first read", 2, true, "a1", "b1")
	scanExpect(t, sc, "nothing changed", 0, false)

	// Another content of the same size.
	write(t, a, fileIngressYAML("a2", "a.example.com", "/"))
	statChanged(t, sc, a)
	scanExpect(t, sc, "a rewritten, same size", 1, true, "a2", "b1")
	settle()
	// Read once more when its stat was taken too soon after the write
	// (always, unless the machine stalled for testSettle in between).
	scanExpect(t, sc, "a rewritten, settled", unknownStats(sc, a), false)
	scanExpect(t, sc, "nothing changed again", 0, false)

	// The same size and modification time, another content: the change
	// time tells.
	if st, _ := manifest.StatFile(a); st.ChangeTime != 0 {
		fi, err := os.Stat(a)
		if err != nil {
			t.Fatal(err)
		}
		write(t, a, fileIngressYAML("a3", "a.example.com", "/"))
		if err := os.Chtimes(a, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		statChanged(t, sc, a)
		scanExpect(t, sc, "a rewritten, modification time set back", 1, true, "a3", "b1")
		settle()
		scanExpect(t, sc, "settled", unknownStats(sc, a), false)
	}

	// Another file renamed in b's place: another inode.
	tmp := filepath.Join(dir, "b.tmp")
	write(t, tmp, fileIngressYAML("b2", "b.example.com", "/"))
	if err := os.Rename(tmp, b); err != nil {
		t.Fatal(err)
	}
	statChanged(t, sc, b)
	scanExpect(t, sc, "b replaced by a rename", 1, true, "a3", "b2")

	// A touch: read and hashed, the same content, not a change.
	settle()
	scanExpect(t, sc, "settled", unknownStats(sc, b), false)
	now := time.Now()
	if err := os.Chtimes(b, now, now); err != nil {
		t.Fatal(err)
	}
	statChanged(t, sc, b)
	scanExpect(t, sc, "b touched", 1, false)
	settle()
	scanExpect(t, sc, "b touched, settled", unknownStats(sc, b), false)
	scanExpect(t, sc, "nothing changed at last", 0, false)
}

// A file changed less than statSettle before the read is read at every
// read until it settles: a write right after the read, of the same size,
// may leave the same times (the file system's clock ticks in
// milliseconds, or seconds), and must not be missed.
func TestFileScanReadsFreshFilesAgain(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	write(t, a, fileIngressYAML("a1", "a.example.com", "/"))
	sc := newFileScan(dir, FileSourceOptions{}) // statSettle: two seconds
	scanExpect(t, sc, "first read", 1, true, "a1")
	scanExpect(t, sc, "again", 1, false)
	write(t, a, fileIngressYAML("a2", "a.example.com", "/"))
	scanExpect(t, sc, "a rewritten at once", 1, true, "a2")
}

// A file that does not parse keeps its last good version; while its stat
// stays, it is not read again and its error stays in force.
func TestFileScanSkipsABrokenFileByStat(t *testing.T) {
	sc, a := scanOfOneSettledFile(t)
	write(t, a, "kind: [\n")
	settle()
	res := scanExpect(t, sc, "broken", 1, false)
	if !strings.Contains(res.errs, a) {
		t.Errorf("errors %q do not name %s", res.errs, a)
	}
	res = scanExpect(t, sc, "still broken", 0, false)
	if !strings.Contains(res.errs, a) {
		t.Errorf("the error left: %q", res.errs)
	}
	write(t, a, fileIngressYAML("a1", "a.example.com", "/"))
	scanExpect(t, sc, "mended: the same content as its good version", 1, false)
}

// A file opened for writing keeps its content in force while nothing is
// written (its stat stays: not read, not busy); once written, its stat
// changes and it is busy until closed, then read.
func TestFileScanBusyFileByStat(t *testing.T) {
	if !specialfiles.LeasesWork(t) {
		t.Skip("this system grants no read leases: a file being written is read as it is")
	}
	sc, a := scanOfOneSettledFile(t)
	w, err := os.OpenFile(a, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if res := scanExpect(t, sc, "open, nothing written", 0, false); res.busy {
		t.Error("busy, with nothing written")
	}
	content := fileIngressYAML("a2", "a.example.com", "/")
	if _, err := w.WriteString(content[:10]); err != nil {
		t.Fatal(err)
	}
	statChanged(t, sc, a)
	if res := scanExpect(t, sc, "being written", 1, false); !res.busy {
		t.Error("not busy while written")
	}
	if _, err := w.WriteString(content[10:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	scanExpect(t, sc, "closed", 1, true, "a2")
}

// TestFileScanKeepsTheObjectsOfUnchangedDocuments: a file rewritten with
// one document edited and one inserted before the others gives a snapshot
// whose other objects are the same pointers (render builds incrementally
// from them), the edited one a new object with the edit.
func TestFileScanKeepsTheObjectsOfUnchangedDocuments(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	docs := func(ds ...string) string { return strings.Join(ds, "---\n") }
	write(t, a, docs(fileIngressYAML("a1", "a1.example.com", "/"), fileIngressYAML("a2", "a2.example.com", "/"), fileIngressYAML("a3", "a3.example.com", "/")))
	sc := newFileScan(dir, FileSourceOptions{})
	before := scanExpect(t, sc, "first read", 1, true, "a1", "a2", "a3").snapshot.Ingresses
	write(t, a, docs(fileIngressYAML("a0", "a0.example.com", "/"), fileIngressYAML("a1", "a1.example.com", "/"), fileIngressYAML("a2", "a2.example.com", "/edited"), fileIngressYAML("a3", "a3.example.com", "/")))
	after := scanExpect(t, sc, "after the edit", 1, true, "a0", "a1", "a2", "a3").snapshot.Ingresses
	if after[1] != before[0] || after[3] != before[2] {
		t.Errorf("a1, a3 unchanged: kept %v, %v; want the same objects", after[1] == before[0], after[3] == before[2])
	}
	if after[2] == before[1] || after[2].Spec.Rules[0].HTTP.Paths[0].Path != "/edited" {
		t.Errorf("a2 edited: the same object %v, path %q", after[2] == before[1], after[2].Spec.Rules[0].HTTP.Paths[0].Path)
	}
}
