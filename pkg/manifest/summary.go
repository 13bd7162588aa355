package manifest

import (
	"fmt"
	"sort"
	"strings"
)

// Summary says what was read, deterministically: "read 2 files: 1
// ConfigMap, 3 Ingress, 2 Service; skipped 2 objects: 1 apps/v1/Deployment,
// 1 v1/Pod; left out 1 file that is not a regular file: dir/x.yaml (a
// named pipe)"; with Source, "read from the cluster, namespace shop: …".
func (r *Result) Summary() string {
	var b strings.Builder
	if r.Source != "" {
		fmt.Fprintf(&b, "read from %s:", r.Source)
	} else {
		fmt.Fprintf(&b, "read %d %s:", len(r.Files), plural(len(r.Files), "file", "files"))
	}
	kinds := []struct {
		name string
		n    int
	}{
		{"ConfigMap", len(r.Snapshot.ConfigMaps)},
		{"EndpointSlice", len(r.Snapshot.EndpointSlices)},
		{"Ingress", len(r.Snapshot.Ingresses)},
		{"IngressClass", len(r.Snapshot.IngressClasses)},
		{"Secret", len(r.Snapshot.Secrets)},
		{"Service", len(r.Snapshot.Services)},
	}
	sep := " "
	for _, k := range kinds {
		if k.n > 0 {
			fmt.Fprintf(&b, "%s%d %s", sep, k.n, k.name)
			sep = ", "
		}
	}
	if sep == " " {
		b.WriteString(" no objects")
	}
	if len(r.Skipped) > 0 {
		keys := make([]string, 0, len(r.Skipped))
		total := 0
		for k, n := range r.Skipped {
			keys = append(keys, k)
			total += n
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "; skipped %d %s:", total, plural(total, "object", "objects"))
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d %s", r.Skipped[k], k)
		}
	}
	if n := len(r.SkippedFiles); n > 0 {
		fmt.Fprintf(&b, "; left out %d %s:", n, plural(n, "file that is not a regular file", "files that are not regular files"))
		for i, f := range r.SkippedFiles {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s (%s)", f.Path, f.Kind)
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
