package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
)

// Named pipes, sockets and links to devices named like manifests are left
// out with a log line, at the start and later; nothing waits on them (the
// first read ends, later changes are read, Run ends with its context:
// runFileSourceWith checks both within 10 s).
func TestFileSourceLeavesOutFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.yaml"), app{ports: []int{1}, paths: []string{"/"}}.yaml())
	specialfiles.Fifo(t, filepath.Join(dir, "fifo.yaml"))
	fs, _, logs := runFileSource(t, dir)
	if !hasIngress(fs, "app") {
		t.Fatal("the regular file was not read")
	}
	specialfiles.DevZero(t, filepath.Join(dir, "zero.yaml"))
	specialfiles.Socket(t, filepath.Join(dir, "sock.json"))
	specialfiles.Fifo(t, filepath.Join(dir, "sub.yaml"))
	marker(t, fs, dir, 1)
	out := logs.String()
	for file, kind := range map[string]string{"fifo.yaml": "a named pipe", "zero.yaml": "a character device", "sock.json": "a socket", "sub.yaml": "a named pipe"} {
		line := fmt.Sprintf(`"Left out an entry that is not a regular file" dir=%q file=%q kind=%q`, dir, filepath.Join(dir, file), kind)
		if n := strings.Count(out, line); n != 1 {
			t.Errorf("%s logged %d times, want once:\n%s", file, n, out)
		}
	}
	if fs.LastError() != "" {
		t.Errorf("errors: %s", fs.LastError())
	}
}

// A file larger than MaxFileSize is not read: it keeps its last good
// version, with an error naming it.
func TestFileSourceLimitsTheFileSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	small := fileIngressYAML("small", "a.example.com", "/")
	write(t, path, small)
	fs, _, _ := runFileSourceWith(t, dir, FileSourceOptions{MaxFileSize: int64(len(small)) + 100})
	if !hasIngress(fs, "small") {
		t.Fatal("the file was not read")
	}
	write(t, path, fileIngressYAML("large", "a.example.com", "/"+strings.Repeat("x", 200)))
	eventually(t, 5*time.Second, "the size error", func() bool {
		return strings.Contains(fs.LastError(), path+" is larger than ")
	})
	if !hasIngress(fs, "small") || hasIngress(fs, "large") {
		t.Error("the snapshot does not hold the last good version")
	}
}

// A file rewritten in place (truncated, then written in two parts) is
// never read empty or half-written: while the writer has it open, every
// snapshot keeps its last good version. Each rewrite waits until the
// source has tried to read the file empty, then half-written, so every one
// of them is a real race that the source had to win.
func TestFileSourceInPlaceRewrite(t *testing.T) {
	if !specialfiles.LeasesWork(t) {
		t.Skip("this system grants no read leases: a file rewritten in place is read as it is")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	version := func(n int) string {
		return app{ports: []int{1}, paths: []string{"/"}}.yaml() + "---\n" + fileIngressYAML(fmt.Sprintf("v%d", n), "v.example.com", "/")
	}
	write(t, path, version(0))

	fs, err := NewFileSource(dir, FileSourceOptions{Debounce: time.Millisecond, MaxDelay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(),
		textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(logs), textlogger.Verbosity(1)))))
	var bad atomic.Int64 // snapshots without the untouched Ingress, or with none of the versions
	done := make(chan error, 1)
	go func() {
		done <- fs.Run(ctx, func() {
			s, _ := fs.Snapshot()
			if len(s.Ingresses) != 2 || s.Ingresses[0].Name != "app" {
				bad.Add(1)
			}
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if !fs.WaitForSync(ctx) || !hasIngress(fs, "v0") {
		t.Fatal("no first read")
	}

	const rewrites = 20
	for n := 1; n <= rewrites; n++ {
		content := version(n)
		half := len(content) / 2
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Empty, then half-written: the source tries to read each.
		for _, part := range []string{"", content[:half]} {
			busy := strings.Count(logs.String(), "A manifest file is open for writing")
			if _, err := f.WriteString(part); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, "a read of the file being written", func() bool {
				return strings.Count(logs.String(), "A manifest file is open for writing") > busy
			})
			if !hasIngress(fs, fmt.Sprintf("v%d", n-1)) {
				t.Fatalf("rewrite %d: the last good version left while the file had %d bytes", n, len(part))
			}
		}
		if _, err := f.WriteString(content[half:]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, fmt.Sprintf("version %d", n), func() bool { return hasIngress(fs, fmt.Sprintf("v%d", n)) })
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d snapshots lacked an Ingress during %d rewrites in place", n, rewrites)
	}
	if fs.LastError() != "" {
		t.Errorf("errors: %s", fs.LastError())
	}
}
