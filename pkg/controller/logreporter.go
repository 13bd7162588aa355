package controller

import (
	"context"
	"sync"

	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// LogReporter is the ProblemReporter of the files source: it logs each
// Problem once, when it appears, and logs again when it is gone, so that a
// sync loop that calls it after every change does not repeat itself.
type LogReporter struct {
	mu       sync.Mutex
	reported map[model.Problem]struct{}
}

var _ ProblemReporter = (*LogReporter)(nil)

// NewLogReporter returns a LogReporter that has reported nothing yet.
func NewLogReporter() *LogReporter {
	return &LogReporter{reported: map[model.Problem]struct{}{}}
}

// ReportProblems logs the Problems of problems not reported at the last
// call, and the ones reported then that are gone.
func (r *LogReporter) ReportProblems(ctx context.Context, problems []model.Problem) {
	log := klog.FromContext(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	current := make(map[model.Problem]struct{}, len(problems))
	for _, p := range model.SortProblems(append([]model.Problem(nil), problems...)) {
		current[p] = struct{}{}
		if _, seen := r.reported[p]; !seen {
			log.Info("Problem", "object", problemObject(p), "field", p.Field, "reason", p.Reason)
		}
	}
	for p := range r.reported {
		if _, still := current[p]; !still {
			log.Info("Problem resolved", "object", problemObject(p), "field", p.Field)
		}
	}
	r.reported = current
}

// problemObject names the object of a Problem as "kind namespace/name".
func problemObject(p model.Problem) string {
	if p.Object.Kind == "" {
		return p.Object.String()
	}
	return p.Object.Kind + " " + p.Object.String()
}
