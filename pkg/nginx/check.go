package nginx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// TestError is returned by Test (and so by Start and Reload) when nginx
// rejects a config; Output is what `nginx -t` printed.
type TestError struct {
	Output string
	Err    error
	// Message is nginx's first error, without its "nginx: [emerg] " prefix
	// and its " in FILE:LINE" suffix (see ParseTestOutput).
	Message string
	// Line is the line of the tested config that the error names, 1-based;
	// 0 when it names none (an error of the whole config, such as the
	// server name hash) or another file.
	Line int
}

func (e *TestError) Error() string {
	if p := MissingPackage(e.Output); p != "" {
		return fmt.Sprintf("nginx -t: %v: %s (Debian's package %s is not installed)", e.Err, e.Output, p)
	}
	return fmt.Sprintf("nginx -t: %v: %s", e.Err, e.Output)
}

func (e *TestError) Unwrap() error { return e.Err }

// Test checks conf with `nginx -t` as it would run under the prefix: it
// writes conf beside the live nginx.conf (nginx.conf.test-*, removed after),
// so relative paths resolve the same way. Layout must have run (the config
// loads the Lua modules). A rejected config is a *TestError holding nginx's
// own message; the live nginx.conf is never touched. Test waits for a Start
// or Reload in progress (they share logs/error.log, which a reload watches).
func (in *Instance) Test(ctx context.Context, conf []byte) error {
	in.op.Lock()
	defer in.op.Unlock()
	return in.test(ctx, conf)
}

// test is Test for callers that hold in.op.
func (in *Instance) test(ctx context.Context, conf []byte) error {
	f, err := os.CreateTemp(in.prefix, confName+".test-*")
	if err != nil {
		return fmt.Errorf("nginx: test: %w", err)
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.Write(conf)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("nginx: test: write %s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, in.binary, "-t", "-p", in.prefixArg(), "-c", name, "-e", errorLogName)
	cmd.Dir = in.prefix
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("nginx: test: %w", ctx.Err())
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return fmt.Errorf("nginx: test: %w", err)
		}
		output := strings.TrimSpace(out.String())
		te := &TestError{Output: output, Err: err}
		var file string
		te.Message, file, te.Line = ParseTestOutput(output)
		te.Message = withMissingPackage(te.Message)
		if file != name {
			te.Line = 0
		}
		return te
	}
	return nil
}
