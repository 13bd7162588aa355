package render

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
)

// checkHost validates an Ingress host: an RFC 1123 subdomain, or "*."
// followed by one.
func checkHost(host string) error {
	name := strings.TrimPrefix(host, "*.")
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("host %q is not a valid DNS name: %s", host, strings.Join(errs, "; "))
	}
	return nil
}

// checkPath validates an Ingress path. Every path starts with "/" and holds
// no whitespace or control characters; a path matched as a regex must
// compile (RE2 syntax, the common part of RE2 and nginx's PCRE).
func checkPath(path string, regex bool) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("path %q must start with \"/\"", path)
	}
	for _, r := range path {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("path %q holds whitespace or a control character", path)
		}
	}
	if regex {
		if _, err := regexp.Compile(path); err != nil {
			return fmt.Errorf("path %q is not a valid regular expression: %v", path, err)
		}
	}
	return nil
}

// matcherKey gives the nginx location that a path claims on its server:
// two paths with the same key would be a duplicate location. The "= /p"
// location that a Prefix path adds is left out: an Exact path of the same
// value takes it (see locationMatchers).
func matcherKey(path string, pt string, regex bool) string {
	switch {
	case pt == "Exact":
		return "= " + path
	case regex:
		return "~* ^" + path
	case pt == "Prefix":
		p := strings.TrimRight(path, "/")
		if p == "" {
			return "/"
		}
		return p + "/"
	default:
		return path
	}
}
