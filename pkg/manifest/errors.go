package manifest

import (
	"fmt"
	"strings"
)

// DocumentError is a document that could not be read. Its message names
// the file and the 1-based document number, and the item of a List when the
// bad object is one: "dir/bad.yaml: document 3: items[1]: ...".
type DocumentError struct {
	// File is the path as given or found in a directory; "<stdin>" for "-".
	File string
	// Document is the 1-based number of the document in the file.
	Document int
	// Items is the path of List items to the bad object, outermost first;
	// empty when the document itself is bad.
	Items []int
	Err   error
}

func (e *DocumentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: document %d: ", e.File, e.Document)
	for _, i := range e.Items {
		fmt.Fprintf(&b, "items[%d]: ", i)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *DocumentError) Unwrap() error { return e.Err }

// origin says where an object was read, for messages.
type origin struct {
	file     string
	document int
	// line is the 1-based line of the file where the document's content
	// starts (an item of a List: the List's line).
	line  int
	items []int
}

func (o origin) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: document %d", o.file, o.document)
	for _, i := range o.items {
		fmt.Fprintf(&b, ": items[%d]", i)
	}
	return b.String()
}

func (o origin) errorf(format string, args ...any) error {
	return &DocumentError{File: o.file, Document: o.document, Items: o.items, Err: fmt.Errorf(format, args...)}
}

func (o origin) item(i int) origin {
	items := make([]int, len(o.items), len(o.items)+1)
	copy(items, o.items)
	return origin{file: o.file, document: o.document, line: o.line, items: append(items, i)}
}
