package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
)

// runCmdWithin is runCmd that fails the test when the command does not
// end within 20 s (a read that waits on a pipe for ever).
func runCmdWithin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCmd(t, stdin, args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(20 * time.Second):
		t.Fatalf("%q did not end within 20 s", args)
		return 0, "", ""
	}
}

// A named pipe given with -f is an error that names it, at once; in a
// directory it is left out and the summary says so.
func TestRenderNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	specialfiles.Fifo(t, fifo)
	code, out, errOut := runCmdWithin(t, "", "render", "-f", fifo)
	if code != exitFailure || out != "" || !strings.Contains(errOut, fifo+" is a named pipe, not a regular file") {
		t.Errorf("render -f FIFO: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(badAnnotationIngress), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmdWithin(t, "", "render", "-f", dir)
	if code != 0 || !strings.Contains(errOut, "left out 1 file that is not a regular file: "+fifo+" (a named pipe)") {
		t.Errorf("render -f DIR: exit %d, stderr %q", code, errOut)
	}
}

func TestRenderMaxManifestSize(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte(badAnnotationIngress), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "", "render", "-f", file, "--max-manifest-size", "1Ki"); code != 0 {
		t.Errorf("a file under the limit: exit %d: %s", code, errOut)
	}
	code, _, errOut := runCmd(t, "", "render", "-f", file, "--max-manifest-size", "100")
	if code != exitFailure || !strings.Contains(errOut, file+" is larger than 100 bytes, the limit of a manifest file (--max-manifest-size)") {
		t.Errorf("a file over the limit: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCmd(t, strings.Repeat("#", 2000), "render", "-f", "-", "--max-manifest-size", "1Ki")
	if code != exitFailure || !strings.Contains(errOut, "standard input is larger than 1Ki, the limit of a manifest file (--max-manifest-size)") {
		t.Errorf("stdin over the limit: exit %d, stderr %q", code, errOut)
	}
	// The help says the size as the errors do, and the flag reads back
	// what it writes.
	if _, out, _ := runCmd(t, "", "render", "--help"); !strings.Contains(out, "e.g. 64Mi; only regular files are read (default 64Mi)") {
		t.Errorf("render --help lacks the size limit's default as 64Mi:\n%s", out)
	}
	for _, n := range []int64{100, 1536, 1 << 10, 64 << 20, 1e9} {
		var got int64
		if err := (sizeValue{&got}).Set(sizeValue{&n}.String()); err != nil || got != n {
			t.Errorf("size %d written %q reads back as %d, %v", n, sizeValue{&n}.String(), got, err)
		}
	}
	for _, bad := range []string{"0", "-1", "lots", "0.5"} {
		for _, args := range [][]string{{"render", "-f", file}, {"controller", "--from-files", dir}} {
			code, _, errOut := runCmd(t, "", append(args, "--max-manifest-size", bad)...)
			if code != exitFailure || !strings.Contains(errOut, "--max-manifest-size") {
				t.Errorf("%s --max-manifest-size %s: exit %d, stderr %q", args[0], bad, code, errOut)
			}
		}
	}
}

// --status-address is refused as other flag errors are, by render and by
// the controller.
func TestStatusAddressFlag(t *testing.T) {
	dir := t.TempDir()
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:10246 ssl", ":0", "0.0.0.0:10246", "localhost:10246", "127.0.0.1:0"} {
		for _, args := range [][]string{
			{"render", "-f", "../../examples", "--status-address", addr},
			{"controller", "--from-files", dir, "--status-address", addr},
		} {
			code, out, errOut := runCmdWithin(t, "", args...)
			if code != exitFailure || out != "" || !strings.Contains(errOut, "--status-address must be a loopback IP and port such as 127.0.0.1:10246") || !strings.Contains(errOut, addr) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	}
}
