package annotations

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestAnnotationLimitExempt(t *testing.T) {
	tests := []struct {
		name     string
		kv       []string
		want     model.RateLimits
		problems []string // fields of the Problems, in order
	}{
		{name: "whitelist with rps",
			kv:   []string{"limit-rps", "5", "limit-whitelist", "192.168.0.5, 10.0.0.1/8,2001:db8::/32,10.0.0.0/8"},
			want: model.RateLimits{RPS: 5, BurstMultiplier: 5, Exempt: []string{"10.0.0.0/8", "192.168.0.5/32", "2001:db8::/32"}}},
		{name: "allowlist with connections",
			kv:   []string{"limit-connections", "3", "limit-allowlist", "10.0.0.0/8"},
			want: model.RateLimits{Connections: 3, Exempt: []string{"10.0.0.0/8"}}},
		{name: "allowlist wins over whitelist",
			kv:       []string{"limit-rps", "1", "limit-allowlist", "10.0.0.0/8", "limit-whitelist", "192.168.0.0/16"},
			want:     model.RateLimits{RPS: 1, BurstMultiplier: 5, Exempt: []string{"10.0.0.0/8"}},
			problems: []string{"limit-whitelist"}},
		{name: "an invalid entry exempts no one",
			kv:       []string{"limit-rps", "1", "limit-whitelist", "10.0.0.0/8, 10.0.0.300"},
			want:     model.RateLimits{RPS: 1, BurstMultiplier: 5},
			problems: []string{"limit-whitelist"}},
		{name: "injection attempt is an invalid entry",
			kv:       []string{"limit-rps", "1", "limit-whitelist", `10.0.0.0/8 1; } server { listen 81; #`},
			want:     model.RateLimits{RPS: 1, BurstMultiplier: 5},
			problems: []string{"limit-whitelist"}},
		{name: "without a limit there is nothing to exempt",
			kv:   []string{"limit-whitelist", "10.0.0.0/8"},
			want: model.RateLimits{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseIngress(testIngress, annots(tt.kv...))
			if !reflect.DeepEqual(got.Location.Limits, tt.want) {
				t.Errorf("limits %+v, want %+v", got.Location.Limits, tt.want)
			}
			var fields []string
			for _, p := range problems {
				fields = append(fields, p.Field)
			}
			var want []string
			for _, f := range tt.problems {
				want = append(want, Field(f))
			}
			if !reflect.DeepEqual(fields, want) {
				t.Errorf("problem fields %v, want %v (%v)", fields, want, problems)
			}
			for _, p := range problems {
				if p.Field == Field("limit-whitelist") && strings.Contains(tt.kv[len(tt.kv)-1], "300") && !strings.Contains(p.Reason, "no client is exempt") {
					t.Errorf("reason %q does not say what happens", p.Reason)
				}
			}
		})
	}
}
