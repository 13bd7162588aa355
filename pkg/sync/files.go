package sync

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The files nginx.conf names (model.File: htpasswd files, CA bundles,
// backend client certificates). A file that nginx reads at load carries
// the digest of its content in its name, so a new content changes
// nginx.conf and reloads; a file the workers read per request (htpasswd)
// keeps its name, and a new content is applied by writing it: no reload.
//
// Order: the desired files are written before nginx -t and the reload
// (WriteFiles; nginx -t reads them too), beside the running config's, and
// the files only the running config named are removed once nginx serves
// the desired one (PruneFiles). A reload that fails leaves both sets on
// disk, so the running config keeps every file it names.

// FileWriter writes and removes the files (pkg/controller adapts
// pkg/nginx.Instance to it).
type FileWriter interface {
	// WriteFiles makes each file exist with its content (atomically);
	// it leaves the other files.
	WriteFiles(ctx context.Context, files []model.File) error
	// PruneFiles removes every file that keep does not name.
	PruneFiles(ctx context.Context, keep []model.File) error
}

// WriteFiles writes the files of desired through fw (nothing when fw is
// nil and desired has none).
func WriteFiles(ctx context.Context, fw FileWriter, desired *model.Config) error {
	if fw == nil {
		if len(desired.Files) == 0 {
			return nil
		}
		return fmt.Errorf("files: the config names %d files but there is no file writer", len(desired.Files))
	}
	if err := fw.WriteFiles(ctx, desired.Files); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// PruneFiles removes the files that serving (the config nginx serves now)
// does not name.
func PruneFiles(ctx context.Context, fw FileWriter, serving *model.Config) error {
	if fw == nil {
		return nil
	}
	if err := fw.PruneFiles(ctx, serving.Files); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// diffFiles explains the changes of files. A file nginx reads at load
// that is added or removed goes with a change of nginx.conf (its name is
// there): a reload reason. A file the workers read whose content changed
// under the same name is applied by writing it: a dynamic reason, and
// push is true.
//
// In Lua routing a file read at load that nginx.conf does not name
// (confChanged false) is a CA bundle of a Lua-routed host, which the
// router reads at the TLS handshake: written before the route that names
// it, no reload.
func diffFiles(running, desired *model.Config, confChanged bool) (reasons []Reason, push bool) {
	old := make(map[string]*model.File, len(running.Files))
	for i := range running.Files {
		old[running.Files[i].Name] = &running.Files[i]
	}
	cur := make(map[string]*model.File, len(desired.Files))
	for i := range desired.Files {
		cur[desired.Files[i].Name] = &desired.Files[i]
	}
	for _, name := range unionKeys(old, cur) {
		o, c := old[name], cur[name]
		switch {
		case o == nil && !c.ReadAtLoad:
			// A file read per request (htpasswd) is written before the
			// config that names it goes live: in classic mode that
			// config's nginx.conf reloads, in Lua routing a route posted
			// after the write names it; the file by itself reloads nothing.
			push = true
			reasons = append(reasons, Reason{Object: c.Secret, Message: fmt.Sprintf("file %s added (%s): written before the config that names it", name, fileReadBy(c))})
		case o == nil && !confChanged:
			push = true
			reasons = append(reasons, Reason{Object: c.Secret, Message: fmt.Sprintf("file %s added (the Lua router reads it at the TLS handshake): written before the route that names it", name)})
		case o == nil:
			reasons = append(reasons, Reason{Reload: true, Object: c.Secret, Message: fmt.Sprintf("file %s added (%s)", name, fileReadBy(c))})
		case c == nil && !confChanged:
			push = true
			reasons = append(reasons, Reason{Object: o.Secret, Message: fmt.Sprintf("file %s removed (the Lua router read it at the TLS handshake)", name)})
		case c == nil && !o.ReadAtLoad:
			// removed once nothing served names it (PruneFiles)
			push = true
			reasons = append(reasons, Reason{Object: o.Secret, Message: fmt.Sprintf("file %s removed (nginx read it per request)", name)})
		case c == nil:
			reasons = append(reasons, Reason{Reload: true, Object: o.Secret, Message: fmt.Sprintf("file %s removed", name)})
		case !bytes.Equal(o.Content, c.Content):
			if c.ReadAtLoad {
				// Not expected: the name carries the content's digest.
				reasons = append(reasons, Reason{Reload: true, Object: c.Secret, Message: fmt.Sprintf("file %s changed (%s)", name, fileReadBy(c))})
				continue
			}
			push = true
			reasons = append(reasons, Reason{Object: c.Secret, Message: fmt.Sprintf("file %s changed: written in place, nginx reads it per request (no reload)", name)})
		}
	}
	return reasons, push
}

func fileReadBy(f *model.File) string {
	if f.ReadAtLoad {
		return "nginx reads it at load: a new content is a new file and a reload"
	}
	return "nginx reads it per request"
}
