package nginx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// streamDir holds the stream payload files under the prefix, one per
// stream server or passthrough host, which lua/stream.js reads for every
// new stream connection (see lua/STREAM.md).
const streamDir = "stream"

// WriteStream makes $prefix/stream/ hold exactly files (name → content):
// each file that differs is replaced atomically (a connection reads the
// old or the new content, never a part), the other *.json files are
// removed; nil removes them all. Running stream servers use the files
// from their next connection on: no reload. A name must be a plain
// "*.json" file name.
func (in *Instance) WriteStream(ctx context.Context, files map[string][]byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nginx: write %s/: %w", streamDir, err)
	}
	dir := in.path(streamDir)
	names := make([]string, 0, len(files))
	for name := range files {
		if !validStreamName(name) {
			return fmt.Errorf("nginx: write %s/: invalid file name %q", streamDir, name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	if len(files) > 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("nginx: write %s/: %w", streamDir, err)
		}
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := writeAtomic(path, files[name], 0o644); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("nginx: write %s/: %w", streamDir, err)
	}
	for _, e := range entries {
		if _, keep := files[e.Name()]; keep || !validStreamName(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("nginx: write %s/: %w", streamDir, err)
		}
	}
	return nil
}

// validStreamName accepts "x.json" names that stay in the directory.
func validStreamName(name string) bool {
	return strings.HasSuffix(name, ".json") && len(name) > len(".json") &&
		!strings.HasPrefix(name, ".") && !strings.ContainsAny(name, "/\\\x00")
}
