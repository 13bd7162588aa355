package admission

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// candidateProblems puts cand in s and returns what judge finds: from a
// Build of the related objects that a new index finds (full false), or of
// all of s (full true: the reference the subset is held to).
func candidateProblems(s render.Snapshot, cand *networkingv1.Ingress, o render.Options, create, full bool) []model.Problem {
	if !full {
		var x snapshotIndex
		related, placed, old := x.related(s, cand, o, create)
		return judge(related, placed, old, o)
	}
	s, cand, old := withCandidate(s, cand, create)
	return judge(s, cand, old, o)
}

// withCandidate returns s with cand in place of the Ingress of the same
// namespace and name (or added), the candidate as placed and the Ingress
// it replaced (nil for none). A created
// candidate gets a creationTimestamp one second after the newest Ingress's,
// so it loses every tie, as the newest object does once it is stored.
func withCandidate(s render.Snapshot, cand *networkingv1.Ingress, create bool) (render.Snapshot, *networkingv1.Ingress, *networkingv1.Ingress) {
	ings := make([]*networkingv1.Ingress, 0, len(s.Ingresses)+1)
	var newest time.Time
	var old *networkingv1.Ingress
	for _, ing := range s.Ingresses {
		if ing.Namespace == cand.Namespace && ing.Name == cand.Name {
			old = ing
			continue
		}
		if t := ing.CreationTimestamp.Time; t.After(newest) {
			newest = t
		}
		ings = append(ings, ing)
	}
	cand = placeCandidate(cand, create, newest)
	s.Ingresses = append(ings, cand)
	return s, cand, old
}
