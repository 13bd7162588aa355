// Package pcrecases holds regex patterns with the verdict of nginx 1.22.1
// -t (PCRE2 10.42) on `location ~* "^PATTERN"`, or the reason render
// refuses a pattern that nginx would read otherwise than Go. They are
// shared by the tests of pkg/annotations (CheckRegex) and the nginx -t
// tests of the rendered corpus.
//
// It is a test helper: only _test.go files import it, never product code.
// It imports the standard library only.
package pcrecases

import "strings"

// Case is one pattern and its verdict: Want is a part of the error, ""
// for accepted.
type Case struct {
	Re, Want string
}

// Cases are the patterns; nginxcheck_test.go feeds the same cases through
// a real nginx -t.
var Cases = []Case{
	// accepted: what paths use
	{`/api/(.*)`, ""},
	{`/foo(/|$)(.*)`, ""},
	{`/[\w-]+/x`, ""},
	{`/[-\w.]+`, ""},
	{`/v[0-9]+/.*`, ""},
	{`/[^/]+/edit`, ""},
	{`/[^:]+`, ""},
	{`/a[.]json`, ""},
	{`/[:]`, ""},
	{`/(?i)abc(?-i)D`, ""},
	{`/(?:a|b)?c*?d+?`, ""},
	{`/\d{2,4}-\w{3}`, ""},
	{`/x{,5}`, "quantifier to PCRE2 10.43"},
	{`/x{ 2 }`, "quantifier to PCRE2 10.43"},
	{`/users/{id}`, ""},
	{`/a{2}{b`, ""},
	{`/\x41\x{7f}`, ""},
	{`/\Q(?P<host>\E`, ""},
	{`/[[:alpha:][:^digit:]]`, ""},
	{`/\.well-known/.+`, ""},
	{`/(^)*`, ""},
	{`/(ab){1000}`, ""},
	{`/[]a]`, ""},
	{`/[a-b-c]`, ""},
	// named captures: each is an nginx variable
	{`/(?P<host>.*)`, "named captures"},
	{`/(?<uri>.*)`, "named captures"},
	{`/(?P<request_uri>x)`, "named captures"},
	{`/(?P<remote_addr>x)`, "named captures"},
	{`/(?P<status>x)`, "named captures"},
	{`/(?P<proxy_upstream_name>x)`, "named captures"},
	{`/(?P<a123456789012345678901234567890123>x)`, "named captures"},
	{`/(?P<a>x)(?P<a>y)`, "named captures"},
	{`/(?P<foo>x)`, "named captures"},
	// code points beyond one byte, octal, back references
	{`/\x{100}`, `\x100 is not supported`},
	{`/\x{ff}`, `\xff is not supported`},
	{`/\x80`, `\x80 is not supported`},
	{`/\777`, `\7 is not supported`},
	{`/\0`, `\0 is not supported`},
	{`/\12`, `\1 is not supported`},
	{"/é", "must be ASCII"},
	{`/\pL`, `\p is not supported`},
	{`/\P{Greek}`, `\P is not supported`},
	{`/\v`, `\v is not supported`},
	// class ranges at a set
	{`/[\d-z]`, "starts at a set"},
	{`/[\w-.]`, "starts at a set"},
	{`/[[:alpha:]-z]`, "starts at a set"},
	{`/[\v-z]`, `\v is not supported`},
	{`/[a-\d]`, "error parsing regexp"},
	// POSIX syntax outside a class, collating elements
	{`/[:alpha:]`, "POSIX class"},
	{`/[.a.]`, "POSIX class"},
	{`/[=a=]`, "POSIX class"},
	{`/[[.a.]]`, `"[" at byte`},
	{`/[[=a=]]`, `"[" at byte`},
	// quantifiers after assertions
	{`/\b*`, "does not follow a repeatable item"},
	{`/x$*`, "does not follow a repeatable item"},
	{`/x\A+`, "does not follow a repeatable item"},
	{`/x\z?`, "does not follow a repeatable item"},
	{`/x(?i){2}`, "does not follow a repeatable item"},
	// sizes
	{`/(abcdefgh){1000}`, ""}, // 24 KB compiled
	{"/(" + strings.Repeat("abcdefgh", 4) + "){1000}", "too large"}, // PCRE2: too large
	{`/((abcdefghabcdefgh){30}){30}`, "too large"},                  // 36 KB: within PCRE2's 64 KB, beyond our margin
	{"/" + strings.Repeat("(", 33) + strings.Repeat(")", 33), "nests groups"},
	{"/" + strings.Repeat("(", 32) + strings.Repeat(")", 32), ""},
	// Go's own refusals stay
	{`/(`, "error parsing regexp"},
	{`/(?=x)`, "error parsing regexp"},
	{`/a**`, "error parsing regexp"},
}
