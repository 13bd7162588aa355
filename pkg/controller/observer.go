package controller

import (
	"context"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// SyncResult is the outcome of one sync, as the observers see it.
type SyncResult struct {
	// Desired is the config the sync built (never nil once the snapshot
	// and Build ran); Problems are Build's.
	Desired  *model.Config
	Problems []model.Problem
	// Serving is the config nginx serves after the sync: Desired when the
	// sync succeeded, the previous one (possibly nil) otherwise.
	Serving *model.Config
	// Verdict is the plan's verdict; Reloaded is true when nginx was
	// started or reloaded with the new nginx.conf by this sync.
	Verdict  ksync.Verdict
	Reloaded bool
	// Checksum is the md5 of the desired nginx.conf.
	Checksum string
	// Err is the sync's error (nil on success); a rejected nginx.conf
	// is an *nginx.TestError within it.
	Err      error
	Duration time.Duration
}

// SyncObserver is told about every sync that got as far as a plan, from
// the loop's one worker goroutine: it must return quickly (enqueue, set a
// value) and never block on the API server.
type SyncObserver interface {
	Synced(ctx context.Context, r SyncResult)
}

// SyncObserverFunc adapts a function to SyncObserver.
type SyncObserverFunc func(ctx context.Context, r SyncResult)

// Synced calls f.
func (f SyncObserverFunc) Synced(ctx context.Context, r SyncResult) { f(ctx, r) }

// notify tells every observer of Config.Observers.
func (c *Controller) notify(ctx context.Context, r SyncResult) {
	for _, o := range c.cfg.Observers {
		o.Synced(ctx, r)
	}
}
