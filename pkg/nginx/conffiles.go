package nginx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The files that nginx.conf names (htpasswd files, CA bundles, CRLs,
// client certificates for backends: model.File), under $prefix/files/.
// nginx.conf names them by a path relative to the prefix
// ("files/auth/….htpasswd"), which nginx resolves against the directory
// of nginx.conf: the prefix here, and the directory of `render -o DIR`.
//
// Who reads them. The master reads the files of ssl_client_certificate,
// ssl_crl and proxy_ssl_* when it loads nginx.conf (nginx -t does too);
// the workers open auth_basic_user_file for every request that needs it.
// Every file is 0600. In the pod the master and its workers run as one
// user (uid 101, the image's USER), which owns the files. When the
// controller runs as root (the simulator, tests), the master runs as root
// and its workers as nginx's default user "nobody" (nginx.conf has no
// `user` directive, see the package doc): a file the workers read is then
// given to that user (chown before the rename, so a worker never finds a
// new file it cannot open); the others stay root's, like the default
// certificate's key.
const filesDir = "files"

// File is one file to write under files/.
type File struct {
	// Name is the slash-separated path below files/: a directory and a
	// file name of lower-case letters, digits, '-' and '.'.
	Name string
	Data []byte
	// WorkerReads is true for a file the worker processes read per
	// request (auth_basic_user_file), false for one the master reads at
	// load.
	WorkerReads bool
}

// FilesDir returns the directory of the files.
func (in *Instance) FilesDir() string { return filepath.Join(in.prefix, filesDir) }

// WriteFiles makes each of files exist under files/ with its content: a
// file that is missing or differs is written atomically (a temporary file
// in the same directory, then a rename: a worker opening an htpasswd file
// reads the old or the new content), mode 0600 (see above for the
// owner). Files not named are left: PruneFiles removes them once no
// running nginx.conf names them.
func (in *Instance) WriteFiles(ctx context.Context, files []File) error {
	return WriteFilesUnder(ctx, in.FilesDir(), files)
}

// WriteFilesUnder is WriteFiles for any directory (render -o DIR writes
// DIR/files/).
func WriteFilesUnder(ctx context.Context, dir string, files []File) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nginx: write %s/: %w", filesDir, err)
	}
	if len(files) == 0 {
		return nil
	}
	owner := workerOwner()
	for _, f := range files {
		if !validFileName(f.Name) {
			return fmt.Errorf("nginx: write %s/: invalid file name %q", filesDir, f.Name)
		}
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("nginx: write %s/: %w", filesDir, err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return fmt.Errorf("nginx: write %s/: %w", filesDir, err)
		}
		var o *fileOwner
		if f.WorkerReads {
			o = owner
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() == 0o600 && o.owns(fi) {
			if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Data) {
				continue
			}
		}
		if err := writeAtomicOwned(path, f.Data, o); err != nil {
			return err
		}
	}
	return nil
}

// PruneFiles removes the files under files/ that keep does not name, and
// the directories left empty. Call it once nginx serves a config that
// names only keep (after a reload, or a dynamic update).
func (in *Instance) PruneFiles(ctx context.Context, keep []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nginx: prune %s/: %w", filesDir, err)
	}
	wanted := make(map[string]bool, len(keep))
	for _, k := range keep {
		wanted[filepath.FromSlash(k)] = true
	}
	root := in.FilesDir()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, path)
			}
			return nil
		}
		if !wanted[rel] {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("nginx: prune %s/: %w", filesDir, err)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		_ = os.Remove(d) // only when empty
	}
	return nil
}

// validFileName accepts "dir/name" of lower-case letters, digits, '-' and
// '.', neither part starting with '.': nothing can leave files/.
func validFileName(name string) bool {
	dir, file, ok := strings.Cut(name, "/")
	return ok && validFilePart(dir) && validFilePart(file)
}

func validFilePart(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// fileOwner is the user and group a file is given to.
type fileOwner struct{ uid, gid int }

// owns tells whether fi belongs to o (nil: any owner).
func (o *fileOwner) owns(fi fs.FileInfo) bool {
	if o == nil {
		return true
	}
	uid, gid, ok := fileIDs(fi)
	return !ok || (uid == o.uid && gid == o.gid)
}

// workerOwner is the owner of the files the workers read: nil (the
// process's own user) unless the process runs as root, when the workers
// run as nginx's default user: "nobody", group "nogroup" (Debian's build)
// or the user's own group.
func workerOwner() *fileOwner {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil
	}
	if g, err := user.LookupGroup("nogroup"); err == nil {
		if n, err := strconv.Atoi(g.Gid); err == nil {
			gid = n
		}
	}
	return &fileOwner{uid: uid, gid: gid}
}

// writeAtomicOwned writes data to path as writeAtomic does, mode 0600,
// given to o (when not nil) before the rename.
func writeAtomicOwned(path string, data []byte, o *fileOwner) error {
	return writeAtomicAs(path, data, 0o600, o)
}
