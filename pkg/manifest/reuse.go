package manifest

import "crypto/sha256"

// A file read again (the files source, after an edit) is mostly the
// documents it had: each document's sha256 is kept with its objects
// (File.docs), and the next Parse of the file keeps the objects of the
// documents whose bytes it finds again instead of decoding them (most of
// the cost of reading a file), as the same pointers. Only documents that
// gave objects of our kinds and nothing else are kept; others (skipped
// kinds, unread Ingresses, empty documents) are decoded again, which they
// cost little. The objects kept are complete already (complete is not run
// again); they take the origin of the document they are found in now.

// documentSum is the sha256 of a document's bytes.
type documentSum = [sha256.Size]byte

// parsedDocument is a document of a File that gave objects only:
// File.objects[first:first+count].
type parsedDocument struct {
	sum          documentSum
	first, count int
}

// documentSums returns the sum of each document, its leading blank lines
// left out (a document's bytes start after its separator's "---": the
// same document first in a file or after a separator has the same sum).
func documentSums(docs []document) []documentSum {
	out := make([]documentSum, len(docs))
	for i := range docs {
		out[i] = sha256.Sum256(withoutLeadingBlankLines(docs[i].data))
	}
	return out
}

// withoutLeadingBlankLines returns data from the first line that has more
// than blanks (spaces, tabs, carriage returns): the indentation of that
// line stays, and so does everything after it (trailing blank lines may be
// a literal block's content).
func withoutLeadingBlankLines(data []byte) []byte {
	start := 0
	for i, c := range data {
		switch c {
		case '\n':
			start = i + 1
		case ' ', '\t', '\r':
		default:
			return data[start:]
		}
	}
	return data[start:]
}

// keptObjects returns, for each sum, the objects of previous's document
// with that sum (nil when it has none, and for a sum after its first): none
// when previous is nil, did not parse, or was completed with another
// default namespace. Each object of previous is handed out once at most.
func keptObjects(previous *File, defaultNamespace string, sums []documentSum) [][]object {
	out := make([][]object, len(sums))
	if previous == nil || previous.Err != nil || previous.namespace != defaultNamespace || len(previous.docs) == 0 {
		return out
	}
	bySum := make(map[documentSum][]object, len(previous.docs))
	for _, d := range previous.docs {
		bySum[d.sum] = previous.objects[d.first : d.first+d.count]
	}
	for i, sum := range sums {
		// once: a document pasted twice is decoded again the second time
		// (new objects, which Combine finds defined twice, as it would)
		if kept, ok := bySum[sum]; ok {
			out[i] = kept
			delete(bySum, sum)
		}
	}
	return out
}

// movedOrigin is the origin of an object kept from a document now at
// doc: doc's place, and the object's item in the document's List.
func movedOrigin(kept, doc origin) origin {
	doc.items = kept.items
	return doc
}
