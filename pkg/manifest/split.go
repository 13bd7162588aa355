package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// document is one YAML document or one value of a JSON stream.
type document struct {
	origin
	// line is the 1-based line of the file that data[0] is on.
	line int
	data []byte
	// isJSON is true when data is known to be a single JSON value.
	isJSON bool
}

// utf8BOM is the byte order mark that some editors put first in a file.
const utf8BOM = "\xEF\xBB\xBF"

// splitDocuments cuts a file into documents, numbered from 1.
//
// YAML documents are separated by lines that are "---" alone or followed by
// a blank; the rest of such a line (a comment, or content as YAML allows)
// belongs to the next document. What comes before the first separator is a
// document only if it holds more than blanks and comments. Every other
// document counts, empty or not, so that numbers match what a person counts
// in the file; empty ones are ignored later.
//
// A file that is one stream of JSON values (objects one after the other,
// with no separator) gives one document per value.
func splitDocuments(file string, data []byte) []document {
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	var docs []document
	start, startLine := 0, 1 // the document being cut starts at data[start], on line startLine
	line, counted := 1, 0    // line is the number of the line that starts at data[counted]
	afterSeparator := false  // the first document counts only if it has content
	for pos := 0; pos < len(data); {
		// pos starts a line: move it to the next line that starts with "---".
		if !bytes.HasPrefix(data[pos:], []byte("---")) {
			i := bytes.Index(data[pos:], []byte("\n---"))
			if i < 0 {
				break
			}
			pos += i + 1
		}
		next := len(data)
		if end := bytes.IndexByte(data[pos:], '\n'); end >= 0 {
			next = pos + end + 1
		}
		if !isSeparator(data[pos:next]) {
			pos = next
			continue
		}
		line += bytes.Count(data[counted:pos], []byte{'\n'})
		counted = pos
		if chunk := data[start:pos]; afterSeparator || hasContent(chunk) {
			docs = append(docs, document{line: startLine, data: chunk})
		}
		start, startLine, afterSeparator = pos+3, line, true
		pos = next
	}
	if chunk := data[start:]; afterSeparator || hasContent(chunk) {
		docs = append(docs, document{line: startLine, data: chunk})
	}
	if len(docs) == 1 {
		if stream := splitJSONStream(docs[0].data); stream != nil {
			for i := range stream {
				stream[i].line += docs[0].line - 1
			}
			docs = stream
		}
	}
	for i := range docs {
		docs[i].origin = origin{file: file, document: i + 1, line: contentLine(docs[i])}
	}
	return docs
}

// isSeparator reports whether line (with its newline) is a YAML document
// start marker: "---" then the end of the line, a blank or a tab.
func isSeparator(line []byte) bool {
	if len(line) < 3 || line[0] != '-' || line[1] != '-' || line[2] != '-' {
		return false
	}
	if len(line) == 3 {
		return true
	}
	switch line[3] {
	case '\n', '\r', ' ', '\t':
		return true
	}
	return false
}

// hasContent reports whether chunk holds anything but blanks and comments.
func hasContent(chunk []byte) bool {
	atLineStart := true
	for i := 0; i < len(chunk); i++ {
		switch c := chunk[i]; {
		case c == '\n':
			atLineStart = true
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#' && atLineStart:
			j := bytes.IndexByte(chunk[i:], '\n')
			if j < 0 {
				return false
			}
			i += j - 1
		default:
			return true
		}
	}
	return false
}

// splitJSONStream returns the values of data when it is a stream of JSON
// values, and nil when it does not start with a JSON object (then it is
// read as YAML) or is a single value (then it is one document as it is).
// When a value after the first is malformed, the rest of data from there is
// one more document, whose decoding reports the error.
func splitJSONStream(data []byte) []document {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil
	}
	if json.Valid(trimmed) {
		return []document{{line: lineAt(data, len(data)-len(trimmed)), data: trimmed, isJSON: true}}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	for {
		// The next value starts after the blanks that follow the last one.
		at := int(dec.InputOffset())
		at = len(data) - len(bytes.TrimLeft(data[at:], " \t\r\n"))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			if len(docs) == 0 {
				return nil
			}
			return append(docs, document{line: lineAt(data, at), data: data[at:]})
		}
		docs = append(docs, document{line: lineAt(data, at), data: raw, isJSON: true})
	}
}

// lineAt returns the 1-based line of data[offset].
func lineAt(data []byte, offset int) int {
	return 1 + bytes.Count(data[:offset], []byte{'\n'})
}
