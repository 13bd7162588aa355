package manifest

import "bytes"

// Location is where an object was read: the file's name as in
// Result.Files and the 1-based line where its document's content starts
// (for an item of a List, the List's line).
type Location struct {
	File string
	Line int
}

// Location says where the object of kind (as "Ingress", "ConfigMap"),
// namespace and name was read; false when it is not in the Result.
func (r *Result) Location(kind, namespace, name string) (Location, bool) {
	return r.locations.get(objectKey{kind: kind, namespace: namespace, name: name})
}

func (o origin) location() Location {
	return Location{File: o.file, Line: o.line}
}

// contentLine is the line of the first byte of d that is neither blank nor
// in a YAML comment: the rest of a "---" line and the comment lines after
// it are not the object.
func contentLine(d document) int {
	line, data := d.line, d.data
	for len(data) > 0 {
		switch data[0] {
		case ' ', '\t', '\r':
			data = data[1:]
		case '\n':
			line++
			data = data[1:]
		case '#':
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				return d.line
			}
			data = data[i:]
		default:
			return line
		}
	}
	return d.line
}
