package e2e

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/specialfiles"
)

// The real binary on a directory where named pipes, a socket and a link to
// /dev/zero are named like manifests (issue 11: a FIFO hung the reader for
// good, health stayed 200, SIGTERM no longer stopped the controller and
// SIGKILL left nginx running): they are left out, a later manifest is
// still served, and SIGTERM stops the controller and nginx.
func TestFilesControllerBinaryWithNamedPipes(t *testing.T) {
	hb := startHeldBackend(t)
	bc := startBinController(t, hb, "--shutdown-grace-period", "0")
	manifests := filepath.Join(filepath.Dir(bc.prefix), "manifests")
	specialfiles.Fifo(t, filepath.Join(manifests, "fifo.yaml"))
	specialfiles.Fifo(t, filepath.Join(manifests, "sub.json"))
	specialfiles.DevZero(t, filepath.Join(manifests, "zero.yaml"))
	specialfiles.Socket(t, filepath.Join(manifests, "sock.yaml"))
	// A manifest written after them is read and served.
	if err := os.WriteFile(filepath.Join(manifests, "later.yaml"), []byte(filesIngress("later", "later.example.com", nil, "/", "held")), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "later.example.com served", func() bool {
		return bc.status("http://127.0.0.1:"+strconv.Itoa(bc.httpPort)+"/fast", "later.example.com") == http.StatusOK
	})
	if code := bc.readyz(); code != http.StatusOK {
		t.Errorf("/readyz %d", code)
	}

	master := bc.masterPid(t)
	if err := bc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := bc.waitExit(t, 30*time.Second); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	if err := syscall.Kill(master, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the nginx master %d still runs after the controller exited (%v)", master, err)
	}
}
