package manifest

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// typeMetaFinder is the serializer's MetaFactory: it finds apiVersion and
// kind in a JSON object that is known to be valid.
//
// apimachinery's DefaultMetaFactory finds them with json.Unmarshal, which
// validates and walks the whole object: a quarter of the cost of reading
// 30,000 objects, only to read two top-level strings. Here the object has
// been validated already (json.Valid chose JSON over YAML), so a scan for
// the two top-level keys that skips nested values and strings is enough.
// Keys are case-sensitive, as in kubectl. Anything unusual (escapes or
// non-ASCII bytes in a key or in those values) goes to DefaultMetaFactory.
type typeMetaFinder struct{}

var _ kjson.MetaFactory = typeMetaFinder{}

func (typeMetaFinder) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, ok := findTypeMeta(data)
	if !ok {
		return kjson.DefaultMetaFactory.Interpret(data)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

// findTypeMeta returns the top-level "apiVersion" and "kind" strings of a
// valid JSON object. ok is false when it cannot tell cheaply: data is not an
// object, or a key or value it needs holds an escape or is not a string.
func findTypeMeta(data []byte) (apiVersion, kind string, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return "", "", false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return "", "", false
		}
		if data[i] == '}' {
			return apiVersion, kind, true
		}
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		key, end, plain := readString(data, i)
		if end < 0 {
			return "", "", false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return "", "", false
		}
		i = skipSpace(data, i+1)
		if !plain {
			return "", "", false // an escaped key might spell apiVersion or kind
		}
		if string(key) == "apiVersion" || string(key) == "kind" {
			value, end, plainValue := readString(data, i)
			if end < 0 || !plainValue {
				return "", "", false
			}
			if string(key) == "apiVersion" {
				apiVersion = string(value)
			} else {
				kind = string(value)
			}
			i = end
			continue
		}
		i = skipValue(data, i)
		if i < 0 {
			return "", "", false
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// readString reads the JSON string at data[i]. It returns the bytes
// between the quotes when they are plain ASCII without escapes, the index
// after the closing quote, or end -1 when data[i] does not start a string.
// Any other string is returned empty and not plain.
func readString(data []byte, i int) (s []byte, end int, plain bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, -1, false
	}
	plain = true
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c >= 0x80:
			plain = false // not ASCII: encoding/json would check and fix its UTF-8
		case c == '\\':
			plain = false
			j++
		case c == '"':
			if !plain {
				return nil, j + 1, false
			}
			return data[i+1 : j], j + 1, true
		}
	}
	return nil, -1, false
}

// skipValue returns the index after the JSON value at data[i], or -1.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		_, end, _ := readString(data, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			case '"':
				_, end, _ := readString(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			}
		}
		return -1
	default: // a number, true, false or null
		for j := i; j < len(data); j++ {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j
			}
		}
		return len(data)
	}
}
