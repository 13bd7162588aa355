package nginx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNginxReload(t *testing.T) {
	e := newEnv(t)
	a := upstream(t, "A")
	body := fmt.Sprintf(`[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %s}]}]`, a)
	if code, out := e.api(t, http.MethodPost, "/configuration/backends", body); code != http.StatusCreated {
		t.Fatalf("POST backends: %d %s", code, out)
	}
	checksum := func() string {
		t.Helper()
		code, out := e.api(t, http.MethodGet, "/configuration/checksum", "")
		if code != http.StatusOK {
			t.Fatalf("checksum: %d %s", code, out)
		}
		return out
	}
	live := e.conf("")

	t.Run("reload swaps config and workers", func(t *testing.T) {
		before := e.workers(t)
		next := e.conf("    # reloaded\n")
		if err := e.in.Reload(ctxFor(t, 20*time.Second), next); err != nil {
			t.Fatal(err)
		}
		if got := checksum(); got != Checksum(next) {
			t.Fatalf("checksum %s, want %s", got, Checksum(next))
		}
		if after := e.workers(t); slices.ContainsFunc(after, func(p int) bool { return slices.Contains(before, p) }) {
			t.Fatalf("old workers %v still there: %v", before, after)
		}
		// Backends live in the shared dict, which a reload keeps.
		if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
			t.Fatalf("after reload: %d %s", code, out)
		}
		live = next
	})

	t.Run("reload with the same config replaces the workers", func(t *testing.T) {
		before := e.workers(t)
		if err := e.in.Reload(ctxFor(t, 20*time.Second), live); err != nil {
			t.Fatal(err)
		}
		pids, err := e.in.WorkerPids()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(pids, func(p int) bool { return !slices.Contains(before, p) }) {
			t.Fatalf("no new worker after reload: before %v, now %v", before, pids)
		}
	})

	bad := e.conf("    no_such_directive on;\n")

	t.Run("Test returns nginx's message", func(t *testing.T) {
		err := e.in.Test(ctxFor(t, 10*time.Second), bad)
		var te *TestError
		if !errors.As(err, &te) || !strings.Contains(te.Output, `unknown directive "no_such_directive"`) {
			t.Fatalf("want a TestError quoting nginx, got %v", err)
		}
		if err := e.in.Test(ctxFor(t, 10*time.Second), live); err != nil {
			t.Fatalf("Test of the live config: %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(e.in.Prefix(), "nginx.conf.test-*")); len(left) != 0 {
			t.Fatalf("test files left behind: %v", left)
		}
	})

	t.Run("a failing reload keeps the running config", func(t *testing.T) {
		before := e.workers(t)
		err := e.in.Reload(ctxFor(t, 10*time.Second), bad)
		var te *TestError
		if !errors.As(err, &te) {
			t.Fatalf("want a TestError, got %v", err)
		}
		assertLive(t, e, live, before)
	})

	t.Run("a reload the master refuses puts the old file back", func(t *testing.T) {
		// nginx -t does not bind, so a busy port passes the test and fails
		// in the master.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		busy := e.conf(fmt.Sprintf("    server { listen %s; return 200; }\n", l.Addr()))
		before := e.workers(t)
		err = e.in.Reload(ctxFor(t, 10*time.Second), busy)
		if err == nil || !strings.Contains(err.Error(), "Address already in use") {
			t.Fatalf("want the bind error, got %v", err)
		}
		assertLive(t, e, live, before)
	})

	t.Run("a reload whose init_by_lua fails is refused at once", func(t *testing.T) {
		// nginx -t does not run init_by_lua; the master does at SIGHUP and
		// keeps the old cycle when it fails.
		file := filepath.Join(e.in.Prefix(), "lua", "configuration.lua")
		good, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("error(\"damaged by the test\")\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := os.WriteFile(file, good, 0o644); err != nil {
				t.Fatal(err)
			}
		}()
		err = e.in.Reload(ctxFor(t, 20*time.Second), e.conf("    # init fails\n"))
		if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "damaged by the test") {
			t.Fatalf("want ErrRejected quoting the Lua error, got %v", err)
		}
		// The master keeps its old cycle (it may start its workers
		// again): the old file is back and traffic still flows.
		if onDisk, err := os.ReadFile(e.in.ConfPath()); err != nil || !bytes.Equal(onDisk, live) {
			t.Errorf("nginx.conf on disk is not the live one (%v)", err)
		}
		if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
			t.Errorf("proxy after the refused reload: %d %s", code, out)
		}
	})
}

// assertLive checks that conf is on disk and serving, and no reload happened.
func assertLive(t *testing.T, e *env, conf []byte, workers []int) {
	t.Helper()
	onDisk, err := os.ReadFile(e.in.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, conf) {
		t.Errorf("nginx.conf changed on disk:\n%s", onDisk)
	}
	if code, out := e.api(t, http.MethodGet, "/configuration/checksum", ""); out != Checksum(conf) {
		t.Errorf("checksum: %d %s, want %s", code, out, Checksum(conf))
	}
	if now := e.workers(t); !slices.Equal(now, workers) {
		t.Errorf("workers changed from %v to %v", workers, now)
	}
	if code, out := e.proxy(t, "app"); code != http.StatusOK || out != "A" {
		t.Errorf("proxy: %d %s", code, out)
	}
}

func TestNginxStartFails(t *testing.T) {
	requireNginx(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := freePorts(t, 2)
	e := &env{http: l.Addr().(*net.TCPAddr).Port, https: p[0], status: p[1]}
	in := New(t.TempDir(), Options{StatusURL: e.statusURL()})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop(context.Background()) })
	err = in.Start(ctxFor(t, 20*time.Second), e.conf(""))
	if err == nil || !strings.Contains(err.Error(), "Address already in use") {
		t.Fatalf("want an error quoting the bind failure, got %v", err)
	}
	t.Log(err)
	select {
	case <-in.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the master still runs after a failed start")
	}
	if in.Pid() != 0 {
		t.Fatalf("Pid %d after a failed start", in.Pid())
	}
}

func TestNginxStop(t *testing.T) {
	e := newEnv(t)
	if err := e.in.Stop(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.in.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	if err := e.in.Wait(); err != nil {
		t.Fatalf("Wait after a graceful stop: %v", err)
	}
	if pids, err := e.in.WorkerPids(); err != nil || pids != nil {
		t.Fatalf("WorkerPids after Stop: %v %v", pids, err)
	}
	// The ports are free again.
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", e.status))
	if err != nil {
		t.Fatalf("status port still taken: %v", err)
	}
	l.Close()
	// A stopped instance starts again.
	if err := e.in.Start(ctxFor(t, 20*time.Second), e.conf("")); err != nil {
		t.Fatal(err)
	}
}

func TestNginxStartAfterTheMasterWasKilled(t *testing.T) {
	e := newEnv(t)
	orphans := e.workers(t)
	if err := syscall.Kill(e.in.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-e.in.Done()
	// The workers outlive their master and keep the ports.
	if got := alive(orphans); len(got) != 2 {
		t.Fatalf("orphaned workers %v, want the 2 of %v", got, orphans)
	}
	if got := e.in.leftovers(); !slices.Equal(got, orphans) {
		t.Fatalf("leftovers %v, want %v", got, orphans)
	}
	if err := e.in.Start(ctxFor(t, 20*time.Second), e.conf("")); err != nil {
		t.Fatal(err)
	}
	if got := alive(orphans); len(got) != 0 {
		t.Fatalf("orphans %v still run after Start", got)
	}
	if now := e.workers(t); slices.ContainsFunc(now, func(p int) bool { return slices.Contains(orphans, p) }) {
		t.Fatalf("workers %v include orphans %v", now, orphans)
	}
	if code, _ := e.api(t, http.MethodGet, "/configuration/checksum", ""); code != http.StatusOK {
		t.Fatalf("checksum: %d", code)
	}
}
