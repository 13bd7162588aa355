package model

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is invalid input found while building a Config: it names the
// object, the field and the reason. A Problem never stops the rest of the
// config from being built.
type Problem struct {
	Object ObjectRef
	// Field is the path of the offending field, e.g.
	// "metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]".
	Field  string
	Reason string
}

// String gives "kind namespace/name: field: reason", kind in lower case.
func (p Problem) String() string {
	var b strings.Builder
	if p.Object.Kind != "" {
		b.WriteString(strings.ToLower(p.Object.Kind))
		b.WriteByte(' ')
	}
	b.WriteString(p.Object.String())
	if p.Field != "" {
		b.WriteString(": ")
		b.WriteString(p.Field)
	}
	b.WriteString(": ")
	b.WriteString(p.Reason)
	return b.String()
}

// Problemf builds a Problem with a formatted reason.
func Problemf(obj ObjectRef, field, format string, args ...any) Problem {
	return Problem{Object: obj, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// SortProblems sorts problems by object, field and reason and drops exact
// duplicates, so that output is deterministic.
func SortProblems(ps []Problem) []Problem {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Object != b.Object {
			if a.Object.Kind != b.Object.Kind {
				return a.Object.Kind < b.Object.Kind
			}
			if a.Object.Namespace != b.Object.Namespace {
				return a.Object.Namespace < b.Object.Namespace
			}
			return a.Object.Name < b.Object.Name
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Reason < b.Reason
	})
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}
