package controller

import (
	"context"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// SyncResult is the outcome of one sync, as the observers see it.
type SyncResult struct {
	// Snapshot holds the objects the sync built from, and Desired the
	// config it built (never nil once the snapshot and Build ran).
	Snapshot render.Snapshot
	Desired  *model.Config
	// Serving is the config nginx serves after the sync: Desired when the
	// sync succeeded, the previous one (possibly nil) otherwise.
	Serving *model.Config
	// Verdict is the plan's verdict; Reloaded is true when nginx was
	// started or reloaded with the new nginx.conf by this sync.
	Verdict  ksync.Verdict
	Reloaded bool
	// Err is the sync's error (nil on success); a rejected nginx.conf
	// is an *nginx.TestError within it.
	Err error
}

// SyncObserver is told about every sync that got as far as a plan, from
// the loop's one worker goroutine: it must return quickly (enqueue, set a
// value) and never block on the API server.
type SyncObserver interface {
	Synced(ctx context.Context, r SyncResult)
}

// notify tells every observer of Config.Observers.
func (c *Controller) notify(ctx context.Context, r SyncResult) {
	for _, o := range c.cfg.Observers {
		o.Synced(ctx, r)
	}
}
