package nginxconf

import (
	"fmt"
	"strings"
)

// quote is the one function through which every user-supplied value reaches
// nginx.conf. It returns the value as a double-quoted nginx token in which
// the config parser sees exactly the original bytes: backslashes and double
// quotes are escaped, and control characters (which nginx would accept
// inside quotes but which no valid host, path or header contains) are
// refused with an error. Values are validated in Build first; an error here
// is a programming error that NGINXConf returns instead of writing.
func quote(v string) (string, error) {
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return "", fmt.Errorf("value %q holds control character 0x%02x", v, c)
		case c == '"' || c == '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String(), nil
}
