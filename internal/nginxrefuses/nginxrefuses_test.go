package nginxrefuses

import (
	"strings"
	"testing"
)

func TestPick(t *testing.T) {
	in := Pick(t)
	t.Logf("picked: %s", in.Name)
	ing := in.Ingress("ns", "n", "h.example.com", "svc")
	y := in.YAML("ns", "n", "h.example.com", "svc", "2026-01-01T00:00:00Z")
	for k, v := range ing.Annotations {
		if !strings.Contains(y, k+": ") || !strings.Contains(y, v) {
			t.Errorf("the YAML lacks annotation %s=%s:\n%s", k, v, y)
		}
	}
	if p := ing.Spec.Rules[0].HTTP.Paths[0]; !strings.Contains(y, "pathType: "+string(*p.PathType)) {
		t.Errorf("the YAML lacks path type %s:\n%s", *p.PathType, y)
	}
}
