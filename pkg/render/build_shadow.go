package render

import (
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Cross-namespace host sharing.
//
// ingress-nginx merges the paths of every Ingress of a host into one server
// block, whatever their namespaces: the longest prefix wins, an Exact path
// wins over a Prefix one, and a regex location (use-regex or rewrite-target
// on any Ingress of the host turns every path of the host into one) wins
// over any prefix. So an Ingress in one namespace can take requests that an
// older Ingress in another namespace serves, with none of that Ingress's
// settings (its allowlist, its auth …).
//
// Unless --allow-cross-namespace-host-sharing is set, a path of a younger
// Ingress that would take a request away from a kept path of an older
// Ingress of another namespace on the same host is a Problem and is not
// served. "Take away" is decided on the nginx locations the writer makes
// (model.LocationMatchers), with nginx's rules: an "=" location wins over
// everything; among prefix locations the longest wins; a regex location
// ("~*", case-insensitive) wins over every prefix location, and among
// regex locations the first in order wins. A younger location shadows an
// older one when some URI matches both and nginx would choose the younger:
//
//   - young "= q": the older is "= q" (unless the young one is only the
//     "= q" that a Prefix path adds: an Exact path of q keeps it), a prefix
//     that q starts with, or a regex that may match q;
//   - young prefix q: the older is a shorter prefix that q starts with;
//   - young regex: the older is a prefix, or a regex written after it,
//     that may match a URI the young regex matches.
//
// Whether a regex may match is decided on its literal prefix (the plain
// characters it starts with, before any metacharacter, escape or
// quantified character): two URI sets are disjoint when a literal prefix
// and the other's prefix differ at some position (ASCII, ignoring case, as
// "~*" does); anything else counts as overlapping. A regex with an
// alternation anywhere has no literal prefix: "^/a|/b" is not anchored in
// its second branch.
//
// Paths of the same namespace keep ingress-nginx's rules among themselves,
// and the "/" that a spec.defaultBackend adds is a fallback that any path
// may take from, as before.

// claimKind is how an nginx location matches.
type claimKind int

const (
	claimExact  claimKind = iota // "= value"
	claimPrefix                  // "value"
	claimRegex                   // "~* ^…", value is its literal prefix
)

// claim is one nginx location of a path, as the shadow rules see it.
type claim struct {
	kind  claimKind
	value string
	// implied marks the "= /p" that a Prefix path /p adds: an Exact path
	// of /p takes that location instead.
	implied bool
}

// claimsOf gives the locations that the writer makes for l (see
// model.LocationMatchers), without the "= /p" hand-over to an Exact path, which
// the rules above take into account through claim.implied.
func claimsOf(l *model.Location) []claim {
	var out []claim
	for _, m := range model.LocationMatchers(l, nil) {
		switch m.Modifier {
		case "=":
			out = append(out, claim{kind: claimExact, value: m.Path, implied: l.PathType != model.PathExact})
		case "~*":
			out = append(out, claim{kind: claimRegex, value: regexLiteralPrefix(l.Path)})
		default:
			out = append(out, claim{kind: claimPrefix, value: m.Path})
		}
	}
	return out
}

// regexLiteralPrefix returns the characters that every URI a use-regex path
// matches starts with (ignoring ASCII case): the leading characters that
// are plain in PCRE2 and RE2 alike, without the last one when a quantifier
// follows it. "" when the path holds "|" anywhere.
func regexLiteralPrefix(path string) string {
	if strings.Contains(path, "|") {
		return ""
	}
	i := 0
	for i < len(path) && plainRegexByte(path[i]) {
		i++
	}
	if i < len(path) && strings.IndexByte("*?+{", path[i]) >= 0 && i > 0 {
		i--
	}
	return path[:i]
}

// plainRegexByte reports whether c stands for itself in a regex, outside a
// character class, in both PCRE2 and RE2.
func plainRegexByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("/-_~%@:,;=&", c) >= 0
}

// foldDiffer reports whether a and b provably differ, ignoring ASCII case,
// at some position before the end of the shorter: then no string starts
// with both. A non-ASCII byte proves nothing (PCRE2 folds some of them
// onto ASCII letters in UTF mode).
func foldDiffer(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x >= 0x80 || y >= 0x80 {
			return false
		}
		if lowerASCII(x) != lowerASCII(y) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// keptPath is a path already on a server: its location and its claims.
type keptPath struct {
	pl     *pendingLocation
	loc    *model.Location // the location as written (Regex decided)
	claims []claim
}

// hostClaims indexes the kept paths of one server by claim, for the shadow
// check: exact and prefix claims by value (a young "= q" or prefix q only
// meets older prefixes that q starts with), regex claims in a list.
type hostClaims struct {
	exact  map[string][]*keptPath
	prefix map[string][]*keptPath
	regex  []*keptPath
	all    []*keptPath
}

func (h *hostClaims) add(k *keptPath) {
	if h.exact == nil {
		h.exact, h.prefix = map[string][]*keptPath{}, map[string][]*keptPath{}
	}
	h.all = append(h.all, k)
	for _, c := range k.claims {
		switch c.kind {
		case claimExact:
			h.exact[c.value] = append(h.exact[c.value], k)
		case claimPrefix:
			h.prefix[c.value] = append(h.prefix[c.value], k)
		case claimRegex:
			h.regex = append(h.regex, k)
		}
	}
}

// shadowOf returns the first kept path of an older Ingress of another
// namespace that young (with claims yc) would take requests from; nil
// when there is none.
func (h *hostClaims) shadowOf(young *pendingLocation, yl *model.Location, yc []claim) *keptPath {
	guarded := func(k *keptPath) bool {
		o := k.pl
		return !o.synthetic && o.ing != young.ing && o.ing.ref.Namespace != young.ing.ref.Namespace &&
			olderFirst(o.ing.obj, young.ing.obj)
	}
	for _, c := range yc {
		switch c.kind {
		case claimExact:
			for _, k := range h.exact[c.value] {
				if guarded(k) && (!c.implied || k.claimsImplied(c.value)) {
					return k
				}
			}
			if k := h.prefixOf(c.value, len(c.value), guarded); k != nil {
				return k
			}
			for _, k := range h.regex {
				if guarded(k) && k.regexMayMatch(c.value) {
					return k
				}
			}
		case claimPrefix:
			if k := h.prefixOf(c.value, len(c.value)-1, guarded); k != nil {
				return k
			}
		case claimRegex:
			for _, k := range h.all {
				if guarded(k) && k.overlapsRegex(c.value, yl) {
					return k
				}
			}
		}
	}
	return nil
}

// prefixOf returns a guarded kept path with a prefix claim that s starts
// with and that is at most n bytes long.
func (h *hostClaims) prefixOf(s string, n int, guarded func(*keptPath) bool) *keptPath {
	for i := 1; i <= n && i <= len(s); i++ {
		for _, k := range h.prefix[s[:i]] {
			if guarded(k) {
				return k
			}
		}
	}
	return nil
}

// claimsImplied reports whether k's "= q" is only the one its Prefix path
// adds (so a younger Exact q takes it, a younger Prefix's does not).
func (k *keptPath) claimsImplied(q string) bool {
	for _, c := range k.claims {
		if c.kind == claimExact && c.value == q {
			return c.implied
		}
	}
	return false
}

// regexMayMatch reports whether a regex claim of k may match the URI q.
func (k *keptPath) regexMayMatch(q string) bool {
	for _, c := range k.claims {
		if c.kind == claimRegex && len(q) >= len(c.value) && !foldDiffer(q, c.value) {
			return true
		}
	}
	return false
}

// overlapsRegex reports whether the young regex with literal prefix lit
// (location yl) may take a URI from k: one of k's prefixes, or a regex of
// k that nginx tries after yl, may match a URI that starts with lit.
func (k *keptPath) overlapsRegex(lit string, yl *model.Location) bool {
	for _, c := range k.claims {
		switch c.kind {
		case claimPrefix:
			if !foldDiffer(lit, c.value) {
				return true
			}
		case claimRegex:
			if locationBefore(yl, k.loc) && !foldDiffer(lit, c.value) {
				return true
			}
		}
	}
	return false
}

// describePath names a path for a Problem: "/p" (Prefix) or "/p.*"
// (ImplementationSpecific, regex).
func describePath(l *model.Location) string {
	if l.Regex {
		return fmt.Sprintf("%q (%s, regex)", l.Path, l.PathType)
	}
	return fmt.Sprintf("%q (%s)", l.Path, l.PathType)
}
