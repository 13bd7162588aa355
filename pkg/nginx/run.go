package nginx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

const (
	pollMin = 5 * time.Millisecond
	pollMax = 100 * time.Millisecond
	// pollTimeout bounds one checksum request.
	pollTimeout = 500 * time.Millisecond
	// logTail is how much of logs/error.log an error quotes.
	logTail = 4 << 10
)

// ErrRejected is wrapped by the error of a Reload that passed `nginx -t` but
// that the master refused ([emerg] in its log, such as a port in use): the
// old config still serves and nginx.conf holds it again. Start wraps it too
// when the new master logs [emerg].
var ErrRejected = errors.New("nginx rejected the new config")

// Start tests conf, writes it as nginx.conf, starts the master in the
// foreground (`nginx -p PREFIX/ -c PREFIX/nginx.conf -e logs/error.log -g
// "daemon off;"`) as a child process, and waits until the status server
// answers the checksum of conf and the master has a worker. Before
// starting, it ends the nginx processes that a master which died left
// under the prefix (see leftovers): they would hold the ports. The master
// loads the payloads of the last Preload into its shared dicts before its
// workers accept a connection. ctx bounds the start, not the life of the
// process. If the master exits first, or
// ctx ends, the error quotes the end of logs/error.log and any master left
// running is ended.
func (in *Instance) Start(ctx context.Context, conf []byte) error {
	in.op.Lock()
	defer in.op.Unlock()
	if p := in.current(); p != nil && !p.exited() {
		return fmt.Errorf("nginx: start: already running as pid %d", p.cmd.Process.Pid)
	}
	if err := in.test(ctx, conf); err != nil {
		return err
	}
	// Workers of a master that died hold the listening sockets and would
	// answer the checksum of their config: end them first.
	in.endLeftovers()
	if err := writeAtomic(in.ConfPath(), conf, 0o644); err != nil {
		return err
	}
	logOffset := fileSize(in.errorLogPath())
	cmd := exec.Command(in.binary, "-p", in.prefixArg(), "-c", in.ConfPath(),
		"-e", errorLogName, "-g", "daemon off;")
	cmd.Dir = in.prefix
	output := newTail(logTail)
	cmd.Stdout, cmd.Stderr = also(output, in.stdout), also(output, in.stderr)
	// The workers inherit the output pipe: do not wait for them after the
	// master is gone.
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("nginx: start: %w", err)
	}
	p := &process{cmd: cmd, output: output, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	in.mu.Lock()
	in.proc = p
	in.mu.Unlock()

	// A non-nil empty list: the master must have forked a worker, so that
	// an answer of a process that is not this master's does not count.
	if err := in.waitServing(ctx, p, Checksum(conf), []int{}, mark{log: logOffset}); err != nil {
		if !p.exited() {
			p.terminate()
		}
		return fmt.Errorf("nginx: start: %w", err)
	}
	return nil
}

// Reload tests conf and, if nginx accepts it, swaps nginx.conf atomically,
// sends SIGHUP to the master and waits until new workers serve it: the
// checksum answers md5(conf) and the master has children it did not have
// before. A config that fails the test leaves nginx.conf and the running
// nginx untouched (*TestError). If the master refuses the config anyway
// ([emerg] in the log, e.g. a port in use), the previous nginx.conf is put
// back and the error wraps ErrRejected and quotes the log. When ctx ends
// first, nginx.conf holds conf and the master may still be loading it.
// Reload with the same conf re-reads the files it names (such as the default
// certificate).
func (in *Instance) Reload(ctx context.Context, conf []byte) error {
	in.op.Lock()
	defer in.op.Unlock()
	p := in.current()
	if p == nil || p.exited() {
		return errors.New("nginx: reload: not running")
	}
	if err := in.test(ctx, conf); err != nil {
		return err
	}
	previous, readErr := os.ReadFile(in.ConfPath())
	if err := writeAtomic(in.ConfPath(), conf, 0o644); err != nil {
		return err
	}
	old, err := childPids(p.cmd.Process.Pid)
	if err != nil {
		old = nil // cannot tell new workers from old: rely on the checksum
	}
	before := in.mark(p)
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return fmt.Errorf("nginx: reload: %w", err)
	}
	err = in.waitServing(ctx, p, Checksum(conf), old, before)
	if errors.Is(err, ErrRejected) && readErr == nil {
		if werr := writeAtomic(in.ConfPath(), previous, 0o644); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if err != nil {
		return fmt.Errorf("nginx: reload: %w", err)
	}
	return nil
}

// mark is where the output of the master and logs/error.log stood before a
// start or reload.
type mark struct {
	output int64
	log    int64
}

func (in *Instance) mark(p *process) mark {
	return mark{output: p.output.Written(), log: fileSize(in.errorLogPath())}
}

// waitServing polls the checksum until it equals want and, when old is not
// nil, the master has a child not in old. It fails when the master exits,
// when its output or logs/error.log says after mark that the master
// refused the config (ErrRejected, see refused), or when ctx ends.
func (in *Instance) waitServing(ctx context.Context, p *process, want string, old []int, mark mark) error {
	delay := pollMin
	var last string
	var lastErr error
	for {
		got, err := in.checksum(ctx)
		last, lastErr = got, err
		if err == nil && got == want && hasNew(p.cmd.Process.Pid, old) {
			return nil
		}
		if logged := readFrom(in.errorLogPath(), mark.log, logTail); refused(logged) {
			return fmt.Errorf("%w:\n%s", ErrRejected, strings.TrimSpace(logged))
		}
		if out := p.output.Since(mark.output); refused(out) {
			// At start-up nginx also prints to stderr.
			return fmt.Errorf("%w:\n%s", ErrRejected, strings.TrimSpace(out))
		}
		timer := time.NewTimer(delay)
		select {
		case <-p.done:
			timer.Stop()
			return fmt.Errorf("nginx exited (%v) before serving:\n%s", p.err, in.quote(p, mark))
		case <-ctx.Done():
			timer.Stop()
			state := fmt.Sprintf("checksum %q", last)
			if lastErr != nil {
				state = lastErr.Error()
			}
			return fmt.Errorf("waiting for checksum %s (last: %s): %w\n%s", want, state, ctx.Err(), in.quote(p, mark))
		case <-timer.C:
		}
		delay = min(2*delay, pollMax)
	}
}

// refused tells whether nginx's log says that the master gave up loading
// a config: an [emerg] line, or an init_by_lua error (which nginx -t does
// not catch: it does not run init_by_lua).
//
// Only nginx's own level and message start count, line by line: a client
// can put "[emerg]" anywhere in a line nginx logs about its request (the
// request line is quoted there), never at the start of a line or of its
// message, so no request can make a good reload look refused.
func refused(logged string) bool {
	for line := range strings.SplitSeq(logged, "\n") {
		level, msg, ok := splitLogLine(line)
		if ok && (level == "emerg" || strings.HasPrefix(msg, "init_by_lua error")) {
			return true
		}
	}
	return false
}

// splitLogLine reads the level and the message of an nginx log line:
// "2026/12/03 21:09:20 [emerg] 7949#7949: MESSAGE" (logs/error.log) or
// "nginx: [emerg] MESSAGE" (what the master prints at start-up).
func splitLogLine(line string) (level, msg string, ok bool) {
	rest, printed := strings.CutPrefix(line, "nginx: ")
	if !printed {
		// "YYYY/MM/DD HH:MM:SS "
		if len(line) < 20 || line[4] != '/' || line[7] != '/' || line[10] != ' ' || line[13] != ':' || line[16] != ':' || line[19] != ' ' {
			return "", "", false
		}
		rest = line[20:]
	}
	if !strings.HasPrefix(rest, "[") {
		return "", "", false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return "", "", false
	}
	level, msg = rest[1:end], strings.TrimPrefix(rest[end+1:], " ")
	if !printed {
		// "PID#TID: "
		pid, after, found := strings.Cut(msg, ": ")
		if !found || !isPidTid(pid) {
			return "", "", false
		}
		msg = after
	}
	return level, msg, true
}

// isPidTid tells whether v is nginx's "PID#TID".
func isPidTid(v string) bool {
	pid, tid, found := strings.Cut(v, "#")
	return found && isDigits(pid) && isDigits(tid)
}

func isDigits(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// quote returns what the master printed and the end of logs/error.log since
// mark, for an error message.
func (in *Instance) quote(p *process, mark mark) string {
	var b strings.Builder
	if out := strings.TrimSpace(p.output.Since(mark.output)); out != "" {
		b.WriteString(out)
		b.WriteString("\n")
	}
	if logged := strings.TrimSpace(readFrom(in.errorLogPath(), mark.log, logTail)); logged != "" {
		b.WriteString(errorLogName + ":\n" + logged)
	}
	return strings.TrimSpace(b.String())
}

// hasNew tells whether master has a child not in old (true when old is nil
// or /proc cannot tell).
func hasNew(master int, old []int) bool {
	if old == nil {
		return true
	}
	now, err := childPids(master)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(now, func(pid int) bool { return !slices.Contains(old, pid) })
}

// checksum asks the status server which config its workers run.
func (in *Instance) checksum(ctx context.Context) (string, error) {
	// A short timeout per attempt: a socket that nginx bound but does not
	// serve yet (it is still binding the others) accepts and stays silent.
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(in.statusURL, "/")+"/configuration/checksum", nil)
	if err != nil {
		return "", err
	}
	resp, err := in.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %s", resp.Status)
	}
	return strings.TrimSpace(string(body)), nil
}

// also is w, and besides it other when not nil.
func also(w, other io.Writer) io.Writer {
	if other == nil {
		return w
	}
	return io.MultiWriter(w, other)
}
