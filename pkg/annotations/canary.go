package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// Canaries: canary "true" makes the Ingress's backends take part of the
// traffic of the Ingress with the same host and path; the canary-*
// annotations say which part. They are read only on a canary.

// Canary are the canary annotations. They are read only when
// canary is "true"; on other Ingresses they are ignored, as in ingress-nginx.
type Canary struct {
	Enabled        bool
	TrafficShaping model.TrafficShaping
	// AffinityLegacy is affinity-canary-behavior "legacy": the canary
	// backend keeps its own affinity settings instead of taking its
	// primary's (the default, "sticky", makes canary answers carry the
	// primary's affinity cookie, as ingress-nginx does).
	AffinityLegacy bool
}

// defaultCanaryWeightTotal is canary-weight-total's default, as in
// ingress-nginx.
const defaultCanaryWeightTotal = 100

// finishCanary defaults canary-weight-total and refuses a canary-weight
// above it.
func (s *annotationState) finishCanary(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	if c := &s.out.Canary; c.Enabled {
		if c.TrafficShaping.WeightTotal == 0 {
			c.TrafficShaping.WeightTotal = defaultCanaryWeightTotal
		}
		if t := &c.TrafficShaping; t.HeaderValue != "" || t.Header == "" {
			// canary-by-header-value wins over the pattern, and without
			// canary-by-header no request is looked at.
			t.HeaderPatternInvalid = false
		}
		if c.TrafficShaping.Weight > c.TrafficShaping.WeightTotal {
			problems = append(problems, model.Problemf(ing, Field("canary-weight"),
				"invalid value %d: more than canary-weight-total (%d); using the default (0)",
				c.TrafficShaping.Weight, c.TrafficShaping.WeightTotal))
			c.TrafficShaping.Weight = 0
		}
	}
	return problems
}

// canaryAnnotations are the annotations of this family, sorted by name.
var canaryAnnotations = []annotationSpec{
	{Name: "canary", Kind: kindBool, Default: "false", Description: "The Ingress is a canary: its backends take part of the traffic of the Ingress with the same host and path.",
		set: annBool(func(s *annotationState) *bool { return &s.out.Canary.Enabled })},
	{Name: "canary-by-cookie", Kind: kindToken, CanaryOnly: true, Description: `Cookie that sends a request to the canary when "always" and never when "never".`,
		set: annString(valueToken, func(s *annotationState) *string { return &s.out.Canary.TrafficShaping.Cookie })},
	{Name: "canary-by-header", Kind: kindToken, CanaryOnly: true, Description: `Header that sends a request to the canary when "always" (or canary-by-header-value) and never when "never".`,
		set: annString(valueToken, func(s *annotationState) *string { return &s.out.Canary.TrafficShaping.Header })},
	{Name: "canary-by-header-pattern", Kind: kindRegexp, CanaryOnly: true, Description: "Regular expression that the canary-by-header value must match; ignored when canary-by-header-value is set.",
		OnInvalid: "a request carrying the canary-by-header header goes to the primary, whatever its cookie, as in ingress-nginx (whose Lua fails to match it)",
		set:       annCanaryHeaderPattern},
	{Name: "canary-by-header-value", Kind: kindHeaderValue, CanaryOnly: true, Description: "Value of canary-by-header that sends a request to the canary.",
		set: annString(valueHeaderValue, func(s *annotationState) *string { return &s.out.Canary.TrafficShaping.HeaderValue })},
	{Name: "canary-weight", Kind: kindInt, CanaryOnly: true, Default: "0", Description: "Share of requests, out of canary-weight-total, sent to the canary.",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.out.Canary.TrafficShaping.Weight })},
	{Name: "canary-weight-total", Kind: kindInt, CanaryOnly: true, Default: "100", Description: "Total that canary-weight is a share of.",
		set: annInt(1, MaxInt32, func(s *annotationState) *int { return &s.out.Canary.TrafficShaping.WeightTotal })},
}

// annCanaryHeaderPattern sets canary-by-header-pattern. An invalid pattern
// is not dropped: ingress-nginx passes it to Lua, where the failed match
// sends a request carrying the header to the primary before the cookie is
// looked at; HeaderPatternInvalid says so without handing Lua the pattern.
func annCanaryHeaderPattern(s *annotationState, v string) error {
	t := &s.out.Canary.TrafficShaping
	r, err := valueRegexp(v)
	if err != nil {
		t.HeaderPatternInvalid = true
		return err
	}
	t.HeaderPattern = r
	return nil
}
