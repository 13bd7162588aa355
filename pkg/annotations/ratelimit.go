package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// Rate limits per client address: limit-rps and limit-rpm (with
// limit-burst-multiplier) and limit-connections, the client networks
// exempt from them (limit-allowlist, and its old name limit-whitelist),
// and the response rate per request (limit-rate, limit-rate-after).

// defaultBurstMultiplier is limit-burst-multiplier's default, as in
// ingress-nginx.
const defaultBurstMultiplier = 5

// MaxLimitConn is the largest limit_conn nginx takes: nginx 1.22.1's
// nginx -t passes "limit_conn z 65535" and refuses 65536 ("connection
// limit must be less 65536").
const MaxLimitConn = 65535

// rateLimitState stages limit-burst-multiplier and the exempt networks
// until finishRateLimit.
type rateLimitState struct {
	burstMultiplier int
	// limitAllowlist and limitWhitelist are the parsed exempt networks.
	limitAllowlist, limitWhitelist sourceRange
}

func newRateLimitState() rateLimitState {
	return rateLimitState{burstMultiplier: defaultBurstMultiplier}
}

// finishRateLimit sets the burst multiplier when limit-rps is set and the
// exempt networks when a limit is set; limit-allowlist wins over its old
// name limit-whitelist, as in ingress-nginx. An exempt list with an
// invalid entry exempts no one: the limits apply to every client (the
// Problem is reported by the setter).
func (s *annotationState) finishRateLimit(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	loc := &s.out.Location
	if loc.Limits.RPS > 0 || loc.Limits.RPM > 0 {
		loc.Limits.BurstMultiplier = s.burstMultiplier
	}
	exempt := s.limitAllowlist
	if !exempt.given {
		exempt = s.limitWhitelist
	} else if s.limitWhitelist.given {
		problems = append(problems, model.Problemf(ing, Field("limit-whitelist"),
			"ignored because limit-allowlist is also set and takes precedence"))
	}
	if !exempt.invalid && (loc.Limits.RPS > 0 || loc.Limits.RPM > 0 || loc.Limits.Connections > 0) {
		loc.Limits.Exempt = exempt.cidrs
	}
	return problems
}

// rateLimitAnnotations are the annotations of this family, sorted by name.
var rateLimitAnnotations = []annotationSpec{
	{Name: "limit-allowlist", Kind: kindCIDRList, Description: "Clients from these networks are exempt from limit-rps, limit-rpm and limit-connections.",
		OnInvalid: "no client is exempt: the limits apply to every client until it is fixed",
		set:       func(s *annotationState, v string) error { return annSourceRange(&s.limitAllowlist, v) }},
	{Name: "limit-burst-multiplier", Kind: kindInt, Default: "5", Description: "Burst allowed above limit-rps and limit-rpm, as a multiple of each.",
		set: annInt(1, 1000, func(s *annotationState) *int { return &s.burstMultiplier })},
	{Name: "limit-connections", Kind: kindInt, Default: "0", Description: "Concurrent connections allowed per client address, at most 65535 (0: no limit).",
		set: annInt(0, MaxLimitConn, func(s *annotationState) *int { return &s.out.Location.Limits.Connections })},
	{Name: "limit-rate", Kind: kindKilobytes, Default: "ConfigMap limit-rate", Description: "Kilobytes per second sent to the client per request (0: no limit).",
		set: func(s *annotationState, v string) error {
			n, err := valueInt(v, 0, MaxInt32)
			if err == nil {
				s.out.Location.Limits.Rate = &n
			}
			return err
		}},
	{Name: "limit-rate-after", Kind: kindKilobytes, Default: "ConfigMap limit-rate-after", Description: "Kilobytes sent at full speed before limit-rate applies.",
		set: func(s *annotationState, v string) error {
			n, err := valueInt(v, 0, MaxInt32)
			if err == nil {
				s.out.Location.Limits.RateAfter = &n
			}
			return err
		}},
	{Name: "limit-rpm", Kind: kindInt, Default: "0", Description: "Requests per minute allowed per client address (0: no limit); with limit-rps both apply.",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.out.Location.Limits.RPM })},
	{Name: "limit-rps", Kind: kindInt, Default: "0", Description: "Requests per second allowed per client address (0: no limit).",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.out.Location.Limits.RPS })},
	{Name: "limit-whitelist", Kind: kindCIDRList, Description: "Old name of limit-allowlist, which wins when both are set.",
		OnInvalid: "no client is exempt: the limits apply to every client until it is fixed",
		set:       func(s *annotationState, v string) error { return annSourceRange(&s.limitWhitelist, v) }},
}
