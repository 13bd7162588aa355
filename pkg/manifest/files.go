package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// DefaultMaxFileSize is the largest manifest file (or standard input) that
// is read when Options.MaxFileSize is 0: 64 MiB, far above a cluster of
// 10,000 Ingresses with their Services and EndpointSlices (about 30 MiB).
const DefaultMaxFileSize = 64 << 20

// ErrBeingWritten says that a file was open for writing by another
// process when it was to be read (see FileOptions.NotWhileWritten).
var ErrBeingWritten = errors.New("the file is open for writing")

// NotRegularError is a path that names something other than a regular
// file (or a directory where one is expected): a named pipe, a socket, a
// device. Reading a pipe could wait for ever and a device may never end,
// so such files are never read.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: manifests are read from regular files only", e.Path, describeMode(e.Mode))
}

// TooLargeError is a file (or standard input) larger than the limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	limit := FormatSize(e.Limit)
	if strings.Trim(limit, "0123456789") == "" {
		limit += " bytes"
	}
	return fmt.Sprintf("%s is larger than %s, the limit of a manifest file (--max-manifest-size)", e.Path, limit)
}

// SkippedFile is a file with a manifest's name, found in a directory, that
// is left out because it is not a regular file.
type SkippedFile struct {
	Path string
	// Kind says what it is: "a named pipe", "a socket", "a device" ….
	Kind string
}

// describeMode names what a file of mode is, for messages.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "not a regular file"
	}
}

// FormatSize writes n bytes as a Kubernetes quantity, the way
// --max-manifest-size takes a size and kubectl writes one: "64Mi" for a
// multiple of 1024, "1G", else the number of bytes ("1500"). The flag
// parses what it writes.
func FormatSize(n int64) string {
	format := resource.DecimalSI
	if n%1024 == 0 {
		format = resource.BinarySI
	}
	return resource.NewQuantity(n, format).String()
}

// FindFiles lists the manifest files of dir (names ending in .yaml, .yml
// or .json) sorted by name, with recursive those of its subdirectories
// too, as Read does for a directory. Entries that are not regular files
// (named pipes, sockets, devices, also through a symbolic link, and links
// to nothing) are returned in skipped instead; links to directories are
// not followed.
func FindFiles(dir string, recursive bool) (files []string, skipped []SkippedFile, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && !recursive {
				return fs.SkipDir
			}
			return nil
		}
		if !isManifestName(path) {
			return nil
		}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			target, err := os.Stat(path)
			if errors.Is(err, fs.ErrNotExist) {
				// A dangling link, such as an editor's lock file
				// (".#a.yaml" → "user@host.pid").
				skipped = append(skipped, SkippedFile{Path: path, Kind: "a link to nothing"})
				return nil
			}
			if err != nil {
				return err
			}
			if target.IsDir() {
				return nil // directories are not followed through links
			}
			mode = target.Mode().Type()
		}
		if !mode.IsRegular() {
			skipped = append(skipped, SkippedFile{Path: path, Kind: describeMode(mode)})
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return files, skipped, nil
}

// FileOptions say how ReadFile reads.
type FileOptions struct {
	// MaxSize is the largest file read; 0 means DefaultMaxFileSize.
	MaxSize int64
	// NotWhileWritten makes ReadFile fail with ErrBeingWritten when another
	// process has the file open for writing, and makes writers that open
	// the file during the read wait until it ends, so that a file rewritten
	// in place (truncated, then written) is never read half-written. It
	// needs a read lease (Linux, on a file the process owns or with
	// CAP_LEASE); where the system grants none, the file is read as it is.
	NotWhileWritten bool
}

// ReadFile reads the manifest file path: a regular file (a named pipe, a
// socket or a device is a *NotRegularError, checked before it is opened
// and again on what was opened) of at most o.MaxSize bytes (else a
// *TooLargeError, also when the file grows while it is read).
func ReadFile(path string, o FileOptions) ([]byte, error) {
	limit := o.MaxSize
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	// Stat before opening: opening a pipe, a socket or a device has effects
	// of its own (it may wait for a writer, fail, or start a device).
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced meanwhile: check what was opened.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	if o.NotWhileWritten {
		release, err := readLease(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer release()
	}
	return readLimited(f, path, limit, fi.Size())
}

// readLimited reads r to its end, failing once it gives more than limit
// bytes: the limit holds for what is read, whatever a Stat said before.
// size is the expected size (0 when unknown), to allocate once.
func readLimited(r io.Reader, name string, limit, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(size, limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return buf.Bytes(), nil
}
