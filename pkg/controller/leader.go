package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Defaults of the leader election, as ingress-nginx has them: the Lease
// is named by --election-id and lasts --election-ttl (30 s); the leader
// renews it within half of that and candidates retry every quarter.
const (
	DefaultElectionID  = "ingress-nginx-leader"
	DefaultElectionTTL = 30 * time.Second
)

// ElectorConfig says which Lease the replicas compete for and who this
// replica is.
type ElectorConfig struct {
	Client kubernetes.Interface
	// Namespace and Name of the coordination.k8s.io Lease (the pod's
	// namespace and --election-id).
	Namespace, Name string
	// Identity is this replica in the Lease's holderIdentity (the pod name).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's; zero
	// values take TTL, TTL/2 and TTL/4 with TTL = DefaultElectionTTL.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// MetricsIdentity labels ingress-nginx's leader_election_status
	// (metrics_ingressnginx.go).
	MetricsIdentity MetricsIdentity
}

// Elector runs leader election on a Lease: while this replica leads, it
// runs the function given to Run; when ctx ends it gives the Lease up at
// once (ReleaseOnCancel) so that another replica takes over without
// waiting for it to expire. Every change of leadership is a log line and
// updates the leader metrics.
type Elector struct {
	cfg       ElectorConfig
	lock      *resourcelock.LeaseLock
	leading   atomic.Bool
	leadingMu sync.Mutex // serialises setLeading
	metrics   *leaderMetrics
}

// NewElector checks cfg; nothing talks to the API server until Run.
func NewElector(cfg ElectorConfig) (*Elector, error) {
	if cfg.Client == nil {
		return nil, errors.New("leader election: no client")
	}
	if cfg.Namespace == "" {
		return nil, errors.New("leader election: no namespace for the Lease (set POD_NAMESPACE or --election-namespace)")
	}
	if cfg.Name == "" {
		return nil, errors.New("leader election: --election-id must not be empty")
	}
	if cfg.Identity == "" {
		return nil, errors.New("leader election: no identity (set POD_NAME)")
	}
	setDefault(&cfg.LeaseDuration, DefaultElectionTTL)
	setDefault(&cfg.RenewDeadline, cfg.LeaseDuration/2)
	setDefault(&cfg.RetryPeriod, cfg.LeaseDuration/4)
	e := &Elector{
		cfg: cfg,
		lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
			Client:     cfg.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity},
		},
		metrics: newLeaderMetrics(),
	}
	// Check the durations now rather than at Run.
	if _, err := e.newLeaderElector(klog.Background(), func(context.Context) {}); err != nil {
		return nil, err
	}
	return e, nil
}

// Identity is this replica's name in the Lease.
func (e *Elector) Identity() string { return e.cfg.Identity }

// IsLeader reports whether this replica holds the Lease now.
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// Run competes for the Lease until ctx ends. Each time this replica
// becomes the leader it calls lead with a context that ends when it stops
// leading; after losing the Lease it competes again. Run returns once
// ctx ended, the Lease is released and lead has returned.
func (e *Elector) Run(ctx context.Context, lead func(ctx context.Context)) {
	log := klog.FromContext(ctx).WithName("leader")
	ctx = klog.NewContext(ctx, log)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		le, err := e.newLeaderElector(log, func(lctx context.Context) {
			wg.Go(func() { lead(lctx) })
		})
		if err != nil { // checked by NewElector
			log.Error(err, "Leader election")
			return
		}
		le.Run(ctx)
	}
}

func (e *Elector) newLeaderElector(log klog.Logger, lead func(context.Context)) (*leaderelection.LeaderElector, error) {
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            e.lock,
		LeaseDuration:   e.cfg.LeaseDuration,
		RenewDeadline:   e.cfg.RenewDeadline,
		RetryPeriod:     e.cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            e.cfg.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				e.setLeading(log, true)
				// Not the leader any more as soon as renewing stops,
				// before the Lease is released.
				context.AfterFunc(ctx, func() { e.setLeading(log, false) })
				lead(ctx)
			},
			OnStoppedLeading: func() { e.setLeading(log, false) },
			OnNewLeader: func(identity string) {
				if identity != e.cfg.Identity {
					log.Info("Another replica leads", "lease", e.lease(), "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	return le, nil
}

// setLeading records a change of leadership, once: the gauge, the
// counter of transitions and a log line.
//
// The change and its gauge are made under one lock: the renewal's end
// (AfterFunc, its own goroutine) and OnStoppedLeading (in Run) may both
// report the stop, and whichever comes second must not return before the
// gauge says so.
func (e *Elector) setLeading(log klog.Logger, leading bool) {
	e.leadingMu.Lock()
	defer e.leadingMu.Unlock()
	if !e.leading.CompareAndSwap(!leading, leading) {
		return // no change
	}
	e.metrics.set(leading)
	if leading {
		log.Info("Became the leader: this replica writes the Ingress status", "lease", e.lease(), "identity", e.cfg.Identity)
	} else {
		log.Info("Stopped leading", "lease", e.lease(), "identity", e.cfg.Identity)
	}
}

func (e *Elector) lease() string { return e.cfg.Namespace + "/" + e.cfg.Name }
