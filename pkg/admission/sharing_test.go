package admission

import (
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// inNamespace moves a test Ingress to namespace ns.
func inNamespace(ns string) ingressOpt {
	return func(ing *networkingv1.Ingress) { ing.Namespace = ns }
}

// TestCrossNamespaceSharing: the webhook refuses a younger Ingress whose
// path would take requests from an older Ingress of another namespace on
// the same host, and an update of an older one that would take a younger
// one's path that way; with --allow-cross-namespace-host-sharing (the same
// render.Options) it admits both, as ingress-nginx would.
func TestCrossNamespaceSharing(t *testing.T) {
	const host = "shared.example.com"
	existing := func() render.Snapshot {
		s := fixture()
		for _, ns := range []string{"team-a", "team-b"} {
			svc := newService("web")
			svc.Namespace = ns
			s.Services = append(s.Services, svc)
		}
		s.Ingresses = append(s.Ingresses,
			newIngress("admin", host, "/admin", "web", inNamespace("team-a"), created(t0)),
			newIngress("docs", host, "/docs/v2", "web", inNamespace("team-b"), created(t0.Add(time.Hour))))
		return s
	}
	takeover := newIngress("takeover", host, "/.*", "web", inNamespace("team-b"), annotation("use-regex", "true"))
	disjoint := newIngress("api", host, "/api/v[0-9]+", "web", inNamespace("team-b"), annotation("use-regex", "true"))
	// team-a's admin updated to claim /docs, under which team-b's younger
	// /docs/v2 already serves.
	grab := newIngress("admin", host, "/admin", "web", inNamespace("team-a"), created(t0))
	grab.Spec.Rules[0].HTTP.Paths = append(grab.Spec.Rules[0].HTTP.Paths, newIngress("", host, "/docs", "web").Spec.Rules[0].HTTP.Paths...)

	for _, tc := range []struct {
		name   string
		cand   *networkingv1.Ingress
		create bool
		// deny is the start of the denial without the flag, "" to admit;
		// with it every candidate is admitted.
		deny string
	}{
		{"a younger regex over an older path", takeover, true,
			`ingress team-b/takeover: spec.rules[0].http.paths[0].path: host "shared.example.com" path "/.*" (Prefix, regex) would take requests for path "/admin" (Prefix) of ingress team-a/admin (older)`},
		{"a younger regex with a literal prefix of its own", disjoint, true, ""},
		{"an older one updated under a younger one's path", grab, false,
			`ingress team-b/docs: spec.rules[0].http.paths[0].path: host "shared.example.com" path "/docs/v2" (Prefix) would take requests for path "/docs" (Prefix) of ingress team-a/admin (older)`},
	} {
		for _, allow := range []bool{false, true} {
			o := render.DefaultOptions()
			o.AllowCrossNamespaceHostSharing = allow
			v, err := NewValidator(func() (render.Snapshot, error) { return existing(), nil }, o, false)
			if err != nil {
				t.Fatal(err)
			}
			verdict, err := v.Validate(tc.cand, tc.create)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.deny
			if allow {
				want = ""
			}
			var got []string
			for _, p := range verdict.Denials {
				got = append(got, p.String())
			}
			switch {
			case want == "" && len(got) > 0:
				t.Errorf("%s (allow=%v): denied: %v", tc.name, allow, got)
			case want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], want)):
				t.Errorf("%s (allow=%v): denials %v, want one starting %q", tc.name, allow, got, want)
			}
		}
	}
}
