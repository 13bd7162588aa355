package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
}

// Result is what Read found.
type Result struct {
	// Snapshot holds the objects of the kinds render reads, each kind sorted
	// by namespace, then name.
	Snapshot render.Snapshot
	// Files are the files read, in the order read: paths as given, or found
	// under a directory given (joined to it); StdinName for "-".
	Files []string
	// Skipped counts the objects of other kinds (and other versions of our
	// kinds) by "apiVersion/kind", e.g. "apps/v1/Deployment".
	Skipped map[string]int
}

// Read reads the manifests that paths name, as kubectl -f does: a path is a
// file (read whatever its name), a directory (its files ending in .yaml,
// .yml or .json, sorted by name; with Recursive, its subdirectories too), or
// "-" for o.Stdin.
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
	if o.DefaultNamespace == "" {
		o.DefaultNamespace = DefaultNamespace
	}
	files, err := findFiles(paths, o.Recursive)
	if err != nil {
		return nil, err
	}
	res := &Result{Files: make([]string, len(files))}
	for i, name := range files {
		res.Files[i] = name
		if name == Stdin {
			res.Files[i] = StdinName
		}
	}
	docs, err := readDocuments(files, res.Files, o.Stdin)
	if err != nil {
		return nil, err
	}
	c := newCollector(o.DefaultNamespace, len(docs))
	for _, d := range decodeAll(newDecoder(), docs) {
		if err := c.add(d); err != nil {
			return nil, err
		}
	}
	sortSnapshot(&c.snapshot)
	res.Snapshot = c.snapshot
	res.Skipped = c.skipped
	return res, nil
}

// findFiles expands the paths into the files to read, in order.
func findFiles(paths []string, recursive bool) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == Stdin {
			files = append(files, Stdin)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err // *fs.PathError names p
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && !recursive {
					return fs.SkipDir
				}
				return nil
			}
			if !isManifestName(path) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				target, err := os.Stat(path)
				if err != nil {
					return err
				}
				if target.IsDir() {
					return nil // directories are not followed through links
				}
			}
			files = append(files, path)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

func isManifestName(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readDocuments reads and splits the files, several at a time, and returns
// their documents in file order. names are the names of files for messages.
func readDocuments(files, names []string, stdin io.Reader) ([]document, error) {
	stdinData, err := readStdinOnce(files, stdin)
	if err != nil {
		return nil, err
	}
	perFile := make([][]document, len(files))
	err = forEach(len(files), func(i int) error {
		data := stdinData
		if files[i] != Stdin {
			var err error
			if data, err = os.ReadFile(files[i]); err != nil {
				return fmt.Errorf("reading %s: %w", files[i], err)
			}
		}
		perFile[i] = splitDocuments(names[i], data)
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, d := range perFile {
		n += len(d)
	}
	docs := make([]document, 0, n)
	for _, d := range perFile {
		docs = append(docs, d...)
	}
	return docs, nil
}

// readStdinOnce reads stdin when files name it: once, since it can be
// read only once.
func readStdinOnce(files []string, stdin io.Reader) ([]byte, error) {
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
	data, err := io.ReadAll(stdin)
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	return data, nil
}
