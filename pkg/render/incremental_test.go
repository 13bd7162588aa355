package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
	"github.com/kubectl-ingress/kubectl-ingress/internal/goldenflags"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// incrementalChecker runs an Incremental beside Build on a series of
// snapshots and fails the test on the first difference.
type incrementalChecker struct {
	t        *testing.T
	name     string
	opts     render.Options
	inc      render.Incremental
	spliced  int
	wholes   map[string]int
	snapshot render.Snapshot
	// last is the incremental Config of the step before.
	last *model.Config
}

func (c *incrementalChecker) check(step string, s render.Snapshot) {
	c.t.Helper()
	wantCfg, wantProblems := render.Build(s, c.opts)
	ahead := c.inc.WholeAhead(s, c.opts)
	gotCfg, gotProblems := c.inc.Build(s, c.opts)
	// WholeAhead tells a whole build exactly when the build's reason is
	// known before it starts
	if last := c.inc.Last; ahead != "" && !last.Whole || last.Whole && knownAhead[last.Why] && last.Why != ahead {
		c.t.Fatalf("%s, %s: WholeAhead said %q, the build %+v", c.name, step, ahead, last)
	}
	if c.inc.Last.Whole {
		c.wholes[c.inc.Last.Why]++
	} else {
		c.spliced++
	}
	if why := configDifference(gotCfg, wantCfg); why != "" {
		c.t.Fatalf("%s, %s (incremental: %+v): the Config differs from Build's: %s", c.name, step, c.inc.Last, why)
	}
	// backends that did not change are the same array, not a copy
	if prev := c.last; prev != nil && !c.inc.Last.Whole && len(prev.Backends) > 0 &&
		reflect.DeepEqual(prev.Backends, gotCfg.Backends) && &prev.Backends[0] != &gotCfg.Backends[0] {
		c.t.Fatalf("%s, %s (incremental: %+v): the same backends as the step before, in a new array", c.name, step, c.inc.Last)
	}
	c.last = gotCfg
	if !reflect.DeepEqual(gotProblems, wantProblems) {
		c.t.Fatalf("%s, %s (incremental: %+v): the Problems differ from Build's:\n got %v\nwant %v", c.name, step, c.inc.Last, gotProblems, wantProblems)
	}
}

// knownAhead are the reasons of a whole build that WholeAhead tells.
var knownAhead = map[string]bool{
	"first build": true, "the options changed": true, "an IngressClass changed": true, "a Secret changed": true,
	"a ConfigMap changed": true, "the Ingresses of an unread API version changed": true,
}

// configDifference names the first part of two Configs that differs.
func configDifference(got, want *model.Config) string {
	if reflect.DeepEqual(got, want) {
		return ""
	}
	if len(got.Servers) != len(want.Servers) {
		return fmt.Sprintf("%d servers, want %d", len(got.Servers), len(want.Servers))
	}
	for i := range want.Servers {
		if !reflect.DeepEqual(got.Servers[i], want.Servers[i]) {
			return fmt.Sprintf("server %d:\n got %+v\nwant %+v", i, got.Servers[i], want.Servers[i])
		}
	}
	if !reflect.DeepEqual(got.Backends, want.Backends) {
		return fmt.Sprintf("backends:\n got %+v\nwant %+v", got.Backends, want.Backends)
	}
	return fmt.Sprintf("\n got %+v\nwant %+v", *got, *want)
}

// mutations runs, on the Ingresses of s (at most limit of them), the
// changes a cluster sees: each Ingress removed and put back, given a new
// path, joined by a younger Ingress on its host; each Service given
// another port and removed; each EndpointSlice removed. After each step
// the snapshot goes back to s.
func (c *incrementalChecker) mutations(s render.Snapshot, limit int) {
	c.t.Helper()
	c.check("first build", s)
	for i, ing := range s.Ingresses {
		if i == limit {
			break
		}
		name := ing.Namespace + "/" + ing.Name
		c.check("without ingress "+name, withIngresses(s, remove(s.Ingresses, i)))
		c.check("back to the start", s)
		c.check("ingress "+name+" with a new path", withIngresses(s, replace(s.Ingresses, i, withNewPath(ing))))
		c.check("back to the start", s)
		c.check("a younger ingress on the host of "+name, withIngresses(s, append(append([]*networkingv1.Ingress(nil), s.Ingresses...), younger(ing))))
		c.check("back to the start", s)
		for _, shared := range []struct {
			what  string
			age   time.Duration
			extra map[string]string
		}{
			{"a younger ingress on another host with the services of ", time.Second, nil},
			{"an older ingress with cookie affinity on another host with the services of ", -time.Second, map[string]string{"nginx.ingress.kubernetes.io/affinity": "cookie", "nginx.ingress.kubernetes.io/load-balance": "ewma"}},
			{"a younger ingress with cookie affinity on another host with the services of ", time.Second, map[string]string{"nginx.ingress.kubernetes.io/affinity": "cookie"}},
		} {
			c.check(shared.what+name, withIngresses(s, append(append([]*networkingv1.Ingress(nil), s.Ingresses...), onAnotherHost(ing, shared.age, shared.extra))))
			c.check("back to the start", s)
		}
	}
	for i, svc := range s.Services {
		if i == limit {
			break
		}
		name := svc.Namespace + "/" + svc.Name
		changed := svc.DeepCopy()
		changed.Spec.Ports = append(changed.Spec.Ports, corev1.ServicePort{Name: "extra", Port: 9999})
		next := s
		next.Services = replace(s.Services, i, changed)
		c.check("service "+name+" with another port", next)
		next.Services = remove(s.Services, i)
		c.check("without service "+name, next)
		c.check("back to the start", s)
	}
	for i, es := range s.EndpointSlices {
		if i == limit {
			break
		}
		next := s
		next.EndpointSlices = remove(s.EndpointSlices, i)
		c.check("without endpointslice "+es.Namespace+"/"+es.Name, next)
		c.check("back to the start", s)
	}
}

func withIngresses(s render.Snapshot, ings []*networkingv1.Ingress) render.Snapshot {
	s.Ingresses = ings
	return s
}

func remove[T any](list []*T, i int) []*T {
	out := append([]*T(nil), list[:i]...)
	return append(out, list[i+1:]...)
}

func replace[T any](list []*T, i int, v *T) []*T {
	out := append([]*T(nil), list...)
	out[i] = v
	return out
}

// withNewPath is ing with a path /incremental-new on its first rule, to
// the backend of that rule's first path (or a Service "new").
func withNewPath(ing *networkingv1.Ingress) *networkingv1.Ingress {
	out := ing.DeepCopy()
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "new", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	if len(out.Spec.Rules) == 0 {
		out.Spec.Rules = []networkingv1.IngressRule{{}}
	}
	r := &out.Spec.Rules[0]
	if r.HTTP == nil {
		r.HTTP = &networkingv1.HTTPIngressRuleValue{}
	}
	if len(r.HTTP.Paths) > 0 {
		backend = r.HTTP.Paths[0].Backend
	}
	prefix := networkingv1.PathTypePrefix
	r.HTTP.Paths = append(r.HTTP.Paths, networkingv1.HTTPIngressPath{Path: "/incremental-new", PathType: &prefix, Backend: backend})
	return out
}

// younger is a new Ingress, younger than ing, with ing's rules and
// annotations under another name.
func younger(ing *networkingv1.Ingress) *networkingv1.Ingress {
	out := ing.DeepCopy()
	out.Name += "-younger"
	out.CreationTimestamp = metav1.NewTime(ing.CreationTimestamp.Add(1e9))
	return out
}

// onAnotherHost is a new Ingress with ing's paths (and so its Services) on
// hosts of its own, created age after ing, with extra annotations.
func onAnotherHost(ing *networkingv1.Ingress, age time.Duration, extra map[string]string) *networkingv1.Ingress {
	out := ing.DeepCopy()
	out.Name += "-elsewhere"
	out.CreationTimestamp = metav1.NewTime(ing.CreationTimestamp.Add(age))
	out.Spec.TLS = nil
	for i := range out.Spec.Rules {
		out.Spec.Rules[i].Host = fmt.Sprintf("elsewhere-%d.incremental.test", i)
	}
	out.Annotations = map[string]string{}
	for k, v := range extra {
		out.Annotations[k] = v
	}
	return out
}

func newChecker(t *testing.T, name string) *incrementalChecker {
	o := render.DefaultOptions()
	o.ReportSkipped = true
	c := &incrementalChecker{t: t, name: name, opts: o, wholes: map[string]int{}}
	render.SpliceAlways(&c.inc)
	return c
}

func readSnapshot(t testing.TB, paths ...string) render.Snapshot {
	t.Helper()
	res, err := manifest.Read(paths, manifest.Options{MaxFileSize: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

// generatedSnapshot is a genmanifests cluster of n Ingresses.
func generatedSnapshot(t testing.TB, n int) render.Snapshot {
	t.Helper()
	dir := t.TempDir()
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	if err := genmanifests.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	return readSnapshot(t, dir)
}

// TestIncrementalMatchesBuild holds Incremental to Build on every render
// golden's input and every corpus case, each under the mutations above.
func TestIncrementalMatchesBuild(t *testing.T) {
	var inputs []string
	goldens, err := filepath.Glob("../../testdata/render/*/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Glob("../../testdata/corpus/cases/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(goldens, corpus...)
	if len(goldens) < 50 || len(corpus) < 100 {
		t.Fatalf("found %d render goldens and %d corpus cases", len(goldens), len(corpus))
	}
	spliced := 0
	wholes := map[string]int{}
	for _, in := range inputs {
		c := newChecker(t, in)
		c.opts = goldenflags.Options(t, filepath.Dir(in))
		c.opts.ReportSkipped = true
		c.mutations(readSnapshot(t, in), 20)
		spliced += c.spliced
		for why, n := range c.wholes {
			wholes[why] += n
		}
	}
	t.Logf("spliced %d builds; built whole: %v", spliced, wholes)
	if spliced < 1000 || spliced < 4*wholes["the change touches the catch-all server"] {
		t.Errorf("only %d builds were spliced (whole: %v): the test does not exercise the splice", spliced, wholes)
	}
}

// TestIncrementalGeneratedCluster holds Incremental to Build on a
// generated cluster (TLS, affinity, canaries, several Ingresses per
// Service) under the mutations, and checks that a change of one Ingress
// builds only a few again.
func TestIncrementalGeneratedCluster(t *testing.T) {
	s := generatedSnapshot(t, 300)
	c := newChecker(t, "genmanifests")
	c.mutations(s, 40)
	t.Logf("spliced %d builds; built whole: %v", c.spliced, c.wholes)
	for why := range c.wholes {
		// only the first build, and the Ingresses that give a shared
		// backend other settings (cookie affinity) build everything
		if why != "first build" && !strings.Contains(why, "is shared with other Ingresses and comes out different") {
			t.Errorf("built whole: %q", why)
		}
	}
	if c.spliced < 300 {
		t.Errorf("spliced %d builds; built whole: %v", c.spliced, c.wholes)
	}
	s1 := withIngresses(s, replace(s.Ingresses, 7, withNewPath(s.Ingresses[7])))
	c.check("one ingress with a new path", s1)
	if c.inc.Last.Whole || c.inc.Last.Rebuilt > 10 {
		t.Errorf("a new path of one Ingress built %+v", c.inc.Last)
	}
	// the path moved: no backend changed, and the Config keeps the same
	// array of backends (no copy of them all; luaapi's caches point in it)
	before, _ := c.inc.Build(s1, c.opts)
	moved := s1.Ingresses[7].DeepCopy()
	paths := moved.Spec.Rules[0].HTTP.Paths
	paths[len(paths)-1].Path = "/incremental-moved"
	s2 := withIngresses(s1, replace(s1.Ingresses, 7, moved))
	c.check("the new path moved", s2)
	after, _ := c.inc.Build(s2, c.opts)
	if c.inc.Last.Whole || len(after.Backends) == 0 || &after.Backends[0] != &before.Backends[0] {
		t.Errorf("a moved path: built %+v; the backends are a new array", c.inc.Last)
	}
}

// BenchmarkIncrementalNewIngress measures what a new Ingress costs the
// controller's build on a generated cluster of BENCH_INGRESSES Ingresses
// (default 10,000): each iteration adds an Ingress with a new host on an
// existing Service, or removes it again, and reports the Build after it.
// Run:
//
//	BENCH_INGRESSES=100000 go test ./pkg/render -run '^$' -bench BenchmarkIncrementalNewIngress -benchtime 20x
func BenchmarkIncrementalNewIngress(b *testing.B) {
	n := 10000
	if v := os.Getenv("BENCH_INGRESSES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			b.Fatalf("BENCH_INGRESSES: %v", err)
		}
	}
	s := generatedSnapshot(b, n)
	opts := render.DefaultOptions()
	for _, mode := range []string{"whole", "incremental"} {
		b.Run(mode, func(b *testing.B) {
			var inc render.Incremental
			inc.Build(s, opts)
			// a Service without cookie affinity: its backend lists the
			// hosts with affinity, so a new host on one changes it
			base := s.Ingresses[0]
			for _, ing := range s.Ingresses {
				if ing.Annotations["nginx.ingress.kubernetes.io/affinity"] == "" {
					base = ing
					break
				}
			}
			added := younger(base)
			added.Spec.Rules[0].Host = "added.example.com"
			added.Spec.TLS = nil
			added.Annotations = nil // its Service's backend keeps the settings of the oldest
			withAdded := withIngresses(s, append(append([]*networkingv1.Ingress(nil), s.Ingresses...), added))
			b.ResetTimer()
			for i := range b.N {
				next := s
				if i%2 == 0 {
					next = withAdded
				}
				if mode == "whole" {
					render.Build(next, opts)
				} else if inc.Build(next, opts); inc.Last.Whole {
					b.Fatalf("built whole: %s", inc.Last.Why)
				}
			}
		})
	}
}

// TestIncrementalWholeAhead: WholeAhead tells the first build, and a
// change beyond the Ingresses, Services and EndpointSlices (a ConfigMap,
// a Secret, the options) before the build, and nothing for the same
// snapshot or a changed Ingress.
func TestIncrementalWholeAhead(t *testing.T) {
	in, err := filepath.Glob("../../testdata/render/*/input.yaml")
	if err != nil || len(in) == 0 {
		t.Fatalf("no render goldens: %v", err)
	}
	s := readSnapshot(t, in[0])
	o := render.DefaultOptions()
	var inc render.Incremental
	if why := inc.WholeAhead(s, o); why != "first build" {
		t.Errorf("before the first build: %q", why)
	}
	inc.Build(s, o)
	if why := inc.WholeAhead(s, o); why != "" {
		t.Errorf("the same snapshot: %q", why)
	}
	ingress := s
	ingress.Ingresses = slices.Clone(s.Ingresses)
	if len(ingress.Ingresses) > 0 {
		ingress.Ingresses[0] = ingress.Ingresses[0].DeepCopy()
	}
	if why := inc.WholeAhead(ingress, o); why != "" {
		t.Errorf("an Ingress changed: %q", why)
	}
	configMap := s
	configMap.ConfigMaps = append(slices.Clone(s.ConfigMaps), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "y"}})
	secret := s
	secret.Secrets = append(slices.Clone(s.Secrets), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "y"}})
	options := o
	options.DefaultSSLCertificate = "other/secret"
	for _, tc := range []struct {
		s    render.Snapshot
		o    render.Options
		want string
	}{{configMap, o, "a ConfigMap changed"}, {secret, o, "a Secret changed"}, {s, options, "the options changed"}} {
		if why := inc.WholeAhead(tc.s, tc.o); why != tc.want {
			t.Errorf("WholeAhead %q, want %q", why, tc.want)
		}
		inc.Build(tc.s, tc.o)
		if !inc.Last.Whole || inc.Last.Why != tc.want {
			t.Errorf("the build after WholeAhead %q: %+v", tc.want, inc.Last)
		}
	}
}
