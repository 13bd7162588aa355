package admission

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/goldenflags"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

const goldenDir = "../../testdata/render"

// candidates gives, for each Ingress of s, the reviews that can be made of
// it: its update as it is, its creation (as the newest), a copy under
// another name (it conflicts with the original on every path) and a canary
// copy.
func candidates(s render.Snapshot) []struct {
	name   string
	snap   render.Snapshot
	cand   *networkingv1.Ingress
	create bool
} {
	type review = struct {
		name   string
		snap   render.Snapshot
		cand   *networkingv1.Ingress
		create bool
	}
	var out []review
	for i, ing := range s.Ingresses {
		id := ing.Namespace + "/" + ing.Name
		out = append(out, review{"update " + id, s, ing.DeepCopy(), false})
		without := s
		without.Ingresses = append(append([]*networkingv1.Ingress(nil), s.Ingresses[:i]...), s.Ingresses[i+1:]...)
		fresh := ing.DeepCopy()
		fresh.CreationTimestamp = metav1.Time{}
		out = append(out, review{"create " + id, without, fresh, true})
		clone := ing.DeepCopy()
		clone.Name += "-clone"
		clone.CreationTimestamp = metav1.Time{}
		out = append(out, review{"clone of " + id, s, clone, true})
		canary := clone.DeepCopy()
		canary.Name = ing.Name + "-canary"
		if canary.Annotations == nil {
			canary.Annotations = map[string]string{}
		}
		canary.Annotations[annotationCanary] = "true"
		canary.Annotations["nginx.ingress.kubernetes.io/canary-weight"] = "10"
		out = append(out, review{"canary of " + id, s, canary, true})
	}
	// A canary elsewhere: the paths of another Ingress, sent to the
	// backend of an existing canary with another weight (the older canary
	// of a backend sets its traffic policy, whatever its host).
	for _, c := range s.Ingresses {
		if c.Annotations[annotationCanary] != "true" || len(backendKeys(c)) == 0 {
			continue
		}
		be := firstBackend(c)
		n := 0
		for _, p := range s.Ingresses {
			if p == c || p.Namespace != c.Namespace || p.Annotations[annotationCanary] == "true" || n == 5 {
				continue
			}
			n++
			cand := p.DeepCopy()
			cand.Name = p.Name + "-canary-of-" + c.Name
			cand.CreationTimestamp = metav1.Time{}
			cand.Annotations = map[string]string{annotationCanary: "true", "nginx.ingress.kubernetes.io/canary-weight": "33"}
			for i := range cand.Spec.Rules {
				if h := cand.Spec.Rules[i].HTTP; h != nil {
					for j := range h.Paths {
						h.Paths[j].Backend = networkingv1.IngressBackend{Service: be.DeepCopy()}
					}
				}
			}
			out = append(out, review{"canary of " + c.Name + " on the paths of " + p.Namespace + "/" + p.Name, s, cand, true})
		}
	}
	return out
}

func firstBackend(ing *networkingv1.Ingress) *networkingv1.IngressServiceBackend {
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				return p.Backend.Service
			}
		}
	}
	return nil
}

// checkEquivalent compares the candidate Problems of the subset Build with
// those of a full Build for every candidate of s; it returns how many
// Problems were compared and how many reviews built fewer Ingresses.
func checkEquivalent(t *testing.T, s render.Snapshot, o render.Options, every int) (problems, smaller int) {
	t.Helper()
	// One Validator for all the reviews: its index is kept while the
	// snapshot stays and made again when it changes.
	v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, o, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range candidates(s) {
		if i%every != 0 {
			continue
		}
		got := candidateProblems(c.snap, c.cand, o, c.create, false)
		want := candidateProblems(c.snap, c.cand, o, c.create, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the subset Build gives\n  %v\nthe full Build\n  %v", c.name, got, want)
		}
		if indexed := v.problems(c.snap, c.cand, c.create); !reflect.DeepEqual(indexed, want) {
			t.Errorf("%s: the indexed subset Build gives\n  %v\nthe full Build\n  %v", c.name, indexed, want)
		}
		problems += len(want)
		placed, _, _ := withCandidate(c.snap, c.cand, c.create)
		var fresh snapshotIndex
		if related, _, _ := fresh.related(c.snap, c.cand, o, c.create); len(related.Ingresses) < len(placed.Ingresses) {
			smaller++
		}
	}
	return problems, smaller
}

// TestSubsetEquivalence: on every golden input of testdata/render, for
// every Ingress reviewed in four ways, the Build of the related objects
// finds exactly the candidate Problems that a Build of everything finds.
func TestSubsetEquivalence(t *testing.T) {
	dirs, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	total, cases := 0, 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(goldenDir, d.Name())
		t.Run(d.Name(), func(t *testing.T) {
			res, err := manifest.Read([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := checkEquivalent(t, res.Snapshot, goldenflags.Options(t, dir), 1)
			total += n
		})
		cases++
	}
	if cases < 25 || total < 100 {
		t.Errorf("compared %d candidate problems over %d golden cases: the corpus is too small to prove anything", total, cases)
	}
}

// TestSubsetEquivalenceGenerated does the same on a generated cluster of
// 400 Ingresses (hack/genmanifests), every third review, and
// checks that the subset is smaller than the cluster.
func TestSubsetEquivalenceGenerated(t *testing.T) {
	s := generatedSnapshot(t)
	reviews := 4 * len(s.Ingresses) / 3
	problems, smaller := checkEquivalent(t, s, render.DefaultOptions(), 3)
	if smaller < reviews*9/10 {
		t.Errorf("only %d of %d reviews built fewer Ingresses than the cluster", smaller, reviews)
	}
	if problems == 0 {
		t.Errorf("no candidate problem compared: the clones should conflict with their originals")
	}
}

// generatedSnapshot reads the cluster of 120 Ingresses that
// hack/genmanifests --ingresses 120 made, committed under
// testdata/admission so that the test runs wherever the repository is.
func generatedSnapshot(t testing.TB) render.Snapshot {
	t.Helper()
	res, err := manifest.Read([]string{filepath.Join("..", "..", "testdata", "admission", "generated-120")}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshot.Ingresses) != 120 {
		t.Fatalf("read %d Ingresses, want 120", len(res.Snapshot.Ingresses))
	}
	return res.Snapshot
}

// TestSubsetEquivalenceCrossHost covers the ties between hosts that the
// golden inputs do not: a canary of a backend whose older canary is on
// another host, server-aliases claimed from two hosts, an alias that is a
// host of its own, and the catch-all default backend.
func TestSubsetEquivalenceCrossHost(t *testing.T) {
	s := fixture()
	s.Services = append(s.Services, newService("web-v2"))
	s.EndpointSlices = append(s.EndpointSlices, newSlice("web-v2", "10.0.0.2"))
	canary := newIngress("canary-a", "a.example.com", "/", "web-v2", created(t0.Add(time.Minute)),
		annotation("canary", "true"), annotation("canary-weight", "5"))
	primaryB := newIngress("primary-b", "b.example.com", "/", "web", created(t0.Add(2*time.Minute)),
		annotation("server-alias", "alias.example.com, c.example.com"))
	hostC := newIngress("host-c", "c.example.com", "/", "web", created(t0.Add(3*time.Minute)))
	catchAll := newIngress("catch-all", "", "/", "web", created(t0.Add(4*time.Minute)))
	catchAll.Spec.Rules = nil
	catchAll.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	s.Ingresses = append(s.Ingresses, canary, primaryB, hostC, catchAll)

	o := render.DefaultOptions()
	checkEquivalent(t, s, o, 1)
	other := catchAll.DeepCopy()
	other.Name, other.CreationTimestamp = "other-default", metav1.Time{}
	other.Spec.DefaultBackend.Service.Name = "web-v2"
	// old (the oldest) updated to take b's "/" and the alias of b.
	takeover := newIngress("old", "a.example.com", "/", "web", created(t0))
	takeover.Spec.Rules = append(takeover.Spec.Rules, newIngress("", "b.example.com", "/", "web").Spec.Rules...)
	aliasTakeover := newIngress("old", "a.example.com", "/", "web", created(t0), annotation("server-alias", "alias.example.com"))
	// canary-a changed in what does not touch its neighbours.
	untouched := canary.DeepCopy()
	untouched.Annotations["nginx.ingress.kubernetes.io/canary-weight"] = "6"
	for _, c := range []struct {
		name   string
		cand   *networkingv1.Ingress
		create bool
		want   string
	}{
		{"old takes the path of b", takeover, false,
			`ingress default/primary-b: spec.rules[0].http.paths[0]: host "b.example.com" path "/" (Prefix) is already served by ingress default/old (older)`},
		{"old takes the alias of b", aliasTakeover, false,
			`ingress default/primary-b: metadata.annotations[nginx.ingress.kubernetes.io/server-alias]: alias "alias.example.com" is already an alias of host "a.example.com" (ingress default/old)`},
		{"canary-a keeps what it had", untouched, false, ""},
		{"canary of web-v2 on b", newIngress("canary-b", "b.example.com", "/", "web-v2", annotation("canary", "true"), annotation("canary-weight", "33")), true,
			"is already a canary with the traffic policy of ingress default/canary-a (older)"},
		{"alias of b claimed from d", newIngress("alias-d", "d.example.com", "/", "web", annotation("server-alias", "alias.example.com")), true,
			`alias "alias.example.com" is already an alias of host "b.example.com"`},
		{"a second catch-all default backend", other, true, "the catch-all server already uses default-web-80"},
	} {
		got := candidateProblems(s, c.cand, o, c.create, false)
		want := candidateProblems(s, c.cand, o, c.create, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the subset Build gives\n  %v\nthe full Build\n  %v", c.name, got, want)
		}
		var x snapshotIndex
		related, placed, old := x.related(s, c.cand, o, c.create)
		if indexed := judge(related, placed, old, o); !reflect.DeepEqual(indexed, want) {
			t.Errorf("%s: the indexed subset Build gives\n  %v\nthe full Build\n  %v", c.name, indexed, want)
		}
		if c.want == "" && len(want) > 0 {
			t.Errorf("%s: problems %v, want none", c.name, want)
		}
		if !strings.Contains(fmtProblems(want), c.want) {
			t.Errorf("%s: %q is not among the problems %v", c.name, c.want, want)
		}
	}
}

func fmtProblems(ps []model.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}
