package controller

import (
	"context"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Source is where the objects come from: the API server (ClusterSource) or
// manifest files (FileSource). The loop depends only on this.
type Source interface {
	// Run watches until ctx ends, calling changed after every change of a
	// watched object. changed must only enqueue: it never blocks.
	Run(ctx context.Context, changed func()) error
	// WaitForSync blocks until the Source has a complete first view (all
	// caches synced, all files read) or ctx ends; it reports success.
	WaitForSync(ctx context.Context) bool
	// Snapshot returns the current objects. The objects are shared with the
	// Source's caches: callers never modify them (render.Build does not).
	Snapshot() (render.Snapshot, error)
}

// ProblemReporter tells people about Problems: Kubernetes Events on the
// objects for the cluster source, log lines for the files source. It is
// called with every sync's full list and deduplicates itself.
type ProblemReporter interface {
	ReportProblems(ctx context.Context, problems []model.Problem)
}
