// Package specialfiles makes, for tests, the directory entries that a
// manifest reader must leave out rather than read (a named pipe blocks an
// open, /dev/zero never ends, a socket does not open), and tells whether
// the system grants the read leases with which the reader keeps a file
// being written out of a read.
//
// It is a test helper: only _test.go files import it, never product code.
package specialfiles

import (
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// Fifo makes a named pipe at path; the test is skipped where the file
// system has none.
func Fifo(t testing.TB, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system")
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// DevZero makes path a symbolic link to /dev/zero (a character device
// that reads without end).
func DevZero(t testing.TB, path string) {
	t.Helper()
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
}

// Socket makes a Unix socket at path, listening until the test ends.
func Socket(t testing.TB, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// LeasesWork tells whether this system grants a read lease on a file of
// the test's (Linux's F_SETLEASE; never elsewhere).
func LeasesWork(t testing.TB) bool {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "probe")
	if err != nil {
		t.Fatal(err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return setReadLease(f.Fd()) == nil
}
