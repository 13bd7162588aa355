package manifest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
)

// within runs f and fails the test when it does not return in time (a
// read that hangs on a pipe or a device), so that the test never hangs.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s", what)
		panic("unreachable")
	}
}

type readResult struct {
	res *Result
	err error
}

func readWithin(t *testing.T, paths []string, o Options) (*Result, error) {
	t.Helper()
	r := within(t, "Read", func() readResult {
		res, err := Read(paths, o)
		return readResult{res, err}
	})
	return r.res, r.err
}

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"

// A named pipe, a socket and a link to /dev/zero named like manifests are
// left out of a directory, and named in the summary; nothing waits.
func TestReadSkipsFilesThatAreNotRegular(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": configMap})
	specialfiles.Fifo(t, filepath.Join(dir, "fifo.yaml"))
	specialfiles.DevZero(t, filepath.Join(dir, "zero.yaml"))
	specialfiles.Socket(t, filepath.Join(dir, "sock.json"))
	if err := os.Symlink("user@host.1234", filepath.Join(dir, ".#a.yaml")); err != nil { // an editor's lock
		t.Fatal(err)
	}

	res, err := readWithin(t, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "a.yaml")}; !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files %q, want %q", res.Files, want)
	}
	want := []SkippedFile{
		{Path: filepath.Join(dir, ".#a.yaml"), Kind: "a link to nothing"},
		{Path: filepath.Join(dir, "fifo.yaml"), Kind: "a named pipe"},
		{Path: filepath.Join(dir, "sock.json"), Kind: "a socket"},
		{Path: filepath.Join(dir, "zero.yaml"), Kind: "a character device"},
	}
	if !reflect.DeepEqual(res.SkippedFiles, want) {
		t.Errorf("skipped %+v, want %+v", res.SkippedFiles, want)
	}
	if got := res.Summary(); !strings.HasSuffix(got, "; left out 4 files that are not regular files: "+
		filepath.Join(dir, ".#a.yaml")+" (a link to nothing), "+filepath.Join(dir, "fifo.yaml")+" (a named pipe), "+filepath.Join(dir, "sock.json")+" (a socket), "+filepath.Join(dir, "zero.yaml")+" (a character device)") {
		t.Errorf("summary %q", got)
	}
}

// A named pipe or a device given on its own is an error that names it, at
// once.
func TestReadRefusesAPathThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	specialfiles.Fifo(t, fifo)
	zero := filepath.Join(dir, "zero.yaml")
	specialfiles.DevZero(t, zero)
	for path, kind := range map[string]string{fifo: "a named pipe", zero: "a character device"} {
		_, err := readWithin(t, []string{path}, Options{})
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Path != path {
			t.Fatalf("%s: error %v, want a *NotRegularError naming it", path, err)
		}
		if want := path + " is " + kind + ", not a regular file"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want it to start with %q", err, want)
		}
		r := within(t, "ReadFile", func() readResult {
			_, err := ReadFile(path, FileOptions{})
			return readResult{err: err}
		})
		if !errors.As(r.err, &nr) {
			t.Errorf("ReadFile(%s): %v, want a *NotRegularError", path, r.err)
		}
	}
}

func TestReadLimitsTheSize(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": configMap})
	path := filepath.Join(dir, "a.yaml")
	if _, err := Read([]string{path}, Options{MaxFileSize: int64(len(configMap))}); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	_, err := Read([]string{dir}, Options{MaxFileSize: int64(len(configMap)) - 1})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Path != path {
		t.Fatalf("error %v, want a *TooLargeError naming %s", err, path)
	}
	if want := path + " is larger than 50 bytes, the limit of a manifest file (--max-manifest-size)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	// The limit holds for what is read, not only for what Stat says: files
	// of /proc are regular, say they have 0 bytes, and have more.
	link := filepath.Join(dir, "proc.yaml")
	if err := os.Symlink("/proc/self/status", link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(link); err != nil || fi.Size() != 0 {
		t.Skipf("/proc/self/status: %v (size %v): no file that grows past its Stat here", err, fi)
	}
	if _, err := ReadFile(link, FileOptions{MaxSize: 16}); !errors.As(err, &tl) {
		t.Errorf("reading past the limit: %v", err)
	}
}

// Standard input is limited too: an endless stream ends in an error, not
// in running out of memory.
func TestReadLimitsStdin(t *testing.T) {
	_, err := readWithin(t, []string{"-"}, Options{Stdin: zeroes{}, MaxFileSize: 1 << 20})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Path != "standard input" {
		t.Errorf("error %v, want a *TooLargeError of standard input", err)
	}
}

// zeroes is an endless reader, as /dev/zero.
type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

var _ io.Reader = zeroes{}

// A file open for writing (truncated, being written) is not read while
// NotWhileWritten; once closed, it is.
func TestReadFileNotWhileWritten(t *testing.T) {
	if !specialfiles.LeasesWork(t) {
		t.Skip("this system grants no read leases: files are read as they are")
	}
	path := filepath.Join(t.TempDir(), "a.yaml")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("apiVersion: v1\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path, FileOptions{NotWhileWritten: true}); !errors.Is(err, ErrBeingWritten) {
		t.Errorf("error %v, want ErrBeingWritten", err)
	}
	if data, err := ReadFile(path, FileOptions{}); err != nil || string(data) != "apiVersion: v1\n" {
		t.Errorf("without NotWhileWritten: %q, %v", data, err)
	}
	if _, err := w.WriteString("kind: ConfigMap\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, FileOptions{NotWhileWritten: true}); err != nil || string(data) != "apiVersion: v1\nkind: ConfigMap\n" {
		t.Errorf("after the close: %q, %v", data, err)
	}
}

// Parse keeps the objects before a file's error; Combine reports it after
// them, and may combine the same parsed files again.
func TestParseAndCombine(t *testing.T) {
	files := Parse([]Data{
		{Name: "a.yaml", Bytes: []byte(configMap)},
		{Name: "b.yaml", Bytes: []byte("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: x}\n---\nkind: Service\n")},
		{Name: "c.yaml", Bytes: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: t}\nstringData: {k: v}\n")},
	}, Options{DefaultNamespace: "ns"})
	if files[0].Err != nil || files[2].Err != nil {
		t.Fatalf("errors %v, %v", files[0].Err, files[2].Err)
	}
	if files[1].Err == nil || !strings.HasPrefix(files[1].Err.Error(), "b.yaml: document 2: ") || files[1].Objects() != 1 {
		t.Fatalf("b.yaml: %v with %d objects", files[1].Err, files[1].Objects())
	}
	if _, err := Combine(files); err != files[1].Err {
		t.Errorf("Combine: %v, want b.yaml's error", err)
	}
	good := []*File{files[0], files[2]}
	first, err := Combine(good)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Secret ns/t", "ConfigMap ns/c"}; !reflect.DeepEqual(names(first.Snapshot), want) {
		t.Errorf("objects %q, want %q", names(first.Snapshot), want)
	}
	if string(first.Snapshot.Secrets[0].Data["k"]) != "v" || first.Snapshot.Secrets[0].StringData != nil {
		t.Errorf("stringData not merged: %+v", first.Snapshot.Secrets[0])
	}
	if !reflect.DeepEqual(first.Skipped, map[string]int{"apps/v1/Deployment": 1}) || !reflect.DeepEqual(first.Files, []string{"a.yaml", "c.yaml"}) {
		t.Errorf("skipped %v, files %q", first.Skipped, first.Files)
	}
	again, err := Combine([]*File{files[2], files[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Snapshot, first.Snapshot) {
		t.Error("combining the same files again gives another snapshot")
	}
	if _, err := Combine([]*File{files[0], files[0]}); err == nil || !strings.Contains(err.Error(), "ConfigMap ns/c is defined twice") {
		t.Errorf("the same file twice: %v", err)
	}
}

// FormatSize writes a Kubernetes quantity, as --max-manifest-size takes
// it; the size error says the limit the same way ("bytes" after a plain
// number).
func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		100: "100", 1500: "1500", 1024: "1Ki", 1536: "1536", 64 << 20: "64Mi", 3 << 30: "3Gi", 1e9: "1G", 1e6: "1M",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for limit, want := range map[int64]string{
		64 << 20: "in.yaml is larger than 64Mi, the limit of a manifest file (--max-manifest-size)",
		100:      "in.yaml is larger than 100 bytes, the limit of a manifest file (--max-manifest-size)",
	} {
		if got := (&TooLargeError{Path: "in.yaml", Limit: limit}).Error(); got != want {
			t.Errorf("limit %d: %q, want %q", limit, got, want)
		}
	}
}
