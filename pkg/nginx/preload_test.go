package nginx

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func appBackends(port string) []byte {
	return fmt.Appendf(nil, `[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}]`, port)
}

func serversJSON(t *testing.T, cn, host string) []byte {
	t.Helper()
	return fmt.Appendf(nil, `{"servers": {%q: "id"}, "certificates": {"id": %q}}`, host, pemFor(t, cn, host))
}

// proxyFresh sends n requests to backend, each on a new connection (so
// that both workers answer), and fails unless each is 200 with want.
func (e *env) proxyFresh(t *testing.T, backend, want string, n int) {
	t.Helper()
	for i := range n {
		e.client.CloseIdleConnections()
		if code, out := e.proxy(t, backend); code != http.StatusOK || out != want {
			t.Fatalf("request %d to %s: %d %q, want 200 %s", i, backend, code, out, want)
		}
	}
}

// TestNginxPreload: the master loads the preload payloads into empty
// dicts, so that the first request after a start or a resizing reload is
// served without a POST; a dict that survives a reload keeps what was
// posted.
func TestNginxPreload(t *testing.T) {
	e := layoutEnv(t)
	a, b := upstream(t, "A"), upstream(t, "B")
	if err := e.in.Preload(t.Context(), appBackends(a), serversJSON(t, "first", "a.example.com")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{preloadBackends, preloadServers} {
		if fi, err := os.Stat(e.in.path(name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", name, fi, err)
		}
	}
	conf := e.conf("")
	if err := e.in.Start(ctxFor(t, 20*time.Second), conf); err != nil {
		t.Fatal(err)
	}

	t.Run("a start serves the preload from the first request", func(t *testing.T) {
		e.proxyFresh(t, "app", "A", 4)
		if cn, _ := e.served(t, "a.example.com"); cn != "first" {
			t.Errorf("served %q, want the preloaded certificate", cn)
		}
		if _, got := e.api(t, http.MethodGet, "/configuration/backends", ""); got != string(appBackends(a)) {
			t.Errorf("GET backends = %s, want the preload byte for byte", got)
		}
	})

	t.Run("a reload keeps what was posted in a dict of the same size", func(t *testing.T) {
		if err := e.in.Preload(t.Context(), appBackends(b), serversJSON(t, "second", "a.example.com")); err != nil {
			t.Fatal(err)
		}
		next := e.conf("    # same dicts\n")
		if err := e.in.Reload(ctxFor(t, 20*time.Second), next); err != nil {
			t.Fatal(err)
		}
		e.proxyFresh(t, "app", "A", 4)
		if cn, _ := e.served(t, "a.example.com"); cn != "first" {
			t.Errorf("served %q, want the one in the surviving dict", cn)
		}
	})

	t.Run("a reload that resizes a dict fills it from the preload", func(t *testing.T) {
		// backends B in the preload (written above); only configuration_data
		// grows, the certificate dicts survive.
		resized := []byte(strings.Replace(string(e.conf("")), "lua_shared_dict configuration_data 4m;", "lua_shared_dict configuration_data 8m;", 1))
		if err := e.in.Reload(ctxFor(t, 20*time.Second), resized); err != nil {
			t.Fatal(err)
		}
		e.proxyFresh(t, "app", "B", 6)
		if cn, _ := e.served(t, "a.example.com"); cn != "first" {
			t.Errorf("served %q, want the one in the surviving certificate dict", cn)
		}
		log := readFrom(e.in.errorLogPath(), 0, 1<<20)
		if n := strings.Count(log, "preloaded backends from preload/backends.json"); n != 2 {
			t.Errorf("backends preloaded %d times, want 2 (start, resize)", n)
		}
		if n := strings.Count(log, "preloaded servers from preload/servers.json"); n != 1 {
			t.Errorf("servers preloaded %d times, want 1 (start)", n)
		}
		conf = resized
	})

	t.Run("a master started after a crash serves from the first request", func(t *testing.T) {
		if err := syscall.Kill(e.in.Pid(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-e.in.Done()
		if err := e.in.Preload(t.Context(), appBackends(a), serversJSON(t, "third", "a.example.com")); err != nil {
			t.Fatal(err)
		}
		if err := e.in.Start(ctxFor(t, 20*time.Second), conf); err != nil {
			t.Fatal(err)
		}
		e.proxyFresh(t, "app", "A", 6)
		if cn, _ := e.served(t, "a.example.com"); cn != "third" {
			t.Errorf("served %q, want the preloaded certificate", cn)
		}
	})

	t.Run("bad entries of a preload are dropped and logged", func(t *testing.T) {
		if err := syscall.Kill(e.in.Pid(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-e.in.Done()
		backends := fmt.Appendf(nil, `[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}, {"name": "ext", "endpoints": [{"address": "127.1", "port": "80"}]}]`, b)
		if err := e.in.Preload(t.Context(), backends, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(e.in.path(preloadServers)); !os.IsNotExist(err) {
			t.Errorf("a nil payload left %s: %v", preloadServers, err)
		}
		if err := e.in.Start(ctxFor(t, 20*time.Second), conf); err != nil {
			t.Fatal(err)
		}
		e.proxyFresh(t, "app", "B", 4)
		if !strings.Contains(readFrom(e.in.errorLogPath(), 0, 1<<20), "dropped backend ext: backends[1].endpoints[0].address: 127.1") {
			t.Error("the dropped backend is not in the error log")
		}
	})

	t.Run("Layout removes the preload of an earlier run", func(t *testing.T) {
		if err := e.in.Layout(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(e.in.path(preloadBackends)); !os.IsNotExist(err) {
			t.Errorf("%s after Layout: %v", preloadBackends, err)
		}
	})
}

// TestPreloadRoutesFile: PreloadRoutes writes what write writes into the
// preload file (owner-only), returns what reads it again, keeps the last
// file when write fails, and removes it for nil.
func TestPreloadRoutesFile(t *testing.T) {
	in := New(t.TempDir(), Options{})
	body := strings.Repeat(`{"host":"a.example.com"}`, 10000)
	open, err := in.PreloadRoutes(t.Context(), func(w io.Writer) error {
		for i := 0; i < len(body); i += 1000 {
			if _, err := io.WriteString(w, body[i:min(i+1000, len(body))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || open == nil {
		t.Fatalf("PreloadRoutes: %v, open %v", err, open != nil)
	}
	if fi, err := os.Stat(in.path(preloadRoutes)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v %v, want mode 0600", preloadRoutes, fi, err)
	}
	readBack := func() string {
		t.Helper()
		r, size, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := io.ReadAll(r)
		if err != nil || int64(len(got)) != size {
			t.Fatalf("read %d bytes of %d: %v", len(got), size, err)
		}
		return string(got)
	}
	if got := readBack(); got != body {
		t.Errorf("read back %d bytes, want the %d written", len(got), len(body))
	}
	failed := errors.New("encoding failed")
	if _, err := in.PreloadRoutes(t.Context(), func(w io.Writer) error {
		_, _ = io.WriteString(w, "{partial")
		return failed
	}); !errors.Is(err, failed) {
		t.Errorf("a failed write: %v, want its error", err)
	}
	if got := readBack(); got != body {
		t.Errorf("after a failed write the file holds %d bytes, want the last good %d", len(got), len(body))
	}
	if open, err := in.PreloadRoutes(t.Context(), nil); err != nil || open != nil {
		t.Errorf("nil: %v, open %v", err, open != nil)
	}
	if _, err := os.Stat(in.path(preloadRoutes)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nil write: the file is still there (%v)", err)
	}
}
