package nginx

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Checksum returns what GET /configuration/checksum answers once conf
// serves: the md5 of its bytes in lower-case hex.
func Checksum(conf []byte) string {
	sum := md5.Sum(conf)
	return hex.EncodeToString(sum[:])
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so that a reader sees the old or the new content.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomicAs(path, data, perm, nil)
}

// writeAtomicAs writes data to path through a temporary file in the same
// directory, mode perm, given to o (when not nil), synced, then renamed, so
// that a reader sees the old or the new content.
func writeAtomicAs(path string, data []byte, perm os.FileMode, o *fileOwner) error {
	return writeAtomicWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, perm, o)
}

// writeAtomicWith is writeAtomicAs of what write writes (to the file,
// unbuffered: write buffers when it writes in small pieces).
func writeAtomicWith(path string, write func(io.Writer) error, perm os.FileMode, o *fileOwner) error {
	dir, name := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("nginx: write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	werr := func() error {
		if err := write(f); err != nil {
			return err
		}
		if err := f.Chmod(perm); err != nil {
			return err
		}
		if o != nil {
			if err := f.Chown(o.uid, o.gid); err != nil {
				return err
			}
		}
		return f.Sync()
	}()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("nginx: write %s: %w", path, werr)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("nginx: write %s: %w", path, err)
	}
	ok = true
	return nil
}

// fileSize returns the size of path, 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// readFrom returns at most limit bytes of path starting at offset (the last
// limit bytes when there are more), "" when it cannot be read.
func readFrom(path string, offset, limit int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	size := fileSize(path)
	if size-offset > limit {
		offset = size - limit
	}
	if offset < 0 || offset > size {
		offset = 0
	}
	data, err := io.ReadAll(io.NewSectionReader(f, offset, size-offset))
	if err != nil {
		return ""
	}
	return string(data)
}
