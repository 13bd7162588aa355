package trace

import (
	"regexp"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// chooseCanary is lua/canary.lua's choose for the primary backend p with
// alternatives: alternatives unknown or without endpoints are skipped;
// then, alternative by alternative, the header (value, pattern, or
// "always"/"never"), then the cookie ("always"/"never"), then the weight
// (random unless it is 0 or at least the total). Sticky cookies of
// session affinity are not evaluated (a note says so).
func chooseCanary(c *model.Config, r reqView, p *model.Backend) *CanaryDecision {
	if len(p.AlternativeBackends) == 0 {
		return nil
	}
	d := &CanaryDecision{Primary: p.Name, Chosen: p.Name, Rule: "none"}
	var cands []*model.Backend
	for _, name := range p.AlternativeBackends {
		b := c.Backend(name)
		switch {
		case b == nil:
			d.Skipped = append(d.Skipped, name+": unknown backend")
		case len(b.Endpoints) == 0:
			d.Skipped = append(d.Skipped, name+": no endpoints")
		default:
			cands = append(cands, b)
		}
	}
	out := make([]bool, len(cands))
	pick := func(b *model.Backend, rule string) *CanaryDecision {
		d.Chosen, d.Canary, d.Rule = b.Name, b.Name, rule
		return d
	}
	for i, b := range cands {
		ts := &b.TrafficShaping
		if ts.Header == "" {
			continue
		}
		v, ok := r.header(ts.Header)
		if !ok {
			continue
		}
		switch {
		case ts.HeaderValue != "":
			if v == ts.HeaderValue {
				return pick(b, "header-value")
			}
		case ts.HeaderPatternInvalid:
			out[i] = true
		case ts.HeaderPattern != "":
			re, err := regexp.Compile(ts.HeaderPattern)
			if err != nil {
				out[i] = true
				d.Skipped = append(d.Skipped, b.Name+": header pattern not evaluated: "+err.Error())
				continue
			}
			if re.MatchString(v) {
				return pick(b, "header-pattern")
			}
		case v == "always":
			return pick(b, "header")
		case v == "never":
			out[i] = true
		}
	}
	for i, b := range cands {
		ts := &b.TrafficShaping
		if out[i] || ts.Cookie == "" {
			continue
		}
		switch v, _ := r.cookie(ts.Cookie); v {
		case "always":
			return pick(b, "cookie")
		case "never":
			out[i] = true
		}
	}
	for i, b := range cands {
		ts := &b.TrafficShaping
		if out[i] || ts.Weight <= 0 {
			continue
		}
		total := ts.WeightTotal
		if total <= 100 {
			total = 100
		}
		d.Weight, d.WeightTotal = ts.Weight, total
		if ts.Weight >= total {
			return pick(b, "weight")
		}
		d.Canary, d.Rule, d.Random = b.Name, "weight", true
		return d
	}
	return d
}

// canaryEffect describes d in a step.
func canaryEffect(d *CanaryDecision) string {
	switch {
	case d.Random:
		return "random: " + d.Canary + " with weight " + strconv.Itoa(d.Weight) + "/" + strconv.Itoa(d.WeightTotal) + ", else " + d.Chosen
	case d.Rule == "none":
		return "no canary rule applies: primary " + d.Primary
	}
	return "by " + d.Rule + ": " + d.Chosen
}
