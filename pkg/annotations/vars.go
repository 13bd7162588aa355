package annotations

import (
	"fmt"
	"sort"
	"strings"
)

// nginx variables in user values: each value that may hold them names its
// allowlist, and every "$name" (or "${name}" where braces are allowed) is
// checked against it. Anything else after a "$" is refused, so a value can
// never read a variable the allowlist does not name.

// varList is an allowlist: exact names and name prefixes ("http_" allows
// every request header variable).
type varList struct {
	names    []string // sorted
	prefixes []string
}

func (l varList) allows(name string) bool {
	if i := sort.SearchStrings(l.names, name); i < len(l.names) && l.names[i] == name {
		return true
	}
	for _, p := range l.prefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// describe lists the allowlist for a message; use-geoip2's variables
// are one entry.
func (l varList) describe() string {
	parts := make([]string, 0, len(l.names)+len(l.prefixes))
	geoip2 := false
	for _, n := range l.names {
		if strings.HasPrefix(n, "geoip2_") {
			geoip2 = true
			continue
		}
		parts = append(parts, "$"+n)
	}
	for _, p := range l.prefixes {
		parts = append(parts, "$"+p+"*")
	}
	if geoip2 {
		parts = append(parts, "the $geoip2_* variables of use-geoip2")
	}
	return strings.Join(parts, ", ")
}

func varNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// checkVars checks every variable of v against allow. With braces,
// "${name}" is accepted too (a "{" or "}" anywhere else is refused by the
// caller's character check).
func checkVars(v string, allow varList, braces bool) error {
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		j := i + 1
		var name string
		switch {
		case braces && j < len(v) && v[j] == '{':
			end := strings.IndexByte(v[j:], '}')
			if end < 0 {
				return fmt.Errorf("holds %s without its closing \"}\"", ValueQuote(v[i:]))
			}
			name = v[j+1 : j+end]
			for k := 0; k < len(name); k++ {
				if !varNameChar(name[k]) {
					return fmt.Errorf("holds the variable %s: a variable name is letters, digits and _", ValueQuote(v[i:j+end+1]))
				}
			}
			i = j + end
		default:
			for j < len(v) && varNameChar(v[j]) {
				j++
			}
			name = v[i+1 : j]
			i = j - 1
		}
		if name == "" {
			return fmt.Errorf("holds a \"$\" that starts no variable name; variables must be one of %s", allow.describe())
		}
		if !allow.allows(name) {
			return fmt.Errorf("holds the variable $%s: variables must be one of %s", name, allow.describe())
		}
	}
	return nil
}
