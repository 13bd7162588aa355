package controller

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fileScan reads the manifest files of a directory tree and keeps, per
// file, the last version that parsed: the snapshot is made of those, so a
// file that is broken or half-written for a moment never takes its
// objects out. A read costs what changed, not the whole tree: a file whose
// stat is the one it had when its version in force was read is not read
// again, one whose content did not change (sha256) is not parsed again,
// the documents of a changed file that did not change keep their objects
// (manifest.Data.Previous), and the snapshot is made from the last one by
// a manifest.Combiner. It is
// used by one read at a time.
type fileScan struct {
	dir  string
	opts FileSourceOptions
	// statSettle is how long after its last change a file's stat is
	// trusted to tell that it did not change (manifest.FileStat.Settled).
	statSettle time.Duration
	// combiner makes each snapshot from the last good one.
	combiner manifest.Combiner

	files map[string]*fileState
	// skipped are the entries left out (not regular files), logged once.
	skipped map[string]string
	// combineErr is the last error of combining the files, logged once.
	combineErr string
	// names are the files of the last snapshot, in order.
	names []string
}

// defaultStatSettle is fileScan.statSettle: two seconds covers the
// coarsest clocks of common file systems (FAT's two seconds, one second
// of ext3 and some network file systems; a few milliseconds elsewhere)
// and some clock skew of a network file system.
const defaultStatSettle = 2 * time.Second

// fileState is what is known of one file.
type fileState struct {
	// good is the last version that parsed (nil: none yet), and sum the
	// sha256 of its bytes.
	good *manifest.File
	sum  [sha256.Size]byte
	// err is the error logged for the file's current content, "" when it
	// reads and parses.
	err string
	// stat, when statKnown, is the file's stat taken before reading the
	// content in force (good when err is "", else a content that did not
	// parse, err): while the file's stat stays the same, so does that
	// content, and the file is not read again. Unknown when that content
	// was changed within statSettle of the stat, or did not read at all.
	stat      manifest.FileStat
	statKnown bool
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
	// read is the number of files read (and hashed): those whose stat
	// changed or was not trusted yet.
	read int
}

func newFileScan(dir string, o FileSourceOptions) *fileScan {
	return &fileScan{dir: dir, opts: o, statSettle: defaultStatSettle, files: map[string]*fileState{}, skipped: map[string]string{}}
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
		stats   []fileStat
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
		// A file whose stat did not change since its content in force was
		// read is not read: neither opened nor leased. That keeps the
		// "busy" retry of a file being written: a writer that truncates or
		// writes changes the stat (size, times), so the file is read below
		// and the lease fails while it is open for writing; a writer that
		// opened the file and wrote nothing yet leaves the content that is
		// in force, and its first write will change the stat and send an
		// event. The stat is taken before the read: a write between the
		// two leaves a stat older than the content, read again next time,
		// never a stat newer than the content it stands for.
		stat := sc.statFile(path)
		if stat.known && st.statKnown && stat.FileStat == st.stat {
			continue
		}
		res.read++
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
			st.statKnown = false
			continue
		}
		sum := sha256.Sum256(data)
		if st.good != nil && sum == st.sum && st.err == "" {
			st.stat, st.statKnown = stat.FileStat, stat.known // unchanged
			continue
		}
		// its last good version lends the objects of the documents that
		// did not change (the same pointers: an incremental render)
		toParse = append(toParse, manifest.Data{Name: path, Bytes: data, Previous: st.good})
		sums = append(sums, sum)
		stats = append(stats, stat)
	}
	for i, f := range manifest.Parse(toParse, manifest.Options{DefaultNamespace: sc.opts.DefaultNamespace}) {
		st := sc.files[f.Name]
		st.stat, st.statKnown = stats[i].FileStat, stats[i].known
		if f.Err != nil {
			sc.fileError(f.Name, st, f.Err, log)
			continue
		}
		if st.err != "" {
			log.Info("A manifest file reads again", "file", f.Name)
			st.err = ""
		}
		// The same bytes as the version in force (it did not parse for a
		// while) keep its *File: its objects keep their pointers.
		if st.good == nil || sums[i] != st.sum {
			changed = true
			st.good, st.sum = f, sums[i]
		}
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
	combined, err := sc.combiner.Combine(good)
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

// fileStat is a file's stat and whether it can tell later that the file
// did not change.
type fileStat struct {
	manifest.FileStat
	known bool
}

// statFile stats path; known only when the file's last change is at
// least statSettle old, so that a later write of the same size cannot
// leave the same times (see manifest.FileStat). A file just written is
// read and hashed at each read until it settles.
func (sc *fileScan) statFile(path string) fileStat {
	now := time.Now()
	st, err := manifest.StatFile(path)
	if err != nil {
		return fileStat{} // ReadFile says what is wrong
	}
	return fileStat{FileStat: st, known: st.Settled(now, sc.statSettle)}
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
