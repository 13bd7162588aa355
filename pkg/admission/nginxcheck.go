package admission

import (
	"context"
	"fmt"
	"slices"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// ConfTester runs nginx -t on an nginx.conf that render wrote. The caller
// implements it over pkg/nginx (which this package may not import), under
// a prefix of its own that no running nginx uses. A config that nginx
// refuses is a *TestFailure, not an error; an error means the test could
// not run.
//
// files are the files conf names (model.File), which the tester writes
// under its prefix before nginx -t reads them.
type ConfTester interface {
	TestConf(ctx context.Context, conf []byte, files []model.File) (*TestFailure, error)
}

// TestFailure is nginx -t's refusal: its message and the line of the
// config it names (0 for none).
type TestFailure struct {
	Message string
	Line    int
}

// DefaultNginxTestTimeout bounds the nginx -t of one review, the wait for
// another review's test included: half the API server's default webhook
// timeout (10 s), so that the review still answers.
const DefaultNginxTestTimeout = 5 * time.Second

// NginxCheck makes a Strict Validator run nginx -t on the config that the
// candidate and the objects related to it make (the same subset the
// Problems come from), and deny the candidate when nginx refuses a line
// that only the candidate wrote: the controller would quarantine it. A
// line of another Ingress, of a host it shares with others or of no
// Ingress gives a warning instead (the culprit may be another object: the
// controller finds it). The check runs only for a candidate of this
// controller's class without other denials; one test at a time, bounded
// by Timeout; a test that cannot run or finish in time admits the
// candidate with a warning.
//
// Every byte tested comes out of nginxconf.NGINXConf, whose every user value
// passes the one quoting function: a request cannot put a directive into
// what nginx -t reads (ingress-nginx's CVE-2025-1974 ran nginx -t on text
// a request had injected, and its ssl_engine loaded a library).
type NginxCheck struct {
	Tester ConfTester
	// Conf are the controller's nginx.conf options.
	Conf nginxconf.ConfOptions
	// Timeout is DefaultNginxTestTimeout when 0.
	Timeout time.Duration
}

// nginxCheck is an NginxCheck in use: slot lets one test run at a time.
type nginxCheck struct {
	NginxCheck
	slot chan struct{}
}

// WithNginxCheck turns the nginx -t of Strict reviews on; call it before
// the Validator serves. It does nothing unless the Validator is Strict.
func (v *Validator) WithNginxCheck(c NginxCheck) *Validator {
	if !v.strict || c.Tester == nil {
		return v
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultNginxTestTimeout
	}
	v.nginx = &nginxCheck{NginxCheck: c, slot: make(chan struct{}, 1)}
	return v
}

// judge tests the config of s (which holds cand, as placed) and returns
// the candidate's denial or warnings.
func (c *nginxCheck) judge(ctx context.Context, s render.Snapshot, cand *networkingv1.Ingress, o render.Options) (deny, warn []model.Problem) {
	ref := model.ObjectRef{Kind: "Ingress", Namespace: cand.Namespace, Name: cand.Name}
	warning := func(format string, args ...any) []model.Problem {
		return []model.Problem{model.Problemf(ref, "", format, args...)}
	}
	if len(render.IngressesOfClass(render.Snapshot{Ingresses: []*networkingv1.Ingress{cand}, IngressClasses: s.IngressClasses}, o)) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	select {
	case c.slot <- struct{}{}:
		defer func() { <-c.slot }()
	case <-ctx.Done():
		return nil, warning("nginx -t not run: other reviews' tests took the %v this review may wait", c.Timeout)
	}
	cfg, _ := render.Build(s, o)
	conf, owners, err := nginxconf.NGINXConfWithOwners(cfg, c.Conf)
	if err != nil {
		return nil, warning("nginx -t not run: writing nginx.conf: %v", err)
	}
	fail, err := c.Tester.TestConf(ctx, conf, cfg.Files)
	switch {
	case err != nil:
		return nil, warning("nginx -t could not run (%v); the controller tests the config before it loads it", err)
	case fail == nil:
		return nil, nil
	}
	block, mapped := owners.At(fail.Line)
	switch {
	case mapped && slices.Equal(block.Ingresses, []model.ObjectRef{ref}):
		where := fmt.Sprintf("host %q", block.Host)
		if block.Location != "" {
			where += ", location " + block.Location
		}
		return []model.Problem{model.Problemf(ref, "", "nginx -t: %s (%s)", fail.Message, where)}, nil
	case mapped && slices.Contains(block.Ingresses, ref):
		return nil, warning("nginx -t refuses a line of host %q, which this Ingress shares with %d other(s): %s", block.Host, len(block.Ingresses)-1, fail.Message)
	case mapped:
		return nil, warning("nginx -t refuses a line of ingress %s, not of this one: %s", block.Ingresses[0], fail.Message)
	}
	return nil, warning("nginx -t refuses the config with this Ingress on a line of no Ingress: %s", fail.Message)
}
