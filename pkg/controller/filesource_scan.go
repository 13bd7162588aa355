package controller

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fileScan reads the manifest files of a directory tree and keeps, per
// file, the last version that parsed: the snapshot is made of those, so a
// file that is broken or half-written for a moment never takes its
// objects out. Files whose content did not change since they were parsed
// are not parsed again. It is used by one read at a time.
type fileScan struct {
	dir  string
	opts FileSourceOptions

	files map[string]*fileState
	// skipped are the entries left out (not regular files), logged once.
	skipped map[string]string
	// combineErr is the last error of combining the files, logged once.
	combineErr string
	// names are the files of the last snapshot, in order.
	names []string
}

// fileState is what is known of one file.
type fileState struct {
	// good is the last version that parsed (nil: none yet), and sum the
	// sha256 of its bytes.
	good *manifest.File
	sum  [sha256.Size]byte
	// err is the error logged for the file's current content, "" when it
	// reads and parses.
	err string
}

// scanResult is what a read found.
type scanResult struct {
	// changed says that snapshot is new: a file was added, removed or
	// parsed anew.
	changed  bool
	snapshot render.Snapshot
	files    int
	// busy says that a file was open for writing: read again soon.
	busy bool
	// errs are the errors in force, "" when there are none.
	errs string
}

func newFileScan(dir string, o FileSourceOptions) *fileScan {
	return &fileScan{dir: dir, opts: o, files: map[string]*fileState{}, skipped: map[string]string{}}
}

// run reads the tree once.
func (sc *fileScan) run(log klog.Logger) scanResult {
	var res scanResult
	paths, skipped, err := manifest.FindFiles(sc.dir, true)
	if err != nil {
		msg := err.Error()
		if msg != sc.combineErr {
			sc.combineErr = msg
			log.Error(err, "Listing the manifest files failed; the last good ones stay in force")
		}
		res.errs = msg
		return res
	}
	sc.noteSkipped(skipped, log)

	var (
		toParse []manifest.Data
		sums    [][sha256.Size]byte
		changed bool
		seen    = make(map[string]bool, len(paths))
	)
	for _, path := range paths {
		seen[path] = true
		st := sc.files[path]
		if st == nil {
			st = &fileState{}
			sc.files[path] = st
		}
		data, err := manifest.ReadFile(path, manifest.FileOptions{MaxSize: sc.opts.MaxFileSize, NotWhileWritten: true})
		switch {
		case errors.Is(err, manifest.ErrBeingWritten):
			// Logged at each read, as the reads are at -v 1.
			res.busy = true
			log.V(1).Info("A manifest file is open for writing: its last good version stays until it is closed", "file", path, "lastGood", st.good != nil)
			continue
		case errors.Is(err, fs.ErrNotExist):
			delete(sc.files, path) // removed since it was listed
			delete(seen, path)
			changed = changed || st.good != nil
			continue
		case err != nil:
			sc.fileError(path, st, err, log)
			continue
		}
		sum := sha256.Sum256(data)
		if st.good != nil && sum == st.sum && st.err == "" {
			continue // unchanged
		}
		toParse = append(toParse, manifest.Data{Name: path, Bytes: data})
		sums = append(sums, sum)
	}
	for i, f := range manifest.Parse(toParse, manifest.Options{DefaultNamespace: sc.opts.DefaultNamespace}) {
		st := sc.files[f.Name]
		if f.Err != nil {
			sc.fileError(f.Name, st, f.Err, log)
			continue
		}
		if st.err != "" {
			log.Info("A manifest file reads again", "file", f.Name)
			st.err = ""
		}
		if st.good == nil || sums[i] != st.sum {
			changed = true
		}
		st.good, st.sum = f, sums[i]
	}
	for path, st := range sc.files {
		if !seen[path] {
			delete(sc.files, path)
			changed = changed || st.good != nil
		}
	}

	var good []*manifest.File
	var names []string
	var errs []string
	for _, path := range paths {
		st := sc.files[path]
		if st == nil {
			continue
		}
		if st.err != "" {
			errs = append(errs, st.err)
		}
		if st.good != nil {
			good = append(good, st.good)
			names = append(names, path)
		}
	}
	if !slices.Equal(names, sc.names) {
		changed = true
	}
	if !changed && sc.combineErr == "" {
		// The same good files combined without error last time: the
		// snapshot stands.
		res.errs, res.files = strings.Join(errs, "; "), len(names)
		return res
	}
	combined, err := manifest.Combine(good)
	if err != nil {
		if msg := err.Error(); msg != sc.combineErr {
			sc.combineErr = msg
			log.Error(err, "Combining the manifest files failed; the last good snapshot stays in force")
		}
		res.errs = strings.Join(append(errs, err.Error()), "; ")
		return res
	}
	if sc.combineErr != "" {
		log.Info("The manifest files combine again")
		sc.combineErr = ""
		changed = true
	}
	sc.names = names
	res.errs = strings.Join(errs, "; ")
	res.changed, res.snapshot, res.files = changed, combined.Snapshot, len(names)
	return res
}

// fileError notes that a file did not read or parse: it keeps its last
// good version; the error is logged once while it stays the same.
func (sc *fileScan) fileError(path string, st *fileState, err error, log klog.Logger) {
	msg := err.Error()
	if msg == st.err {
		return
	}
	st.err = msg
	if st.good != nil {
		log.Error(err, "A manifest file does not read: its last good version stays in force until it changes", "file", path)
	} else {
		log.Error(err, "A manifest file does not read: it is left out until it changes", "file", path)
	}
}

// noteSkipped logs the entries that are not regular files when they
// appear.
func (sc *fileScan) noteSkipped(skipped []manifest.SkippedFile, log klog.Logger) {
	now := make(map[string]string, len(skipped))
	for _, f := range skipped {
		now[f.Path] = f.Kind
		if sc.skipped[f.Path] != f.Kind {
			log.Info("Left out an entry that is not a regular file", "file", f.Path, "kind", f.Kind)
		}
	}
	sc.skipped = now
}
