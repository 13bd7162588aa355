package controller

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Defaults of FileSourceOptions.
const (
	DefaultFileDebounce = 50 * time.Millisecond
	DefaultFileMaxDelay = time.Second
)

// FileSourceOptions configure a FileSource.
type FileSourceOptions struct {
	// DefaultNamespace is given to objects whose manifest names none
	// ("default" when empty, as kubectl).
	DefaultNamespace string
	// Debounce is the quiet time after the last file event before the
	// directory is read again, so that an editor's burst of writes,
	// renames and chmods is one read. MaxDelay bounds the wait while
	// events keep coming. A file that is open for writing when it is read
	// is read again after Debounce, then after twice as long, up to
	// MaxDelay, until it is closed.
	Debounce time.Duration
	MaxDelay time.Duration
	// MaxFileSize is the largest manifest file read (manifest's default,
	// 64 MiB, when 0).
	MaxFileSize int64
}

// FileSource is the Source of `--from-files DIR`: the manifests under a
// directory and its subdirectories, read again (debounced) whenever
// fsnotify reports a change of a manifest file (.yaml, .yml, .json) or a
// directory. Directories created later are watched too.
//
// Each file counts on its own (filesource_scan.go): a file that does not
// read or parse keeps its last good version until it changes again (the
// error is logged once, naming the file), a file that another process has
// open for writing (rewritten in place: truncated, then written) keeps its
// last good version until it is closed, and entries that are not regular
// files (named pipes, sockets, devices) are left out with a log line. So a
// half-written edit never drops a route, and nothing in the directory can
// make the source wait: reads run off the watch loop, and Run returns when
// ctx ends whatever a read does. A read costs what changed: files whose
// stat did not change are not read, and the snapshot is made from the
// last one.
type FileSource struct {
	dir  string
	opts FileSourceOptions

	// scan is the state of the reads, used by one read at a time.
	scan *fileScan

	mu      sync.RWMutex
	snap    render.Snapshot
	lastErr string // the errors of the last read, "" when every file read

	synced   chan struct{}
	syncOnce sync.Once
}

var _ Source = (*FileSource)(nil)

// NewFileSource returns a FileSource for dir, which must be a directory.
func NewFileSource(dir string, o FileSourceOptions) (*FileSource, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("files source: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("files source: %s is not a directory", dir)
	}
	setDefault(&o.Debounce, DefaultFileDebounce)
	setDefault(&o.MaxDelay, DefaultFileMaxDelay)
	return &FileSource{dir: dir, opts: o, scan: newFileScan(dir, o), synced: make(chan struct{})}, nil
}

// Run watches the directory tree, reads it once (then WaitForSync
// returns), and reads it again after every burst of changes, calling
// changed after each read that changed the snapshot, until ctx ends.
func (s *FileSource) Run(ctx context.Context, changed func()) error {
	log := klog.FromContext(ctx).WithValues("dir", s.dir)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("files source: %w", err)
	}
	defer w.Close()
	// Watch first, then read: a change between the two is read again.
	if err := s.watchTree(w, s.dir); err != nil {
		return err
	}

	var (
		timer   *time.Timer
		timerC  <-chan time.Time
		firstAt time.Time
		// One read at a time, on its own goroutine; again: a change came
		// while it ran. retry is the wait before reading a file that was
		// open for writing again.
		results = make(chan scanResult, 1)
		reading bool
		again   bool
		synced  bool
		retry   = s.opts.Debounce
	)
	startRead := func() {
		reading, again = true, false
		go func() { results <- s.read(log) }()
	}
	arm := func(now time.Time, wait time.Duration) {
		if timer == nil {
			firstAt = now
			timer = time.NewTimer(wait)
			timerC = timer.C
			return
		}
		wait = min(wait, firstAt.Add(s.opts.MaxDelay).Sub(now))
		timer.Reset(max(wait, 0))
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	startRead()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("files source: the watcher closed")
			}
			if !s.relevant(w, ev, log) {
				continue
			}
			log.V(5).Info("File event", "event", ev.String())
			arm(time.Now(), s.opts.Debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("files source: the watcher closed")
			}
			// An overflow loses events: read again to be sure.
			log.Error(err, "Watching the manifest files")
			arm(time.Now(), s.opts.Debounce)
		case <-timerC:
			timer, timerC = nil, nil
			if reading {
				again = true
			} else {
				startRead()
			}
		case res := <-results:
			reading = false
			// The first read is the synced view, which the loop syncs
			// after WaitForSync without being told.
			if !synced {
				synced = true
				s.syncOnce.Do(func() { close(s.synced) })
			} else if res.changed {
				changed()
			}
			switch {
			case again:
				startRead()
			case res.busy:
				arm(time.Now(), retry)
				retry = min(2*retry, s.opts.MaxDelay)
			default:
				retry = s.opts.Debounce
			}
		}
	}
}

// relevant tells whether an event may change the snapshot, and watches a
// directory that was created.
func (s *FileSource) relevant(w *fsnotify.Watcher, ev fsnotify.Event, log klog.Logger) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := s.watchTree(w, ev.Name); err != nil {
				log.Error(err, "Watching a new directory", "path", ev.Name)
			}
			return true
		}
	}
	switch filepath.Ext(ev.Name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	// A removed or renamed directory has no extension either.
	return ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
}

// watchTree adds a watch on dir and every directory under it.
func (s *FileSource) watchTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			return fmt.Errorf("files source: %w", err)
		}
		if !d.IsDir() {
			return nil
		}
		if err := w.Add(path); err != nil {
			return fmt.Errorf("files source: watch %s: %w", path, err)
		}
		return nil
	})
}

// read reads the tree (filesource_scan.go) and replaces the snapshot when
// it changed.
func (s *FileSource) read(log klog.Logger) scanResult {
	start := time.Now()
	res := s.scan.run(log)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = res.errs
	if !res.changed {
		return res
	}
	s.snap = res.snapshot
	log.V(1).Info("Read the manifests", "files", res.files, "filesRead", res.read, "ingresses", len(res.snapshot.Ingresses),
		"services", len(res.snapshot.Services), "endpointSlices", len(res.snapshot.EndpointSlices),
		"duration", time.Since(start).Round(time.Microsecond))
	return res
}

// WaitForSync returns true once the directory was read the first time
// (successfully or not), false if ctx ends first.
func (s *FileSource) WaitForSync(ctx context.Context) bool {
	select {
	case <-s.synced:
		return true
	case <-ctx.Done():
		return false
	}
}

// Snapshot returns the objects of the last good read. Its slices, not
// only its objects, are shared and must not be changed: the next read's
// snapshot is made from them (manifest.Combiner), in slices of its own.
func (s *FileSource) Snapshot() (render.Snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap, nil
}

// LastError returns the errors of the last read (files that did not read
// or parse, objects defined twice), "" when there were none.
func (s *FileSource) LastError() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastErr
}
