package model

import (
	"regexp"
	"strings"
)

// ServerName is how a host reaches server_name (and $server_name), before
// quoting. An Ingress wildcard "*.foo.com" covers exactly one label (the
// Ingress spec; ingress-nginx writes the same single-label regex), while
// nginx's own "*.foo.com" covers any number of them: baz.bar.foo.com
// would be served. So a wildcard becomes a regex name of one label. nginx
// still prefers an exact name to it (exact names are looked up first,
// regexes last); two single-label regexes never match the same host
// unless they are the same, so their order does not matter. nginx
// lowercases the Host and drops a trailing dot before matching, and Build
// allows only DNS names (lower case, digits, "-", ".") after "*.", so the
// regex needs no case folding. Any other name is written as it is.
func ServerName(host string) string {
	rest, ok := strings.CutPrefix(host, "*.")
	if !ok {
		return host
	}
	return `~^[\w-]+\.` + regexp.QuoteMeta(rest) + `$`
}
