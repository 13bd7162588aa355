package render

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// sharedHost is the host the cross-namespace tests share.
const sharedHost = "shared.example.com"

// hostPath is one path of a test Ingress: "Prefix:/admin", "Exact:/x",
// "ImplementationSpecific:/a.*".
type hostPath string

// nsIngress is an Ingress in namespace ns, age hours after a fixed time,
// with annotations (without their prefix) and paths on host, all to the
// Service web of its namespace.
func nsIngress(ns, name string, age int, ann map[string]string, host string, paths ...hostPath) *networkingv1.Ingress {
	ing := newTestIngress(name, age, networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}})
	ing.Namespace = ns
	if len(ann) > 0 {
		ing.Annotations = map[string]string{}
		for k, v := range ann {
			ing.Annotations[annotations.Prefix+k] = v
		}
	}
	for _, p := range paths {
		pt, value, _ := strings.Cut(string(p), ":")
		t := networkingv1.PathType(pt)
		ing.Spec.Rules[0].HTTP.Paths = append(ing.Spec.Rules[0].HTTP.Paths, networkingv1.HTTPIngressPath{
			Path: value, PathType: &t,
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
		})
	}
	return ing
}

// servedPaths lists the locations of host as "namespace/name Type:/path"
// with " regex" for a regex location, in the server's order.
func servedPaths(c *model.Config, host string) []string {
	s := c.Server(host)
	if s == nil {
		return nil
	}
	var out []string
	for _, l := range s.Locations {
		v := fmt.Sprintf("%s %s:%s", l.Ingress, l.PathType, l.Path)
		if l.Regex {
			v += " regex"
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// TestCrossNamespaceHostSharing: a younger Ingress of another namespace
// never takes requests from an older one's paths on the same host, and its
// use-regex never changes how the older one's paths match; Ingresses of one
// namespace share a host as in ingress-nginx, and so does everyone with
// --allow-cross-namespace-host-sharing.
func TestCrossNamespaceHostSharing(t *testing.T) {
	regex := map[string]string{"use-regex": "true"}
	older := func(paths ...hostPath) *networkingv1.Ingress {
		return nsIngress("team-a", "old", 0, nil, sharedHost, paths...)
	}
	olderRegex := func(paths ...hostPath) *networkingv1.Ingress {
		return nsIngress("team-a", "old", 0, regex, sharedHost, paths...)
	}
	younger := func(ann map[string]string, paths ...hostPath) *networkingv1.Ingress {
		return nsIngress("team-b", "young", 1, ann, sharedHost, paths...)
	}
	sameNS := func(ann map[string]string, paths ...hostPath) *networkingv1.Ingress {
		return nsIngress("team-a", "young", 1, ann, sharedHost, paths...)
	}
	const taken = "would take requests for path"
	cases := []struct {
		name      string
		ingresses []*networkingv1.Ingress
		allow     bool
		served    []string
		// problems are "namespace/name field: substring" (one per Problem).
		problems []string
	}{
		{
			name:      "younger regex of another namespace takes nothing",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin", "Prefix:/secret"), younger(regex, "ImplementationSpecific:/.*")},
			served:    []string{"team-a/old Prefix:/admin", "team-a/old Prefix:/secret"},
			problems:  []string{`team-b/young spec.rules[0].http.paths[0].path: host "shared.example.com" path "/.*" (ImplementationSpecific, regex) would take requests for path "/admin" (Prefix) of ingress team-a/old (older), in another namespace`},
		},
		{
			name:      "with the flag: ingress-nginx, every path of the host a regex",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin", "Prefix:/secret"), younger(regex, "ImplementationSpecific:/.*")},
			allow:     true,
			served:    []string{"team-a/old Prefix:/admin regex", "team-a/old Prefix:/secret regex", "team-b/young ImplementationSpecific:/.* regex"},
		},
		{
			name:      "same namespace: ingress-nginx, every path of the host a regex",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin", "Prefix:/secret"), sameNS(regex, "ImplementationSpecific:/.*")},
			served:    []string{"team-a/old Prefix:/admin regex", "team-a/old Prefix:/secret regex", "team-a/young ImplementationSpecific:/.* regex"},
		},
		{
			name:      "younger regex with a literal prefix that differs is served; the older paths stay prefixes",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin", "Exact:/secret"), younger(regex, "ImplementationSpecific:/api/v[0-9]+", "ImplementationSpecific:/administrator")},
			served:    []string{"team-a/old Exact:/secret", "team-a/old Prefix:/admin", "team-b/young ImplementationSpecific:/administrator regex", "team-b/young ImplementationSpecific:/api/v[0-9]+ regex"},
		},
		{
			name:      "regex literal prefixes compare without case, as ~* matches",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(regex, "ImplementationSpecific:/ADMIN/x")},
			served:    []string{"team-a/old Prefix:/admin"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken},
		},
		{
			name:      "an alternation leaves no literal prefix (^/api|/admin is not anchored)",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(regex, "ImplementationSpecific:/api|/admin")},
			served:    []string{"team-a/old Prefix:/admin"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken},
		},
		{
			name:      "a quantified last character is not literal",
			ingresses: []*networkingv1.Ingress{older("Prefix:/ad"), younger(regex, "ImplementationSpecific:/adx?min")},
			served:    []string{"team-a/old Prefix:/ad"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken},
		},
		{
			name:      "rewrite-target turns regex mode on in its namespace only",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(map[string]string{"rewrite-target": "/$1"}, "ImplementationSpecific:/app/(.*)")},
			served:    []string{"team-a/old Prefix:/admin", "team-b/young ImplementationSpecific:/app/(.*) regex"},
		},
		{
			name:      "younger longer prefix under an older one",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(nil, "Prefix:/admin/x", "Prefix:/other")},
			served:    []string{"team-a/old Prefix:/admin", "team-b/young Prefix:/other"},
			problems:  []string{`team-b/young spec.rules[0].http.paths[0].path: host "shared.example.com" path "/admin/x" (Prefix) would take requests for path "/admin" (Prefix) of ingress team-a/old (older)`},
		},
		{
			name:      "younger path under an older root: the root owns the host",
			ingresses: []*networkingv1.Ingress{older("Prefix:/"), younger(nil, "Prefix:/api")},
			served:    []string{"team-a/old Prefix:/"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken + ` "/" (Prefix)`},
		},
		{
			name:      "younger shorter prefix takes only what the older does not serve",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(nil, "Prefix:/", "ImplementationSpecific:/adm", "ImplementationSpecific:/admin")},
			served:    []string{"team-a/old Prefix:/admin", "team-b/young ImplementationSpecific:/adm", "team-b/young ImplementationSpecific:/admin", "team-b/young Prefix:/"},
		},
		{
			name:      "younger Prefix over an older ImplementationSpecific prefix of the same value is longer (/admin/)",
			ingresses: []*networkingv1.Ingress{older("ImplementationSpecific:/admin"), younger(nil, "Prefix:/admin")},
			served:    []string{"team-a/old ImplementationSpecific:/admin"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken},
		},
		{
			name:      "younger Exact takes the = location of an older Prefix",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(nil, "Exact:/admin", "Exact:/admin/x", "Exact:/adminx")},
			served:    []string{"team-a/old Prefix:/admin", "team-b/young Exact:/adminx"},
			problems:  []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken, "team-b/young spec.rules[0].http.paths[1].path: " + taken},
		},
		{
			name:      "younger Prefix beside an older Exact of the same value: the Exact keeps its location",
			ingresses: []*networkingv1.Ingress{older("Exact:/admin"), younger(nil, "Prefix:/admin")},
			served:    []string{"team-a/old Exact:/admin", "team-b/young Prefix:/admin"},
		},
		{
			name:      "younger Exact under an older regex",
			ingresses: []*networkingv1.Ingress{olderRegex("ImplementationSpecific:/api/.*"), younger(nil, "Exact:/api/status", "Exact:/web", "Prefix:/api/v2", "ImplementationSpecific:/api/v3")},
			served:    []string{"team-a/old ImplementationSpecific:/api/.* regex", "team-b/young Exact:/web", "team-b/young ImplementationSpecific:/api/v3"},
			problems: []string{
				"team-b/young spec.rules[0].http.paths[0].path: " + taken + ` "/api/.*" (ImplementationSpecific, regex)`,
				// The "= /api/v2" that a Prefix path adds wins over any regex.
				"team-b/young spec.rules[0].http.paths[2].path: " + taken + ` "/api/.*" (ImplementationSpecific, regex)`,
			},
		},
		{
			name: "younger regex against an older regex: only one nginx tries first can take",
			ingresses: []*networkingv1.Ingress{olderRegex("ImplementationSpecific:/a.*"),
				younger(regex, "ImplementationSpecific:/b.*", "ImplementationSpecific:/api/x.*", "ImplementationSpecific:/.")},
			served:   []string{"team-a/old ImplementationSpecific:/a.* regex", "team-b/young ImplementationSpecific:/. regex", "team-b/young ImplementationSpecific:/b.* regex"},
			problems: []string{"team-b/young spec.rules[0].http.paths[1].path: " + taken},
		},
		{
			name:      "an older regex of another namespace keeps winning; the younger is not made a regex",
			ingresses: []*networkingv1.Ingress{olderRegex("ImplementationSpecific:/.*"), younger(nil, "ImplementationSpecific:/admin")},
			served:    []string{"team-a/old ImplementationSpecific:/.* regex", "team-b/young ImplementationSpecific:/admin"},
		},
		{
			name: "the one that lost leaves no claim: a third namespace sees only what is served",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(regex, "ImplementationSpecific:/.*"),
				nsIngress("team-c", "third", 2, nil, sharedHost, "Prefix:/static")},
			served:   []string{"team-a/old Prefix:/admin", "team-c/third Prefix:/static"},
			problems: []string{"team-b/young spec.rules[0].http.paths[0].path: " + taken},
		},
		{
			name:      "with the flag: a younger longer prefix and Exact take their part, as in ingress-nginx",
			ingresses: []*networkingv1.Ingress{older("Prefix:/"), younger(nil, "Prefix:/api", "Exact:/x")},
			allow:     true,
			served:    []string{"team-a/old Prefix:/", "team-b/young Exact:/x", "team-b/young Prefix:/api"},
		},
		{
			name:      "exact duplicates keep today's message",
			ingresses: []*networkingv1.Ingress{older("Prefix:/admin"), younger(nil, "Prefix:/admin")},
			served:    []string{"team-a/old Prefix:/admin"},
			problems:  []string{`team-b/young spec.rules[0].http.paths[0]: host "shared.example.com" path "/admin" (Prefix) is already served by ingress team-a/old (older)`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Snapshot{Ingresses: tc.ingresses}
			for _, ns := range []string{"team-a", "team-b", "team-c"} {
				svc := testService("web")
				svc.Namespace = ns
				s.Services = append(s.Services, svc)
			}
			o := DefaultOptions()
			o.AllowCrossNamespaceHostSharing = tc.allow
			c, problems := Build(s, o)
			if got := servedPaths(c, sharedHost); !slices.Equal(got, tc.served) {
				t.Errorf("served:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.served, "\n  "))
			}
			checkProblems(t, problems, tc.problems)
		})
	}
}

// checkProblems wants one Problem per entry of want, in order: "namespace/name
// field: reason", where the reason may be a part of the Problem's.
func checkProblems(t *testing.T, got []model.Problem, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d Problems, want %d:\n%s", len(got), len(want), problemsText(got))
		return
	}
	for i, w := range want {
		p := got[i]
		where, reason, _ := strings.Cut(w, ": ")
		if p.Object.String()+" "+p.Field != where || !strings.Contains(p.Reason, reason) {
			t.Errorf("Problem %d:\n  %s %s: %s\nwant\n  %s", i, p.Object, p.Field, p.Reason, w)
		}
	}
}

// TestCrossNamespaceCanary: a canary takes a share of its primary's
// requests, so a canary of another namespace is a Problem unless the flag
// allows sharing.
func TestCrossNamespaceCanary(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			primary := nsIngress("team-a", "app", 0, nil, sharedHost, "Prefix:/")
			canary := nsIngress("team-b", "canary", 1, map[string]string{"canary": "true", "canary-weight": "50"}, sharedHost, "Prefix:/")
			sameNS := nsIngress("team-a", "canary", 2, map[string]string{"canary": "true", "canary-by-header": "X-Canary"}, sharedHost, "Prefix:/")
			sameNS.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "next"
			s := Snapshot{Ingresses: []*networkingv1.Ingress{primary, canary, sameNS}}
			for _, name := range []string{"team-a/web", "team-b/web", "team-a/next"} {
				ns, n, _ := strings.Cut(name, "/")
				svc := testService(n)
				svc.Namespace = ns
				s.Services = append(s.Services, svc)
			}
			o := DefaultOptions()
			o.AllowCrossNamespaceHostSharing = allow
			c, problems := Build(s, o)
			var alternatives []string
			for _, be := range c.Backends {
				if be.Name == "team-a-web-80" {
					alternatives = be.AlternativeBackends
				}
			}
			want := []string{"team-a-next-80"}
			var wantProblems []string
			if allow {
				want = []string{"team-a-next-80", "team-b-web-80"}
			} else {
				wantProblems = []string{`team-b/canary spec.rules[0].http.paths[0]: canary for host "shared.example.com" path "/" would take requests of ingress team-a/app, in another namespace`}
			}
			if !slices.Equal(alternatives, want) {
				t.Errorf("alternative backends of team-a-web-80: %v, want %v", alternatives, want)
			}
			checkProblems(t, problems, wantProblems)
		})
	}
}

// TestCrossNamespaceCatchAll: the "/" that a younger Ingress's
// spec.defaultBackend adds on the catch-all server is a regex when its
// Ingress uses regex, and then it would take every path of an older
// Ingress of another namespace there: a Problem, not served.
func TestCrossNamespaceCatchAll(t *testing.T) {
	older := nsIngress("team-a", "old", 0, nil, "", "Prefix:/admin")
	younger := nsIngress("team-b", "young", 1, map[string]string{"use-regex": "true"}, "")
	younger.Spec.Rules = nil
	younger.Spec.DefaultBackend = testBackend("web")
	s := Snapshot{Ingresses: []*networkingv1.Ingress{older, younger}}
	for _, ns := range []string{"team-a", "team-b"} {
		svc := testService("web")
		svc.Namespace = ns
		s.Services = append(s.Services, svc)
	}
	c, problems := Build(s, DefaultOptions())
	if got, want := servedPaths(c, model.CatchAllHost), []string{"team-a/old Prefix:/admin"}; !slices.Equal(got, want) {
		t.Errorf("served on the catch-all server: %v, want %v", got, want)
	}
	checkProblems(t, problems, []string{`team-b/young spec.defaultBackend: host "_" path "/" (Prefix, regex) would take requests for path "/admin" (Prefix) of ingress team-a/old (older)`})

	// Without use-regex its "/" is the shortest prefix: it takes nothing.
	younger.Annotations = nil
	c, problems = Build(s, DefaultOptions())
	if got, want := servedPaths(c, model.CatchAllHost), []string{"team-a/old Prefix:/admin", "team-b/young Prefix:/"}; !slices.Equal(got, want) {
		t.Errorf("served on the catch-all server: %v, want %v", got, want)
	}
	checkProblems(t, problems, nil)
}

// TestCrossNamespaceOrderIndependent: which path is left out depends on
// the creation times only, not on the order of the snapshot.
func TestCrossNamespaceOrderIndependent(t *testing.T) {
	a := nsIngress("team-a", "old", 0, nil, sharedHost, "Prefix:/admin")
	b := nsIngress("team-b", "young", 1, nil, sharedHost, "Prefix:/admin/x")
	svcs := []*corev1.Service{}
	for _, ns := range []string{"team-a", "team-b"} {
		svc := testService("web")
		svc.Namespace = ns
		svcs = append(svcs, svc)
	}
	for _, order := range [][]*networkingv1.Ingress{{a, b}, {b, a}} {
		c, problems := Build(Snapshot{Ingresses: order, Services: svcs}, DefaultOptions())
		if got, want := servedPaths(c, sharedHost), []string{"team-a/old Prefix:/admin"}; !slices.Equal(got, want) {
			t.Errorf("served: %v, want %v", got, want)
		}
		checkProblems(t, problems, []string{"team-b/young spec.rules[0].http.paths[0].path: "})
	}
	// Made younger, the /admin/x Ingress wins; the older /admin path is
	// kept too (it never takes from a longer prefix).
	b.CreationTimestamp = metav1.NewTime(a.CreationTimestamp.Add(-time.Hour))
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{a, b}, Services: svcs}, DefaultOptions())
	if got, want := servedPaths(c, sharedHost), []string{"team-a/old Prefix:/admin", "team-b/young Prefix:/admin/x"}; !slices.Equal(got, want) {
		t.Errorf("served: %v, want %v", got, want)
	}
	checkProblems(t, problems, nil)
}

func TestRegexLiteralPrefix(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v[0-9]+":  "/api/v",
		"/api/v1":       "/api/v1",
		"/adx?min":      "/ad",
		"/a+":           "/",
		"/a{2}":         "/",
		"/a.b":          "/a",
		`/a\.b`:         "/a",
		"/api|/admin":   "",
		"/(api|admin)":  "",
		"/(?i)admin":    "/",
		"/.*":           "/",
		"/caf\u00e9/x":  "/caf",
		"/x-y_z~%@:,;=": "/x-y_z~%@:,;=",
	} {
		if got := regexLiteralPrefix(path); got != want {
			t.Errorf("regexLiteralPrefix(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestFoldDiffer(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"/admin", "/admin/", false},
		{"/ADMIN", "/admin/", false},
		{"/api", "/admin", true},
		{"/", "/admin", false},
		{"", "/x", false},
		{"/\u212a", "/k", false}, // the Kelvin sign folds onto k in PCRE2's UTF mode: not provably different
		{"/\u00e9", "/e", false},
	} {
		if got := foldDiffer(tc.a, tc.b); got != tc.want {
			t.Errorf("foldDiffer(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// routeModel picks the location of s that nginx would pick for uri, from
// the locations the writer makes (model.LocationMatchers): an "=" match, else
// the first regex that matches (Go's regexp standing in for PCRE2 on these
// simple patterns), else the longest prefix. nil when none matches.
func routeModel(t *testing.T, s *model.Server, uri string) *model.Location {
	t.Helper()
	exact := map[string]bool{}
	for _, l := range s.Locations {
		if l.PathType == model.PathExact {
			exact[l.Path] = true
		}
	}
	var longest *model.Location
	for i := range s.Locations {
		l := &s.Locations[i]
		for _, m := range model.LocationMatchers(l, exact) {
			switch m.Modifier {
			case "=":
				if uri == m.Path {
					return l
				}
			case "":
				if strings.HasPrefix(uri, m.Path) && (longest == nil || len(m.Path) > len(longestMatcher(longest, exact, uri))) {
					longest = l
				}
			}
		}
	}
	for i := range s.Locations {
		l := &s.Locations[i]
		for _, m := range model.LocationMatchers(l, exact) {
			if m.Modifier == "~*" && regexp.MustCompile("(?i)"+m.Path).MatchString(uri) {
				return l
			}
		}
	}
	return longest
}

// longestMatcher is the longest prefix matcher of l that uri starts with.
func longestMatcher(l *model.Location, exact map[string]bool, uri string) string {
	best := ""
	for _, m := range model.LocationMatchers(l, exact) {
		if m.Modifier == "" && strings.HasPrefix(uri, m.Path) && len(m.Path) > len(best) {
			best = m.Path
		}
	}
	return best
}

// TestShadowRuleIsSound checks the shadow rules against nginx's location
// choice on random pairs of Ingresses: whatever team-b (younger, another
// namespace) asks for, every URI that team-a's paths answer alone is still
// answered by the same team-a path, and team-a's paths keep their regex
// mode.
func TestShadowRuleIsSound(t *testing.T) {
	pool := []string{"/", "/a", "/a/", "/a/b", "/ab", "/A", "/b", "/a.*", "/a[0-9]+", "/(a|b)", "/.*", "/ab?", "/b/.*", "/a/b.*", "/A/b", "/x|/a"}
	types := []string{"Exact", "Prefix", "ImplementationSpecific"}
	uris := []string{"/", "/a", "/a/", "/a/b", "/a/b/c", "/ab", "/abc", "/A", "/A/b", "/a1", "/a12/x", "/b", "/b/x", "/ba", "/x", "/a.x", "/a.*", "/AB", "/a/B"}
	rnd := rand.New(rand.NewPCG(1, 2))
	paths := func() []hostPath {
		var out []hostPath
		for range 1 + rnd.IntN(3) {
			out = append(out, hostPath(types[rnd.IntN(len(types))]+":"+pool[rnd.IntN(len(pool))]))
		}
		return out
	}
	annotations := func() map[string]string {
		if rnd.IntN(2) == 0 {
			return map[string]string{"use-regex": "true"}
		}
		return nil
	}
	svcs := []*corev1.Service{}
	for _, ns := range []string{"team-a", "team-b"} {
		svc := testService("web")
		svc.Namespace = ns
		svcs = append(svcs, svc)
	}
	refused, checked := 0, 0
	for i := range 3000 {
		a := nsIngress("team-a", "old", 0, annotations(), sharedHost, paths()...)
		b := nsIngress("team-b", "young", 1, annotations(), sharedHost, paths()...)
		alone, _ := Build(Snapshot{Ingresses: []*networkingv1.Ingress{a}, Services: svcs}, DefaultOptions())
		both, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{a, b}, Services: svcs}, DefaultOptions())
		for _, p := range problems {
			if strings.Contains(p.Reason, "would take requests") {
				refused++
			}
		}
		sa, sb := alone.Server(sharedHost), both.Server(sharedHost)
		for _, uri := range uris {
			before := routeModel(t, sa, uri)
			if before == nil {
				continue
			}
			checked++
			after := routeModel(t, sb, uri)
			if after == nil || after.Ingress != before.Ingress || after.Path != before.Path || after.PathType != before.PathType || after.Regex != before.Regex {
				got := "no location"
				if after != nil {
					got = fmt.Sprintf("%s %s:%s (regex %v)", after.Ingress, after.PathType, after.Path, after.Regex)
				}
				t.Fatalf("case %d: %s is %s %s:%s (regex %v) with team-a alone, %s with team-b too\nteam-a: %v %v\nteam-b: %v %v\nserved: %v\nproblems:\n%s",
					i, uri, before.Ingress, before.PathType, before.Path, before.Regex, got,
					a.Annotations, a.Spec.Rules[0].HTTP.Paths, b.Annotations, b.Spec.Rules[0].HTTP.Paths, servedPaths(both, sharedHost), problemsText(problems))
			}
		}
	}
	t.Logf("%d URIs of team-a checked; %d team-b paths refused", checked, refused)
}

// TestCheckPath checks the length bound of every path type.
func TestCheckPath(t *testing.T) {
	long := "/" + strings.Repeat("a", annotations.PathMaxLen-1)
	name := "/" + strings.Repeat("a", annotations.LocationNameMaxLen-1) // the longest location name
	for _, c := range []struct {
		path  string
		pt    model.PathType
		regex bool
		ok    bool
	}{
		{long, model.PathImplementationSpecific, true, true},
		{long + "a", model.PathImplementationSpecific, true, false},
		{"/" + strings.Repeat(`\.`, (annotations.PathMaxLen-1)/2), model.PathImplementationSpecific, true, true},
		{"/(?P<host>x)", model.PathImplementationSpecific, false, true}, // not a regex: a literal path
		{"/(?P<host>x)", model.PathImplementationSpecific, true, false},
		// Location names: nginx cuts a name over 255 bytes.
		{name, model.PathExact, false, true},
		{name + "a", model.PathExact, false, false},
		{name + "a/", model.PathExact, false, true}, // written as the regex ^…/$
		{name, model.PathImplementationSpecific, false, true},
		{name + "a", model.PathImplementationSpecific, false, false},
		{name[:len(name)-1], model.PathPrefix, false, true}, // its location is the path and "/"
		{name, model.PathPrefix, false, false},
		{name[:len(name)-1] + "///", model.PathPrefix, false, true},
		{long, model.PathPrefix, true, true}, // a regex: no location name
	} {
		if err := checkPath(c.path, c.pt, c.regex); (err == nil) != c.ok {
			t.Errorf("checkPath(%d bytes, %s, regex %v) = %v, want ok %v", len(c.path), c.pt, c.regex, err, c.ok)
		}
	}
	// The longest path the writer can make of a path, quoted: every byte a
	// backslash, behind "(?i)^".
	worst := len(`"(?i)^"`) + 2*annotations.PathMaxLen
	if worst >= annotations.ConfMaxParam {
		t.Errorf("a quoted path may take %d bytes, nginx reads %d at most", worst, annotations.ConfMaxParam)
	}
}
