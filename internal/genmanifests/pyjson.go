package genmanifests

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// obj is a JSON object whose keys keep their order, as a Python dict does.
type obj []field

type field struct {
	key   string
	value any // string, int, bool, obj or []any
}

// set returns o with key set: replaced in place when present, else added
// last (a Python dict assignment).
func (o obj) set(key string, value any) obj {
	for i := range o {
		if o[i].key == key {
			o[i].value = value
			return o
		}
	}
	return append(o, field{key, value})
}

// dumps writes v as Python's json.dumps(v, indent=1) does: one space per
// level, ", " never at line ends, ": " between key and value, "{}" and
// "[]" for empty containers, non-ASCII escaped.
func dumps(v any) string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return b.String()
}

func writeValue(b *strings.Builder, v any, depth int) {
	switch v := v.(type) {
	case string:
		writeString(b, v)
	case int:
		b.WriteString(strconv.Itoa(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case obj:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, f := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeString(b, f.key)
			b.WriteString(": ")
			writeValue(b, f.value, depth+1)
		}
		newline(b, depth)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeValue(b, e, depth+1)
		}
		newline(b, depth)
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("genmanifests: no JSON form for %T", v))
	}
}

func newline(b *strings.Builder, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteByte(' ')
	}
}

// writeString quotes s as Python's json module does with ensure_ascii.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff) || r == utf8.RuneError:
			fmt.Fprintf(b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
