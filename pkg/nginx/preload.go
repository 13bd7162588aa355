package nginx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The preload files under the prefix (lua/CONTRACT.md): the payloads that
// init_by_lua (configuration.init, in the master) loads into the shared
// dicts that are empty when it runs.
const (
	preloadDir      = "preload"
	preloadBackends = "preload/backends.json"
	preloadServers  = "preload/servers.json"
	preloadRoutes   = "preload/routes.json"
)

// Preload writes the Lua payloads that the next Start or Reload begins
// with: backends and servers are the JSON bodies of POST
// /configuration/backends and /configuration/servers. The master loads
// them, through the checks of a POST, into each shared dict that holds
// nothing yet: every dict at a start, and a dict whose size the reload
// changed (nginx gives it a new, empty zone). So the workers serve the
// backends and certificates from their first request, before anything is
// posted. A nil payload removes its file. The files hold private keys:
// they are readable by their owner only.
func (in *Instance) Preload(ctx context.Context, backends, servers []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nginx: preload: %w", err)
	}
	if err := os.MkdirAll(in.path(preloadDir), 0o700); err != nil {
		return fmt.Errorf("nginx: preload: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{preloadBackends, backends}, {preloadServers, servers}} {
		if f.data == nil {
			if err := os.Remove(in.path(f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("nginx: preload: %w", err)
			}
			continue
		}
		if err := writeAtomic(in.path(f.name), f.data, 0o600); err != nil {
			return fmt.Errorf("nginx: preload: %w", err)
		}
	}
	return nil
}

// clearPreload removes the preload files of an earlier run, which would
// otherwise be loaded by a Start that no Preload preceded.
func (in *Instance) clearPreload() error {
	for _, name := range []string{preloadBackends, preloadServers, preloadRoutes} {
		if err := os.Remove(in.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("nginx: layout: %w", err)
		}
	}
	return nil
}

// PreloadRoutes writes the route payload of the Lua router (--routing=lua)
// that the next Start or Reload begins with: write writes the JSON body of
// POST /configuration/routes (pkg/luaapi's WriteRoutesUpdate), straight into the
// file (at 100,000 hosts about 90 MB that the controller need not hold).
// The master loads it into routes_data when that dict holds nothing yet (a
// start, or a reload that resized it), so the Lua-routed hosts are served
// from the first request. It returns what opens the file for reading, to
// post the same bytes once nginx runs. A nil write removes the file
// (classic routing) and returns nil.
func (in *Instance) PreloadRoutes(ctx context.Context, write func(io.Writer) error) (func() (io.ReadCloser, int64, error), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nginx: preload: %w", err)
	}
	path := in.path(preloadRoutes)
	if write == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("nginx: preload: %w", err)
		}
		return nil, nil
	}
	if err := os.MkdirAll(in.path(preloadDir), 0o700); err != nil {
		return nil, fmt.Errorf("nginx: preload: %w", err)
	}
	if err := writeAtomicWith(path, write, 0o600, nil); err != nil {
		return nil, err // "nginx: write PATH: …"
	}
	return openFile(path), nil
}

// openFile opens path for a post of its content: the file and its size.
func openFile(path string) func() (io.ReadCloser, int64, error) {
	return func() (io.ReadCloser, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, err
		}
		return f, fi.Size(), nil
	}
}
