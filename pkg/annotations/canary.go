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
		set: annString(valueRegexp, func(s *annotationState) *string { return &s.out.Canary.TrafficShaping.HeaderPattern })},
	{Name: "canary-by-header-value", Kind: kindHeaderValue, CanaryOnly: true, Description: "Value of canary-by-header that sends a request to the canary.",
		set: annString(valueHeaderValue, func(s *annotationState) *string { return &s.out.Canary.TrafficShaping.HeaderValue })},
	{Name: "canary-weight", Kind: kindInt, CanaryOnly: true, Default: "0", Description: "Share of requests, out of canary-weight-total, sent to the canary.",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.out.Canary.TrafficShaping.Weight })},
	{Name: "canary-weight-total", Kind: kindInt, CanaryOnly: true, Default: "100", Description: "Total that canary-weight is a share of.",
		set: annInt(1, MaxInt32, func(s *annotationState) *int { return &s.out.Canary.TrafficShaping.WeightTotal })},
}
