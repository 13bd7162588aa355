package annotations

// Rate limits per client address: limit-rps (with limit-burst-multiplier)
// and limit-connections.

// defaultBurstMultiplier is limit-burst-multiplier's default, as in
// ingress-nginx.
const defaultBurstMultiplier = 5

// MaxLimitConn is the largest limit_conn nginx takes: nginx 1.22.1's
// nginx -t passes "limit_conn z 65535" and refuses 65536 ("connection
// limit must be less 65536").
const MaxLimitConn = 65535

// rateLimitState stages limit-burst-multiplier until finishRateLimit.
type rateLimitState struct {
	burstMultiplier int
}

func newRateLimitState() rateLimitState {
	return rateLimitState{burstMultiplier: defaultBurstMultiplier}
}

// finishRateLimit sets the burst multiplier when limit-rps is set.
func (s *annotationState) finishRateLimit() {
	if loc := &s.out.Location; loc.Limits.RPS > 0 {
		loc.Limits.BurstMultiplier = s.burstMultiplier
	}
}

// rateLimitAnnotations are the annotations of this family, sorted by name.
var rateLimitAnnotations = []annotationSpec{
	{Name: "limit-burst-multiplier", Kind: kindInt, Default: "5", Description: "Burst allowed above limit-rps, as a multiple of it.",
		set: annInt(1, 1000, func(s *annotationState) *int { return &s.burstMultiplier })},
	{Name: "limit-connections", Kind: kindInt, Default: "0", Description: "Concurrent connections allowed per client address, at most 65535 (0: no limit).",
		set: annInt(0, MaxLimitConn, func(s *annotationState) *int { return &s.out.Location.Limits.Connections })},
	{Name: "limit-rps", Kind: kindInt, Default: "0", Description: "Requests per second allowed per client address (0: no limit).",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.out.Location.Limits.RPS })},
}
