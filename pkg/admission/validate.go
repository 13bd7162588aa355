package admission

import (
	"context"
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Verdict is what the webhook says about one candidate Ingress.
type Verdict struct {
	// Denials are the candidate's Problems that refuse it; none admits it.
	Denials []model.Problem
	// Warnings are the candidate's Problems that do not refuse it: names of
	// objects that may come later (a TLS Secret that cert-manager has yet
	// to issue, a Service applied after its Ingress without Strict).
	Warnings []model.Problem
}

// Validator judges candidate Ingresses against the cluster's objects.
type Validator struct {
	snapshot func() (render.Snapshot, error)
	opts     render.Options
	strict   bool
	index    snapshotIndex
	// nginx, when set (WithNginxCheck), runs nginx -t in Strict reviews.
	nginx *nginxCheck
}

// NewValidator returns a Validator that reads the cluster through
// snapshot (called once per review; the objects are only read), builds with
// opts and, when strict, also denies a backend Service (or port) that does
// not exist.
func NewValidator(snapshot func() (render.Snapshot, error), opts render.Options, strict bool) (*Validator, error) {
	if snapshot == nil {
		return nil, fmt.Errorf("admission: no snapshot function")
	}
	return &Validator{snapshot: snapshot, opts: opts, strict: strict}, nil
}

// Validate judges cand, a new Ingress when create (it is then the newest of
// all, whatever its creationTimestamp says) or the new version of an
// existing one. cand is not modified.
func (v *Validator) Validate(cand *networkingv1.Ingress, create bool) (Verdict, error) {
	return v.ValidateContext(context.Background(), cand, create)
}

// ValidateContext is Validate; ctx bounds the nginx -t of a Strict review
// with an NginxCheck.
func (v *Validator) ValidateContext(ctx context.Context, cand *networkingv1.Ingress, create bool) (Verdict, error) {
	s, err := v.snapshot()
	if err != nil {
		return Verdict{}, fmt.Errorf("reading the cluster's objects: %w", err)
	}
	related, placed, old := v.index.related(s, cand, v.opts, create)
	verdict := classify(judge(related, placed, old, v.opts), v.strict)
	if v.nginx != nil && len(verdict.Denials) == 0 {
		deny, warn := v.nginx.judge(ctx, related, placed, v.opts)
		verdict.Denials = append(verdict.Denials, deny...)
		verdict.Warnings = append(verdict.Warnings, warn...)
	}
	return verdict, nil
}

// Prime indexes the cluster's objects now (tens of milliseconds at 10,000
// Ingresses), so that the first review does not wait for it.
func (v *Validator) Prime() error {
	s, err := v.snapshot()
	if err != nil {
		return fmt.Errorf("reading the cluster's objects: %w", err)
	}
	v.index.mu.Lock()
	defer v.index.mu.Unlock()
	v.index.refresh(s)
	return nil
}

// problems returns the Problems of cand put in s (see judge), from a Build
// of the related objects that the index finds.
func (v *Validator) problems(s render.Snapshot, cand *networkingv1.Ingress, create bool) []model.Problem {
	related, placed, old := v.index.related(s, cand, v.opts, create)
	return judge(related, placed, old, v.opts)
}

// judge builds s, which holds cand, and returns the Problems of cand, then
// the ones its change gives other Ingresses by taking over what they
// served: an older Ingress updated to claim a host and path, an alias, an
// app-root or a certificate that a younger one has (Build gives it to the
// older one; the younger one's Problem names cand as the owner). Those that
// old, the version cand replaces (nil for none), had already taken are
// left out: they are not this change's doing.
func judge(s render.Snapshot, cand, old *networkingv1.Ingress, o render.Options) []model.Problem {
	_, ps := render.Build(s, o)
	ref := model.ObjectRef{Kind: "Ingress", Namespace: cand.Namespace, Name: cand.Name}
	var own, taken []model.Problem
	for _, p := range ps {
		switch {
		case p.Object == ref:
			own = append(own, p)
		case namesOwner(p, ref):
			taken = append(taken, p)
		}
	}
	if len(taken) == 0 {
		return own
	}
	if old != nil {
		before := s
		before.Ingresses = make([]*networkingv1.Ingress, len(s.Ingresses))
		for i, ing := range s.Ingresses {
			if ing == cand {
				ing = old
			}
			before.Ingresses[i] = ing
		}
		_, was := render.Build(before, o)
		had := make(map[model.Problem]bool, len(was))
		for _, p := range was {
			had[p] = true
		}
		kept := taken[:0]
		for _, p := range taken {
			if !had[p] {
				kept = append(kept, p)
			}
		}
		taken = kept
	}
	return append(own, taken...)
}

// namesOwner reports whether a Problem of another object says that ref
// owns what it wanted (render's reasons for a lost conflict).
func namesOwner(p model.Problem, ref model.ObjectRef) bool {
	id := ref.String()
	return p.Object.Kind == "Ingress" &&
		(strings.Contains(p.Reason, "ingress "+id+" (older)") || strings.Contains(p.Reason, "(ingress "+id+")"))
}

// The kinds of a candidate's Problem.
type problemKind int

const (
	// denies: the candidate's own mistake or a conflict with an older object.
	kindDeny problemKind = iota
	// kindService: a backend Service or port that does not exist (yet):
	// denies only with Strict.
	kindService
	// kindSecret: a TLS Secret missing, invalid or not (yet) covering the
	// host; cert-manager issues it after the Ingress exists: never denies.
	kindSecret
)

// kindOf sorts a Problem by its field and the reasons render gives.
func kindOf(p model.Problem) problemKind {
	switch {
	case strings.HasSuffix(p.Field, ".service") &&
		(strings.Contains(p.Reason, " not found;") || strings.Contains(p.Reason, " has no port ")):
		return kindService
	case strings.HasSuffix(p.Field, "[nginx.ingress.kubernetes.io/default-backend]") &&
		strings.Contains(p.Reason, " not found or has no ports"):
		return kindService
	case strings.HasPrefix(p.Field, "spec.tls[") &&
		(strings.HasSuffix(p.Field, ".secretName") || strings.HasPrefix(p.Reason, "certificate of secret ")):
		return kindSecret
	}
	return kindDeny
}

func classify(ps []model.Problem, strict bool) Verdict {
	var v Verdict
	for _, p := range ps {
		switch k := kindOf(p); {
		case k == kindDeny, k == kindService && strict:
			v.Denials = append(v.Denials, p)
		default:
			v.Warnings = append(v.Warnings, p)
		}
	}
	return v
}
