package annotations

import (
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Redirects: permanent-redirect and temporal-redirect answer every request
// of the location with a redirect; temporal-redirect wins, as in
// ingress-nginx.

// Defaults of the redirect codes, as in ingress-nginx.
const (
	defaultPermanentRedirect = 301
	defaultTemporalRedirect  = 302
)

// redirectState stages the redirect annotations until finishRedirect.
type redirectState struct {
	permanentURL, temporalURL   string
	permanentCode, temporalCode int
}

func newRedirectState() redirectState {
	return redirectState{permanentCode: defaultPermanentRedirect, temporalCode: defaultTemporalRedirect}
}

// finishRedirect sets the location's redirect; temporal-redirect wins over
// permanent-redirect, as in ingress-nginx.
func (s *annotationState) finishRedirect(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	loc := &s.out.Location
	switch {
	case s.temporalURL != "":
		loc.Redirect = &model.Redirect{URL: s.temporalURL, Code: s.temporalCode}
		if s.permanentURL != "" {
			problems = append(problems, model.Problemf(ing, Field("permanent-redirect"),
				"ignored because temporal-redirect is also set and takes precedence"))
		}
	case s.permanentURL != "":
		loc.Redirect = &model.Redirect{URL: s.permanentURL, Code: s.permanentCode}
	}
	return problems
}

// redirectAnnotations are the annotations of this family, sorted by name.
var redirectAnnotations = []annotationSpec{
	{Name: "permanent-redirect", Kind: kindURL, Description: "Answer every request with a redirect to this URL.",
		set: annString(valueRedirectURL, func(s *annotationState) *string { return &s.permanentURL })},
	{Name: "permanent-redirect-code", Kind: kindInt, Default: "301", Description: "Status code of permanent-redirect: 301, 302, 303, 307 or 308.",
		set: annRedirectCode(func(s *annotationState) *int { return &s.permanentCode }, 301, 302, 303, 307, 308)},
	{Name: "temporal-redirect", Kind: kindURL, Description: "Answer every request with a redirect to this URL; wins over permanent-redirect.",
		set: annString(valueRedirectURL, func(s *annotationState) *string { return &s.temporalURL })},
	{Name: "temporal-redirect-code", Kind: kindInt, Default: "302", Description: "Status code of temporal-redirect: 301, 302, 303 or 307.",
		set: annRedirectCode(func(s *annotationState) *int { return &s.temporalCode }, 301, 302, 303, 307)},
}

func annRedirectCode(field func(*annotationState) *int, codes ...int) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		n, err := valueInt(v, 100, 599)
		if err == nil {
			for _, c := range codes {
				if n == c {
					*field(s) = n
					return nil
				}
			}
		}
		q := make([]string, len(codes))
		for i, c := range codes {
			q[i] = fmt.Sprint(c)
		}
		return fmt.Errorf("must be one of %s", strings.Join(q, ", "))
	}
}
