package nginxconf

import (
	"bytes"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ConfOwners says which Ingresses wrote which part of one nginx.conf, so
// that the line `nginx -t` names in its error ("… in nginx.conf:123") can be
// traced to the objects behind it (see pkg/controller/quarantine.go). It
// records blocks, not lines:
//
//   - a server block belongs to every Ingress with a location on its host
//     (its server_name, listen and fallback lines are theirs in common);
//   - a location block belongs to the one Ingress that owns the path;
//   - an http-level line written for one Ingress (its rate limit zones)
//     belongs to that Ingress.
//
// Everything else (main, events and http settings, the ConfigMap's values,
// the server name hash, the status server, the stream block) belongs to no
// Ingress.
type ConfOwners struct {
	conf   []byte
	blocks []OwnedBlock
	// start and end are the byte offsets of each block in conf.
	start, end []int
}

// OwnedBlock is a part of nginx.conf written for Ingresses.
type OwnedBlock struct {
	// First and Last are its lines, 1-based and inclusive, as nginx counts.
	First, Last int
	// Ingresses wrote it, sorted by namespace and name.
	Ingresses []model.ObjectRef
	// Host is the server's hostname ("" for an http-level line); Location
	// is the location's arguments as written ("" for the server's own
	// lines).
	Host     string
	Location string
}

// At returns the innermost block that holds line (1-based), false when no
// Ingress wrote that line.
func (o *ConfOwners) At(line int) (OwnedBlock, bool) {
	if o == nil || line < 1 {
		return OwnedBlock{}, false
	}
	off, ok := lineOffset(o.conf, line)
	if !ok {
		return OwnedBlock{}, false
	}
	best := -1
	for i := range o.blocks {
		if o.start[i] <= off && off < o.end[i] && (best < 0 || o.end[i]-o.start[i] < o.end[best]-o.start[best]) {
			best = i
		}
	}
	if best < 0 {
		return OwnedBlock{}, false
	}
	b := o.blocks[best]
	b.First = bytes.Count(o.conf[:o.start[best]], []byte("\n")) + 1
	b.Last = b.First + bytes.Count(o.conf[o.start[best]:o.end[best]], []byte("\n")) - 1
	return b, true
}

// Blocks returns the number of blocks recorded.
func (o *ConfOwners) Blocks() int {
	if o == nil {
		return 0
	}
	return len(o.blocks)
}

// lineOffset is the byte offset where line (1-based) starts in conf.
func lineOffset(conf []byte, line int) (int, bool) {
	off := 0
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(conf[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	if off >= len(conf) {
		return 0, false
	}
	return off, true
}

// NGINXConfWithOwners is NGINXConf that also records which Ingresses wrote
// each server and location block. The bytes are NGINXConf's, byte for byte:
// the recording only notes offsets. NGINXConf does not record, so a sync
// that nginx -t accepts pays nothing for it.
func NGINXConfWithOwners(c *model.Config, o ConfOptions) ([]byte, *ConfOwners, error) {
	owners := &ConfOwners{}
	w := &confWriter{owners: owners}
	write := writeNGINXConf
	if o.LuaRouted() {
		write = func(w *confWriter, c *model.Config, o ConfOptions) ([]byte, error) {
			return writeNGINXConfLua(w, c, o, o.LuaRouting, LuaSplitOf(c))
		}
	}
	conf, err := write(w, c, o)
	if err != nil {
		return nil, nil, err
	}
	owners.conf = conf
	return conf, owners, nil
}

// ownerMark is an open block of a recording writer; -1 when not recording.
type ownerMark int

// beginOwned starts a block written for ingresses (a no-op unless the
// writer records owners); endOwned closes it after its last line.
func (w *confWriter) beginOwned(host, location string, ingresses []model.ObjectRef) ownerMark {
	if w.owners == nil {
		return -1
	}
	o := w.owners
	o.blocks = append(o.blocks, OwnedBlock{Ingresses: ingresses, Host: host, Location: location})
	o.start = append(o.start, w.b.Len())
	o.end = append(o.end, w.b.Len())
	return ownerMark(len(o.blocks) - 1)
}

func (w *confWriter) endOwned(m ownerMark) {
	if m < 0 {
		return
	}
	w.owners.end[m] = w.b.Len()
}

// recordsOwners tells whether the writer records owners (so that callers
// compute the owners of a block only then).
func (w *confWriter) recordsOwners() bool { return w.owners != nil }

// serverIngresses are the Ingresses with a location on s, sorted.
func serverIngresses(s *model.Server) []model.ObjectRef {
	var refs []model.ObjectRef
	for i := range s.Locations {
		if r := s.Locations[i].Ingress; r.Name != "" && !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	slices.SortFunc(refs, compareRefs)
	return refs
}

func compareRefs(a, b model.ObjectRef) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}
