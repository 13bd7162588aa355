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

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
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
	// events keep coming.
	Debounce time.Duration
	MaxDelay time.Duration
}

// FileSource is the Source of `--from-files DIR`: the manifests under a
// directory and its subdirectories, read with manifest.Read and read again
// (debounced) whenever fsnotify reports a change of a manifest file
// (.yaml, .yml, .json) or a directory. Directories created later are
// watched too. A read that fails (a document that does not parse, the same
// object twice) keeps the last good snapshot; the error is logged once.
type FileSource struct {
	dir  string
	opts FileSourceOptions

	mu      sync.RWMutex
	snap    render.Snapshot
	lastErr string // the last read error, "" after a good read

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
	return &FileSource{dir: dir, opts: o, synced: make(chan struct{})}, nil
}

// Run watches the directory tree, reads it once (then WaitForSync
// returns), and reads it again after every burst of changes, calling
// changed after each good read, until ctx ends.
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
	s.read(log)
	s.syncOnce.Do(func() { close(s.synced) })

	var (
		timer   *time.Timer
		timerC  <-chan time.Time
		firstAt time.Time
	)
	arm := func(now time.Time) {
		if timer == nil {
			firstAt = now
			timer = time.NewTimer(s.opts.Debounce)
			timerC = timer.C
			return
		}
		wait := min(s.opts.Debounce, firstAt.Add(s.opts.MaxDelay).Sub(now))
		timer.Reset(max(wait, 0))
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
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
			arm(time.Now())
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("files source: the watcher closed")
			}
			// An overflow loses events: read again to be sure.
			log.Error(err, "Watching the manifest files")
			arm(time.Now())
		case <-timerC:
			timer, timerC = nil, nil
			if s.read(log) {
				changed()
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
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
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

// read reads the tree and replaces the snapshot; on failure it keeps the
// last good one and logs the error (once while it stays the same). It
// reports whether the snapshot was replaced.
func (s *FileSource) read(log klog.Logger) bool {
	start := time.Now()
	res, err := manifest.Read([]string{s.dir}, manifest.Options{Recursive: true, DefaultNamespace: s.opts.DefaultNamespace})
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if msg := err.Error(); msg != s.lastErr {
			s.lastErr = msg
			log.Error(err, "Reading the manifests failed; the last good ones stay in force")
		}
		return false
	}
	if s.lastErr != "" {
		log.Info("The manifests read again without error")
		s.lastErr = ""
	}
	s.snap = res.Snapshot
	log.V(1).Info("Read the manifests", "files", len(res.Files), "ingresses", len(res.Snapshot.Ingresses),
		"services", len(res.Snapshot.Services), "endpointSlices", len(res.Snapshot.EndpointSlices),
		"duration", time.Since(start).Round(time.Microsecond))
	return true
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

// Snapshot returns the objects of the last good read.
func (s *FileSource) Snapshot() (render.Snapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap, nil
}

// LastError returns the error of the last read, "" when it succeeded.
func (s *FileSource) LastError() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastErr
}
