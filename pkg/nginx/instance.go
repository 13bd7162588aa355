package nginx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// DefaultStatusURL is the base URL of the status server that CONTRACT.md
// puts on loopback.
const DefaultStatusURL = "http://127.0.0.1:10246"

const (
	confName     = "nginx.conf"
	errorLogName = "logs/error.log"
	// killDelay is how long Stop waits after SIGTERM before SIGKILL.
	killDelay = 3 * time.Second
)

// Options configure an Instance. The zero value is usable.
type Options struct {
	// Binary is the nginx executable, "nginx" (looked up in PATH) when empty.
	Binary string
	// StatusURL is the base URL of the status server that Start and Reload
	// poll, DefaultStatusURL when empty. It must match the status server
	// of the configs given to Start and Reload.
	StatusURL string
	// Stdout and Stderr, when not nil, also get what the running master
	// and its workers write to their standard output and error (an access
	// log or error log at /dev/stdout or /dev/stderr, nginx's messages
	// before it opens its error log), besides the tail an error quotes:
	// the controller passes its own, so that such a log reaches `kubectl
	// logs`. A slow writer slows the workers that log.
	Stdout, Stderr io.Writer
}

// Instance is one nginx master process under a prefix directory. Its methods
// are safe for concurrent use; Start, Reload and Test run one at a time.
type Instance struct {
	prefix    string
	binary    string
	statusURL string
	client    *http.Client
	// stdout and stderr are Options.Stdout and Stderr.
	stdout, stderr io.Writer

	op sync.Mutex // serialises Start and Reload

	mu   sync.Mutex // guards proc
	proc *process
}

// process is one run of the master.
type process struct {
	cmd    *exec.Cmd
	output *tail // the master's stdout and stderr
	done   chan struct{}
	err    error // the exit error, set before done is closed
}

// New returns an Instance for the prefix directory (made absolute). It does
// nothing on disk: call Layout before Test or Start.
func New(prefix string, opts Options) *Instance {
	if abs, err := filepath.Abs(prefix); err == nil {
		prefix = abs
	}
	if opts.Binary == "" {
		opts.Binary = "nginx"
	}
	if opts.StatusURL == "" {
		opts.StatusURL = DefaultStatusURL
	}
	return &Instance{
		prefix:    filepath.Clean(prefix),
		binary:    opts.Binary,
		statusURL: opts.StatusURL,
		stdout:    opts.Stdout,
		stderr:    opts.Stderr,
		client: &http.Client{
			Timeout: 2 * time.Second,
			// One connection per poll: a kept-alive connection could stay
			// with an old worker that still answers the old checksum.
			Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		},
	}
}

// Prefix returns the absolute prefix directory.
func (in *Instance) Prefix() string { return in.prefix }

// ConfPath returns the path of the live nginx.conf.
func (in *Instance) ConfPath() string { return filepath.Join(in.prefix, confName) }

func (in *Instance) errorLogPath() string {
	return filepath.Join(in.prefix, filepath.FromSlash(errorLogName))
}

// prefixArg is the -p argument: nginx wants the trailing slash.
func (in *Instance) prefixArg() string {
	return in.prefix + string(filepath.Separator)
}

func (in *Instance) current() *process {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.proc
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pid returns the pid of the running master, 0 when none runs.
func (in *Instance) Pid() int {
	p := in.current()
	if p == nil || p.exited() {
		return 0
	}
	return p.cmd.Process.Pid
}

// Done returns a channel closed when the master started by the last Start
// has exited; nil (never ready) before the first Start.
func (in *Instance) Done() <-chan struct{} {
	p := in.current()
	if p == nil {
		return nil
	}
	return p.done
}

// Wait blocks until the master started by the last Start exits and returns
// its exit error (nil for a clean exit).
func (in *Instance) Wait() error {
	p := in.current()
	if p == nil {
		return errors.New("nginx: not started")
	}
	<-p.done
	return p.err
}

// WorkerPids returns the sorted pids of the master's children (its workers,
// and the cache manager or loader when configured), nil when no master runs.
// A reload replaces them all, so tests compare them to tell whether one
// happened.
func (in *Instance) WorkerPids() ([]int, error) {
	pid := in.Pid()
	if pid == 0 {
		return nil, nil
	}
	return childPids(pid)
}

// Stop asks the master to quit gracefully (SIGQUIT: finish the requests in
// flight) and waits. When ctx ends first it sends SIGTERM, then SIGKILL to
// the master and its workers after a short delay, and returns an error
// wrapping ctx.Err(). Stopping an Instance that does not run is a no-op.
// Stop does not wait for a Reload in progress: that Reload fails.
func (in *Instance) Stop(ctx context.Context) error {
	p := in.current()
	if p == nil || p.exited() {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
	}
	how := p.terminate()
	return fmt.Errorf("nginx: graceful stop did not finish, %s: %w", how, ctx.Err())
}

// terminate ends the master: SIGTERM, then SIGKILL to it and its workers
// when it is still there after killDelay. It says which was needed.
func (p *process) terminate() string {
	workers, _ := childPids(p.cmd.Process.Pid)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(killDelay)
	defer timer.Stop()
	select {
	case <-p.done:
		return "terminated"
	case <-timer.C:
	}
	_ = p.cmd.Process.Kill()
	for _, w := range workers {
		if proc, err := os.FindProcess(w); err == nil {
			_ = proc.Kill()
		}
	}
	<-p.done
	return "killed"
}
