package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// markerTester is a fake nginx -t: a config fails when it holds one of the
// markers (a path of a test Ingress), as nginx would fail on a line that
// Ingress wrote. at says which line the error names: "" for the marker's
// own line, else the first line holding at (a server's server_name), and
// "-" for none (an error nginx gives no place for).
type markerTester struct {
	mu      sync.Mutex
	markers map[string]string // marker → at
	tests   int
}

func (m *markerTester) Test(_ context.Context, conf []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tests++
	return m.check(conf)
}

// check fails on the marker that comes first in conf, as nginx reports the
// first line it refuses (never in map order: that made the count of tests
// depend on chance).
func (m *markerTester) check(conf []byte) error {
	first, firstAt, firstIndex := "", "", -1
	for marker, at := range m.markers {
		i := bytes.Index(conf, []byte(marker))
		if i < 0 || (firstIndex >= 0 && i > firstIndex) {
			continue
		}
		first, firstAt, firstIndex = marker, at, i
	}
	if firstIndex >= 0 {
		marker, at := first, firstAt
		te := &nginx.TestError{Message: "refused " + marker, Err: errors.New("exit status 1")}
		switch at {
		case "-":
		case "":
			te.Line = lineHolding(conf, marker)
		default:
			te.Line = lineHolding(conf, at)
		}
		return te
	}
	return nil
}

func (m *markerTester) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tests
}

// lineHolding is the first line that holds s, 0 for none.
func lineHolding(conf []byte, s string) int {
	i := bytes.Index(conf, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(conf[:i], []byte("\n")) + 1
}

// ingressYAML is an Ingress of class nginx, created on day (of January
// 2026), for host with one Prefix path per entry of paths.
func ingressYAML(ns, name string, day int, host string, paths ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: %s, namespace: %s, creationTimestamp: \"2026-01-%02dT00:00:00Z\"}\n", name, ns, day)
	fmt.Fprintf(&b, "spec:\n  ingressClassName: nginx\n  rules:\n  - host: %s\n    http:\n      paths:\n", host)
	for _, p := range paths {
		fmt.Fprintf(&b, "      - {path: %s, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n", p)
	}
	return b.String() + "---\n"
}

func defaultConf(*model.Config) nginxconf.ConfOptions { return nginxconf.DefaultConfOptions() }

func ingRef(ns, name string) model.ObjectRef {
	return model.ObjectRef{Kind: "Ingress", Namespace: ns, Name: name}
}

// manyIngresses are n Ingresses t/ing-0 … of their own hosts, created on
// days 1…n (ing-0 the oldest), plus extra manifests.
func manyIngresses(n int, extra string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s", ingressYAML("t", fmt.Sprintf("ing-%d", i), 1+i%28, fmt.Sprintf("h%d.example.com", i), fmt.Sprintf("/p%d", i)))
	}
	return b.String() + extra + ingressClassYAML
}

// search runs a culprit search from the Build of manifests, as the loop
// does after nginx -t rejected it.
func search(t *testing.T, manifests string, tester *markerTester) (searchResult, error) {
	t.Helper()
	snap := snapshot(t, manifests)
	build := render.DefaultOptions()
	cfg, _ := render.Build(snap, build)
	conf, err := nginxconf.NGINXConf(cfg, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	first := tester.check(conf)
	var te *nginx.TestError
	if !errors.As(first, &te) {
		t.Fatalf("the fake nginx -t accepts the starting config (%v)", first)
	}
	return newCulpritSearch(snap, build, defaultConf, tester).run(context.Background(), cfg, te)
}

func TestCulpritSearch(t *testing.T) {
	log2 := func(n int) int { return bits.Len(uint(n)) }
	for _, tc := range []struct {
		name      string
		manifests string
		markers   map[string]string
		want      []model.ObjectRef
		maxTests  int
		wantErr   error
	}{
		{
			name:      "the line is a location of one Ingress: no test but the last",
			manifests: manyIngresses(20, ingressYAML("u", "bad", 3, "bad.example.com", "/ok", "/BAD")),
			markers:   map[string]string{`"/BAD/"`: ""},
			want:      []model.ObjectRef{ingRef("u", "bad")},
			maxTests:  1,
		},
		{
			name: "the line is a server line of a shared host: bisection among its Ingresses",
			manifests: manyIngresses(5, ingressYAML("u", "one", 1, "shared.example.com", "/one")+
				ingressYAML("u", "two", 2, "shared.example.com", "/two")+
				ingressYAML("u", "three", 3, "shared.example.com", "/three")),
			markers:  map[string]string{`"/two/"`: `server_name "shared.example.com"`},
			want:     []model.ObjectRef{ingRef("u", "two")},
			maxTests: 1 + 2*log2(3) + 1,
		},
		{
			name:      "no place: bisection among all the Ingresses",
			manifests: manyIngresses(40, ingressYAML("u", "bad", 5, "bad.example.com", "/BAD")),
			markers:   map[string]string{`"/BAD/"`: "-"},
			want:      []model.ObjectRef{ingRef("u", "bad")},
			maxTests:  1 + 2*log2(41) + 1,
		},
		{
			name:      "no place, the newest is the culprit: two tests and the last",
			manifests: manyIngresses(40, ingressYAML("u", "bad", 30, "bad.example.com", "/BAD")),
			markers:   map[string]string{`"/BAD/"`: "-"},
			want:      []model.ObjectRef{ingRef("u", "bad")},
			maxTests:  3,
		},
		{
			name: "two culprits, one mapped and one not: two rounds",
			manifests: manyIngresses(10, ingressYAML("u", "bad1", 2, "b1.example.com", "/BAD1")+
				ingressYAML("u", "bad2", 3, "b2.example.com", "/BAD2")),
			markers:  map[string]string{`"/BAD1/"`: "", `"/BAD2/"`: "-"},
			want:     []model.ObjectRef{ingRef("u", "bad1"), ingRef("u", "bad2")},
			maxTests: 2 + 1 + 2*log2(11),
		},
		{
			name:      "the global config fails: no culprit, one test",
			manifests: manyIngresses(10, ""),
			markers:   map[string]string{"worker_processes": "-"},
			wantErr:   errNoCulprit,
			maxTests:  1,
		},
		{
			name: "the line names an Ingress that is not the cause: found by bisection after all",
			manifests: manyIngresses(10, ingressYAML("u", "innocent", 2, "i.example.com", "/innocent")+
				ingressYAML("u", "bad", 3, "b.example.com", "/BAD")),
			// The error names the innocent's location while the bad one is in.
			markers: map[string]string{`"/BAD/"`: `"/innocent/"`},
			// Leaving out the innocent does not help: a second round
			// bisects; then the innocent is let back in (one test).
			want:     []model.ObjectRef{ingRef("u", "bad")},
			maxTests: 1 + 1 + 2*log2(12) + 1 + 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tester := &markerTester{markers: tc.markers}
			res, err := search(t, tc.manifests, tester)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.culprits) != len(tc.want) {
					t.Fatalf("culprits %v, want %v", res.culprits, tc.want)
				}
				for _, w := range tc.want {
					if _, ok := res.culprits[w]; !ok {
						t.Errorf("culprits %v lack %v", res.culprits, w)
					}
				}
				if err := tester.check(res.conf); err != nil {
					t.Errorf("the result does not pass: %v", err)
				}
				quarantined := 0
				for _, p := range res.problems {
					if isQuarantineProblem(p) {
						quarantined++
					}
				}
				if quarantined != len(tc.want) {
					t.Errorf("%d quarantine problems, want %d: %v", quarantined, len(tc.want), res.problems)
				}
			}
			if n := tester.count(); n > tc.maxTests {
				t.Errorf("%d nginx -t runs, want at most %d", n, tc.maxTests)
			}
			t.Logf("%d nginx -t runs", tester.count())
		})
	}
}

// TestCulpritSearchBounds: more culprits than rounds, or more tests than
// the budget, end the search with nothing quarantined.
func TestCulpritSearchBounds(t *testing.T) {
	var extra strings.Builder
	markers := map[string]string{}
	for i := range maxQuarantineRounds + 1 {
		extra.WriteString(ingressYAML("u", fmt.Sprintf("bad%d", i), 2, fmt.Sprintf("b%d.example.com", i), fmt.Sprintf("/BAD%d", i)))
		markers[fmt.Sprintf(`"/BAD%d/"`, i)] = ""
	}
	res, err := search(t, manyIngresses(3, extra.String()), &markerTester{markers: markers})
	if err == nil || res.cfg != nil {
		t.Fatalf("found %v with %d rounds for %d culprits", res.culprits, maxQuarantineRounds, maxQuarantineRounds+1)
	}

	snap := snapshot(t, manyIngresses(300, ingressYAML("u", "bad", 1, "b.example.com", "/BAD")))
	tester := &markerTester{markers: map[string]string{`"/BAD/"`: "-"}}
	cfg, _ := render.Build(snap, render.DefaultOptions())
	q := newCulpritSearch(snap, render.DefaultOptions(), defaultConf, tester)
	q.maxTests = 4
	if _, err := q.run(context.Background(), cfg, &nginx.TestError{Message: "m"}); err == nil || tester.count() != 4 {
		t.Fatalf("err %v after %d tests with a budget of 4", err, tester.count())
	}
}

// testingNginx is a fakeNginx whose nginx -t (in Test, Start and Reload)
// is a markerTester.
type testingNginx struct {
	*fakeNginx
	tester *markerTester
}

func (n *testingNginx) Test(ctx context.Context, conf []byte) error { return n.tester.Test(ctx, conf) }

// TestLoopQuarantine: an Ingress that nginx -t refuses is left out in the
// same sync, the rest is loaded, the Problem and the gauge say so; once
// the Ingress changes it is tried again, and served when it passes. Each
// sync reports its Problems once, the final list: the sync that
// quarantines reports the list with the quarantine Problem only, and the
// problems gauge holds that list when the reporter gets it.
func TestLoopQuarantine(t *testing.T) {
	tester := &markerTester{markers: map[string]string{`"/BAD/"`: ""}}
	good := ingressYAML("t", "good", 1, "good.example.com", "/")
	var gaugeErrs []string // written by the loop's goroutine under the reporter's lock
	lt := startLoop(t, snapshot(t, good+ingressClassYAML), func(cfg *Config, n *fakeNginx) {
		n.startErr = nil
		n.reloadErr = tester.check
		cfg.Nginx = &testingNginx{fakeNginx: n, tester: tester}
	})
	lt.reporter.mu.Lock()
	lt.reporter.onReport = func(ps []model.Problem) {
		quarantined := 0
		for _, p := range ps {
			if isQuarantineProblem(p) {
				quarantined++
			}
		}
		if g := intGauge(lt.c.metrics.problems.WithLabelValues("quarantined")); g != quarantined {
			gaugeErrs = append(gaugeErrs, fmt.Sprintf("problems gauge quarantined=%d when the reporter got %d: %v", g, quarantined, ps))
		}
	}
	lt.reporter.mu.Unlock()
	defer func() {
		lt.reporter.mu.Lock()
		defer lt.reporter.mu.Unlock()
		for _, e := range gaugeErrs {
			t.Error(e)
		}
	}()
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	_, reloads := lt.nginx.counts()
	calls := lt.reporter.callCount()

	// A tenant adds a bad Ingress and, in the same change, another
	// tenant a new host.
	bad := ingressYAML("u", "bad", 2, "bad.example.com", "/ok", "/BAD")
	other := ingressYAML("v", "other", 3, "other.example.com", "/")
	lt.src.set(snapshot(t, good+bad+other+ingressClassYAML))
	eventually(t, 5*time.Second, "the other tenant's host served", func() bool { return lt.nginx.serves(`server_name "other.example.com"`) })
	want := `ingress u/bad: metadata: quarantined: nginx -t: refused "/BAD/"`
	// the sync reports its Problems once it applied the config
	eventually(t, 5*time.Second, "the quarantine Problem reported", func() bool { return hasProblem(lt.reporter.problems(), want) })
	if lt.nginx.serves("bad.example.com") {
		t.Error("the quarantined Ingress's host is served")
	}
	if st := lt.c.Stats(); st.Quarantined != 1 || st.ReloadErrors != 1 {
		t.Errorf("stats %+v: want 1 quarantined and 1 reload error", st)
	}
	if _, r := lt.nginx.counts(); r != reloads+2 {
		t.Errorf("reload attempts %d → %d, want the refused one and the one without the culprit", reloads, r)
	}
	if n := tester.count(); n != 1 {
		t.Errorf("%d nginx -t runs by the search, want 1 (the line names the culprit)", n)
	}
	reports := lt.reporter.since(calls)
	if len(reports) == 0 {
		t.Error("no Problems reported after the change")
	}
	for i, ps := range reports {
		if !hasProblem(ps, want) {
			t.Errorf("report %d of %d after the bad Ingress came lacks the quarantine Problem: %v", i+1, len(reports), ps)
		}
	}

	// Later changes of others apply without any search or test.
	third := ingressYAML("w", "third", 4, "third.example.com", "/")
	lt.src.set(snapshot(t, good+bad+other+third+ingressClassYAML))
	eventually(t, 5*time.Second, "a third host", func() bool { return lt.nginx.serves(`server_name "third.example.com"`) })
	if n := tester.count(); n != 1 {
		t.Errorf("%d nginx -t runs by searches, want still 1", n)
	}
	if !hasProblem(lt.reporter.problems(), want) {
		t.Errorf("the quarantine Problem is gone while the Ingress is unchanged: %v", lt.reporter.problems())
	}

	// Fixed: tried again and served; the gauge drops.
	fixed := ingressYAML("u", "bad", 2, "bad.example.com", "/ok", "/good")
	lt.src.set(snapshot(t, good+fixed+other+third+ingressClassYAML))
	eventually(t, 5*time.Second, "the fixed Ingress served", func() bool { return lt.nginx.serves(`"/good/"`) })
	if st := lt.c.Stats(); st.Quarantined != 0 {
		t.Errorf("stats %+v: want none quarantined", st)
	}
	eventually(t, 5*time.Second, "the quarantine Problem no longer reported", func() bool { return !hasProblem(lt.reporter.problems(), want) })
}

// TestLoopQuarantineAtStart: the first config (nginx not started yet)
// is quarantined the same way.
func TestLoopQuarantineAtStart(t *testing.T) {
	tester := &markerTester{markers: map[string]string{`"/BAD/"`: "-"}}
	lt := startLoop(t, snapshot(t, manyIngresses(6, ingressYAML("u", "bad", 2, "bad.example.com", "/BAD"))), func(cfg *Config, n *fakeNginx) {
		n.startErr = nil
		cfg.Nginx = &startTestingNginx{testingNginx{fakeNginx: n, tester: tester}}
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	if !lt.nginx.serves(`server_name "h5.example.com"`) || lt.nginx.serves("bad.example.com") {
		t.Error("started without the others or with the culprit")
	}
	if st := lt.c.Stats(); st.Quarantined != 1 {
		t.Errorf("stats %+v", st)
	}
}

// startTestingNginx runs its nginx -t in Start too.
type startTestingNginx struct{ testingNginx }

func (n *startTestingNginx) Start(ctx context.Context, conf []byte) error {
	if err := n.tester.check(conf); err != nil {
		return err
	}
	return n.fakeNginx.Start(ctx, conf)
}

// TestLoopNoQuarantineWhenGlobal: when the config fails without any
// Ingress, nothing is quarantined and the config is held, as before.
func TestLoopNoQuarantineWhenGlobal(t *testing.T) {
	tester := &markerTester{markers: map[string]string{}}
	lt := startLoop(t, snapshot(t, manyIngresses(3, "")), func(cfg *Config, n *fakeNginx) {
		n.reloadErr = tester.check
		cfg.Nginx = &testingNginx{fakeNginx: n, tester: tester}
	})
	eventually(t, 5*time.Second, "first config", lt.c.Ready)
	tester.mu.Lock()
	tester.markers["worker_processes"] = "-"
	tester.mu.Unlock()
	lt.src.set(snapshot(t, manyIngresses(4, "")))
	eventually(t, 5*time.Second, "the reload error", func() bool { return lt.c.Stats().ReloadErrors == 1 })
	if st := lt.c.Stats(); st.Quarantined != 0 {
		t.Errorf("stats %+v", st)
	}
	if n := tester.count(); n != 1 {
		t.Errorf("%d tests by the search, want 1 (every Ingress left out)", n)
	}
}

func hasProblem(ps []model.Problem, s string) bool {
	for _, p := range ps {
		if p.String() == s {
			return true
		}
	}
	return false
}
