package manifest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Stdin is the path that names standard input, as in kubectl -f -.
const Stdin = "-"

// StdinName is the file name that messages and Result.Files give to
// standard input.
const StdinName = "<stdin>"

// DefaultNamespace is kubectl's namespace when -n is not given.
const DefaultNamespace = "default"

// Options say how Read finds and completes objects.
type Options struct {
	// Recursive reads the subdirectories of a directory too (kubectl -R).
	Recursive bool
	// DefaultNamespace is given to namespaced objects that have none
	// (kubectl -n); "" means DefaultNamespace.
	DefaultNamespace string
	// Stdin is read for the path "-"; nil makes "-" an error.
	Stdin io.Reader
	// MaxFileSize is the largest file, and the most of Stdin, that is read;
	// 0 means DefaultMaxFileSize.
	MaxFileSize int64
}

// Result is what Read found.
type Result struct {
	// Snapshot holds the objects of the kinds render reads, each kind sorted
	// by namespace, then name.
	Snapshot render.Snapshot
	// Files are the files read, in the order read: paths as given, or found
	// under a directory given (joined to it); StdinName for "-".
	Files []string
	// Source, when set, names where the objects came from instead of files
	// ("the cluster, namespace shop"): objects read from an API server.
	Source string
	// Skipped counts the objects of other kinds (and other versions of our
	// kinds) by "apiVersion/kind", e.g. "apps/v1/Deployment".
	Skipped map[string]int
	// SkippedFiles are the entries of the directories given that have a
	// manifest's name but are not regular files (named pipes, sockets,
	// devices): they are never read.
	SkippedFiles []SkippedFile
	// locations holds where each object of Snapshot was read (Location).
	locations locationIndex
}

// Read reads the manifests that paths name, as kubectl -f does: a path is a
// file (read whatever its name), a directory (its files ending in .yaml,
// .yml or .json, sorted by name; with Recursive, its subdirectories too), or
// "-" for o.Stdin.
//
// Only regular files are read: a path given that names a named pipe, a
// socket or a device is an error (a *NotRegularError), and such entries of
// a directory are left out and listed in Result.SkippedFiles. A file, and
// standard input, may hold at most o.MaxFileSize bytes (a *TooLargeError).
//
// Files hold YAML documents separated by "---" lines or JSON (one object or
// a stream of objects); List kinds are expanded into their items. Of the
// objects, Ingress and IngressClass (networking.k8s.io/v1), Service, Secret
// and ConfigMap (v1) and EndpointSlice (discovery.k8s.io/v1) are decoded
// strictly (a field of the wrong type, an unknown or a duplicate field is an
// error); others are counted in Result.Skipped.
//
// Any error fails the whole read: a path that does not exist, a malformed
// document (a *DocumentError naming the file and document), an object
// without a name, or the same kind, namespace and name twice (the error
// names both places). When several documents are bad, the error is about
// the first one in reading order.
func Read(paths []string, o Options) (*Result, error) {
	if len(paths) == 0 {
		return nil, errors.New("no manifest files given")
	}
	files, skipped, err := findFiles(paths, o.Recursive)
	if err != nil {
		return nil, err
	}
	data, err := readAll(files, o)
	if err != nil {
		return nil, err
	}
	res, err := Combine(Parse(data, o))
	if err != nil {
		return nil, err
	}
	res.SkippedFiles = skipped
	return res, nil
}

// findFiles expands the paths into the files to read, in order, and the
// entries of directories left out.
func findFiles(paths []string, recursive bool) ([]string, []SkippedFile, error) {
	var files []string
	var skipped []SkippedFile
	for _, p := range paths {
		if p == Stdin {
			files = append(files, Stdin)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, err // *fs.PathError names p
		}
		switch {
		case info.IsDir():
			found, left, err := FindFiles(p, recursive)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, found...)
			skipped = append(skipped, left...)
		case info.Mode().IsRegular():
			files = append(files, p)
		default:
			return nil, nil, &NotRegularError{Path: p, Mode: info.Mode()}
		}
	}
	return files, skipped, nil
}

func isManifestName(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readAll reads the files, several at a time, in order; "-" is o.Stdin,
// named StdinName.
func readAll(files []string, o Options) ([]Data, error) {
	stdinData, err := readStdinOnce(files, o.Stdin, o.MaxFileSize)
	if err != nil {
		return nil, err
	}
	out := make([]Data, len(files))
	err = forEach(len(files), func(i int) error {
		if files[i] == Stdin {
			out[i] = Data{Name: StdinName, Bytes: stdinData}
			return nil
		}
		data, err := ReadFile(files[i], FileOptions{MaxSize: o.MaxFileSize})
		if err != nil {
			var notRegular *NotRegularError
			var tooLarge *TooLargeError
			if errors.As(err, &notRegular) || errors.As(err, &tooLarge) {
				return err // the message names the file
			}
			return fmt.Errorf("reading %s: %w", files[i], err)
		}
		out[i] = Data{Name: files[i], Bytes: data}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readStdinOnce reads stdin when files name it: once, since it can be
// read only once.
func readStdinOnce(files []string, stdin io.Reader, limit int64) ([]byte, error) {
	n := 0
	for _, f := range files {
		if f == Stdin {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, nil
	case n > 1:
		return nil, errors.New(`"-" (standard input) is given more than once`)
	case stdin == nil:
		return nil, errors.New(`reading "-": no standard input`)
	}
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	return readLimited(stdin, "standard input", limit, 0)
}
