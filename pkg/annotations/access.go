package annotations

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Access by client address: allowlist-source-range (and its old name
// whitelist-source-range) and denylist-source-range. An invalid entry
// fails closed: the location refuses every request, as in ingress-nginx.

// sourceRange is a parsed allow or deny list before the lists are combined.
type sourceRange struct {
	given   bool     // the annotation is present
	invalid bool     // at least one entry could not be parsed
	cidrs   []string // the entries that parsed, normalized
}

// accessState stages the source range annotations until finishAccess.
type accessState struct {
	allowlist, whitelist, denylist sourceRange
}

// finishAccess sets the location's access control; allowlist-source-range
// wins over its old name whitelist-source-range.
func (s *annotationState) finishAccess(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	allow := s.allowlist
	if !allow.given {
		allow = s.whitelist
	} else if s.whitelist.given {
		problems = append(problems, model.Problemf(ing, Field("whitelist-source-range"),
			"ignored because allowlist-source-range is also set and takes precedence"))
	}
	s.out.Location.Access = model.AccessControl{
		Allow:   allow.cidrs,
		Deny:    s.denylist.cidrs,
		DenyAll: allow.invalid || s.denylist.invalid,
	}
	return problems
}

// accessAnnotations are the annotations of this family, sorted by name.
var accessAnnotations = []annotationSpec{
	{Name: "allowlist-source-range", Kind: kindCIDRList, Description: "Only clients from these networks may use the Ingress's paths.",
		OnInvalid: "every request to the Ingress's paths is refused until it is fixed (fail closed, as in ingress-nginx)",
		set:       func(s *annotationState, v string) error { return annSourceRange(&s.allowlist, v) }},
	{Name: "denylist-source-range", Kind: kindCIDRList, Description: "Clients from these networks are refused.",
		OnInvalid: "every request to the Ingress's paths is refused until it is fixed (fail closed, as in ingress-nginx)",
		set:       func(s *annotationState, v string) error { return annSourceRange(&s.denylist, v) }},
	{Name: "whitelist-source-range", Kind: kindCIDRList, Description: "Old name of allowlist-source-range, which wins when both are set.",
		OnInvalid: "every request to the Ingress's paths is refused until it is fixed (fail closed, as in ingress-nginx)",
		set:       func(s *annotationState, v string) error { return annSourceRange(&s.whitelist, v) }},
}

// annSourceRange parses a comma separated list of CIDRs and addresses into
// r. Any invalid entry makes the whole list fail closed (r.invalid), as in
// ingress-nginx, where the location then refuses every request.
func annSourceRange(r *sourceRange, v string) error {
	r.given = true
	var bad []string
	seen := map[string]bool{}
	for _, e := range valueList(v) {
		cidr, err := valueCIDR(e)
		if err != nil {
			bad = append(bad, ValueQuote(e))
			continue
		}
		if !seen[cidr] {
			seen[cidr] = true
			r.cidrs = append(r.cidrs, cidr)
		}
	}
	sort.Strings(r.cidrs)
	if len(bad) > 0 {
		r.invalid = true
		return fmt.Errorf("entries %s are not IP addresses or CIDR networks (e.g. \"10.0.0.0/8\", \"192.168.1.7\", \"2001:db8::/32\")", strings.Join(bad, ", "))
	}
	if len(r.cidrs) == 0 {
		r.invalid = true
		return fmt.Errorf("holds no IP address or CIDR network")
	}
	return nil
}
