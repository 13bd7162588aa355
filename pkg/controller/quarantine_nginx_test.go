package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestQuarantineMappingRealNginx: the line a real nginx -t names in a
// config of our writer maps to the Ingress that wrote it. The invalid
// values are set in the model directly (render would refuse some of them
// from an Ingress), so the test stays valid whatever render learns to
// refuse; the controller tests in test/e2e feed real Ingresses.
func TestQuarantineMappingRealNginx(t *testing.T) {
	in := nginxtest.Tester(t)
	snap := snapshot(t, ingressYAML("t", "a", 1, "shared.example.com", "/a")+
		ingressYAML("t", "b", 2, "shared.example.com", "/b")+
		ingressYAML("u", "c", 3, "own.example.com", "/c", "/d")+ingressClassYAML)
	for _, tc := range []struct {
		name  string
		stub  func(*model.Config)
		want  []model.ObjectRef
		inMsg string
	}{
		{
			name: "a regex PCRE2 refuses in a location",
			stub: func(c *model.Config) {
				l := location(c, "own.example.com", "/d")
				l.Regex, l.Path = true, `/d(?P<uri>.*)`
			},
			want:  []model.ObjectRef{ingRef("u", "c")},
			inMsg: `duplicate "uri" variable`,
		},
		{
			name: "a rewrite regex PCRE2 refuses",
			stub: func(c *model.Config) {
				l := location(c, "shared.example.com", "/b")
				l.Regex, l.Path, l.Settings.RewriteTarget = true, `/b[\d-z]`, "/"
			},
			want:  []model.ObjectRef{ingRef("t", "b")},
			inMsg: "invalid range in character class",
		},
		{
			name: "a location parameter too long for nginx",
			stub: func(c *model.Config) {
				location(c, "shared.example.com", "/a").Path = "/a" + strings.Repeat("x", 5000)
			},
			want:  []model.ObjectRef{ingRef("t", "a")},
			inMsg: "too long parameter",
		},
		{
			name: "a server alias nginx refuses: the host's Ingresses",
			stub: func(c *model.Config) {
				s := c.Server("shared.example.com")
				s.Aliases = append(s.Aliases, "~(")
			},
			want:  []model.ObjectRef{ingRef("t", "a"), ingRef("t", "b")},
			inMsg: "pcre2_compile() failed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := render.Build(snap, render.DefaultOptions())
			tc.stub(cfg)
			conf, owners, err := nginxconf.NGINXConfWithOwners(cfg, nginxconf.DefaultConfOptions())
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = in.Test(ctx, conf)
			var te *nginx.TestError
			if !errors.As(err, &te) {
				t.Fatalf("nginx -t: %v, want a *nginx.TestError", err)
			}
			if te.Line == 0 || !strings.Contains(te.Message, tc.inMsg) {
				t.Fatalf("TestError line %d message %q, want a line and %q", te.Line, te.Message, tc.inMsg)
			}
			if strings.Contains(te.Message, ".test-") {
				t.Errorf("the message names the test file: %q", te.Message)
			}
			block, ok := owners.At(te.Line)
			if !ok || !slices.Equal(block.Ingresses, tc.want) {
				t.Errorf("line %d → %v (host %q, location %.40q), %v; want %v", te.Line, block.Ingresses, block.Host, block.Location, ok, tc.want)
			}
		})
	}
}

// location is the location of path on host in c.
func location(c *model.Config, host, path string) *model.Location {
	s := c.Server(host)
	for i := range s.Locations {
		if s.Locations[i].Path == path {
			return &s.Locations[i]
		}
	}
	panic("no location " + host + path)
}

// lineless is a Tester whose errors name no line: the search must bisect.
type lineless struct{ Tester }

func (l lineless) Test(ctx context.Context, conf []byte) error {
	err := l.Tester.Test(ctx, conf)
	var te *nginx.TestError
	if errors.As(err, &te) {
		c := *te
		c.Line = 0
		return &c
	}
	return err
}

// countingTester counts the nginx -t runs.
type countingTester struct {
	Tester
	n int
}

func (c *countingTester) Test(ctx context.Context, conf []byte) error {
	c.n++
	return c.Tester.Test(ctx, conf)
}

// TestQuarantineSearchRealNginx: a culprit among 30 Ingresses (its line
// refused by a real nginx -t: nginxrefuses.Pick, the writer's test seam
// on) is found through that nginx -t, by its line and, when nginx names
// none, by bisection; the config without it passes.
func TestQuarantineSearchRealNginx(t *testing.T) {
	culprit := nginxrefuses.Pick(t)
	in := nginxtest.Tester(t)
	var b strings.Builder
	for i := range 30 {
		b.WriteString(ingressYAML("t", fmt.Sprintf("ing-%d", i), 1+i%27, fmt.Sprintf("h%d.example.com", i), "/"))
	}
	b.WriteString(culprit.YAML("u", "bad", "bad.example.com", "web", "2026-01-10T00:00:00Z") + "---\n")
	snap := snapshot(t, b.String()+ingressClassYAML)
	cfg, _ := render.Build(snap, render.DefaultOptions())
	// The writer's test seam makes the culprit's line one nginx -t refuses
	// (nginxrefuses.Seam); the search writes every candidate config with it.
	seamConf := func(*model.Config) nginxconf.ConfOptions { return nginxrefuses.Conf() }
	conf, err := nginxconf.NGINXConf(cfg, nginxrefuses.Conf())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		tester   Tester
		maxTests int
	}{
		{"the line names it", in, 1},
		{"no line: bisection", lineless{in}, 1 + 2*5 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var te *nginx.TestError
			if err := tc.tester.Test(ctx, conf); !errors.As(err, &te) {
				t.Fatalf("nginx -t of the config with %s: %v, want a refusal", culprit.Name, err)
			}
			counter := &countingTester{Tester: tc.tester}
			res, err := newCulpritSearch(snap, render.DefaultOptions(), seamConf, counter).run(ctx, cfg, te)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := res.culprits[ingRef("u", "bad")]; !ok || len(res.culprits) != 1 {
				t.Errorf("culprits %v, want u/bad", res.culprits)
			}
			if err := in.Test(ctx, res.conf); err != nil {
				t.Errorf("the config without the culprit: %v", err)
			}
			if counter.n > tc.maxTests {
				t.Errorf("%d nginx -t runs, want at most %d", counter.n, tc.maxTests)
			}
			t.Logf("%d nginx -t runs", counter.n)
		})
	}
}
