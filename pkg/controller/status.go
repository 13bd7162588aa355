package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Defaults of StatusConfig.
const (
	// DefaultStatusResync is how often the leader compares every
	// Ingress's status with what it should be (ingress-nginx: 60 s).
	DefaultStatusResync = 60 * time.Second
	// DefaultStatusInterval is the least time between two passes: syncs
	// that come faster are coalesced.
	DefaultStatusInterval = time.Second
	// DefaultStatusUpdateRate and DefaultStatusUpdateBurst bound the
	// UpdateStatus calls (per second).
	DefaultStatusUpdateRate  = 50
	DefaultStatusUpdateBurst = 50
	// statusRetry is when a pass that failed is tried again.
	statusRetry = 5 * time.Second
)

// StatusSource gives the objects as the controller sees them;
// *ClusterSource implements it.
type StatusSource interface {
	Snapshot() (render.Snapshot, error)
}

// StatusConfig is what a StatusWriter needs; Client, Source and Addresses
// are required.
type StatusConfig struct {
	Client    kubernetes.Interface
	Source    StatusSource
	Addresses AddressSource
	// Build gives the class rules: the Ingresses of this controller's
	// class are the ones it writes the status of.
	Build render.Options

	ResyncPeriod time.Duration
	MinInterval  time.Duration
	UpdateRate   float64
	UpdateBurst  int
}

// StatusWriter keeps status.loadBalancer.ingress of the Ingresses this
// controller serves equal to its published addresses. It runs on every
// replica (Run), remembering which Ingresses it saw served, but writes
// only while SetLeading(true): the leader. Served are the Ingresses of
// this controller's class that have a rule or a default backend and are
// not being deleted, as ingress-nginx writes every Ingress of its class.
// An Ingress this replica saw served and that is served no more (its class
// changed, its rules were removed) loses its status once, if that status
// is still this controller's addresses; the status of an Ingress it never
// served is never touched.
type StatusWriter struct {
	cfg     StatusConfig
	wake    chan struct{}
	serving atomic.Bool
	leading atomic.Bool
	limiter *rate.Limiter

	// mu serializes passes (Run's and Clear's) and guards the maps.
	mu sync.Mutex
	// seen holds the Ingresses this replica saw served and not yet
	// cleaned up after; written the addresses it last wrote to each.
	seen    map[string]bool
	written map[string][]networkingv1.IngressLoadBalancerIngress
}

var _ SyncObserver = (*StatusWriter)(nil)

// NewStatusWriter checks cfg; nothing runs until Run.
func NewStatusWriter(cfg StatusConfig) (*StatusWriter, error) {
	if cfg.Client == nil || cfg.Source == nil || cfg.Addresses == nil {
		return nil, errors.New("status: Client, Source and Addresses are required")
	}
	setDefault(&cfg.ResyncPeriod, DefaultStatusResync)
	setDefault(&cfg.MinInterval, DefaultStatusInterval)
	setDefault(&cfg.UpdateRate, DefaultStatusUpdateRate)
	setDefault(&cfg.UpdateBurst, DefaultStatusUpdateBurst)
	return &StatusWriter{
		cfg:     cfg,
		wake:    make(chan struct{}, 1),
		limiter: rate.NewLimiter(rate.Limit(cfg.UpdateRate), cfg.UpdateBurst),
		seen:    map[string]bool{},
		written: map[string][]networkingv1.IngressLoadBalancerIngress{},
	}, nil
}

// Synced is the SyncObserver: once nginx serves a config, every sync
// wakes Run. It never blocks.
func (w *StatusWriter) Synced(_ context.Context, r SyncResult) {
	if r.Serving != nil {
		w.serving.Store(true)
		w.Wake()
	}
}

// Wake asks Run for a pass soon.
func (w *StatusWriter) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// SetLeading says whether this replica is the leader (the Elector's lead
// function sets it); becoming the leader wakes Run.
func (w *StatusWriter) SetLeading(leading bool) {
	w.leading.Store(leading)
	if leading {
		w.Wake()
	}
}

// Run makes a pass after each wake (at most one per MinInterval), every
// ResyncPeriod and, after a failure, again 5 s later, until ctx ends. No
// pass runs before nginx serves a first config.
func (w *StatusWriter) Run(ctx context.Context) {
	log := klog.FromContext(ctx).WithName("status")
	ctx = klog.NewContext(ctx, log)
	resync := time.NewTicker(w.cfg.ResyncPeriod)
	defer resync.Stop()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-resync.C:
		case <-retry:
		}
		retry = nil
		if !w.serving.Load() {
			continue
		}
		if err := w.Sync(ctx); err != nil && ctx.Err() == nil {
			log.Error(err, "Updating the Ingress status failed; trying again", "in", statusRetry)
			retry = time.After(statusRetry)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.cfg.MinInterval):
		}
	}
}

// Sync makes one pass: it records the served Ingresses and, on the
// leader, writes their status and clears the status of those no longer
// served.
func (w *StatusWriter) Sync(ctx context.Context) error {
	var addrs []networkingv1.IngressLoadBalancerIngress
	if w.leading.Load() {
		var err error
		if addrs, err = w.cfg.Addresses.Addresses(ctx); err != nil {
			return err
		}
		addrs = normalizeAddresses(addrs)
	}
	return w.pass(ctx, addrs, false)
}

// Clear removes this controller's addresses from the status of every
// Ingress it serves: --update-status-on-shutdown, called by the leader
// before it gives up the Lease. It writes whether or not SetLeading was
// called: the caller decides.
func (w *StatusWriter) Clear(ctx context.Context) error {
	return w.pass(ctx, nil, true)
}

// pass compares each Ingress's status with what it should be and updates
// the ones that differ; write is false on a follower that only records.
func (w *StatusWriter) pass(ctx context.Context, addrs []networkingv1.IngressLoadBalancerIngress, clearAll bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	snap, err := w.cfg.Source.Snapshot()
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	served := map[string]bool{}
	for _, ing := range render.IngressesOfClass(snap, w.cfg.Build) {
		if servedIngress(ing) {
			served[ingressKey(ing)] = true
		}
	}
	write := clearAll || w.leading.Load()
	ings := slices.Clone(snap.Ingresses)
	slices.SortFunc(ings, func(a, b *networkingv1.Ingress) int { return strings.Compare(ingressKey(a), ingressKey(b)) })
	present := map[string]bool{}
	var errs []error
	for _, ing := range ings {
		key := ingressKey(ing)
		present[key] = true
		if served[key] {
			w.seen[key] = true
		}
		if !write {
			continue
		}
		if !clearAll && !w.leading.Load() {
			write = false // lost the lease during the pass
			continue
		}
		cur := normalizeAddresses(ing.Status.LoadBalancer.Ingress)
		var want []networkingv1.IngressLoadBalancerIngress
		switch {
		case served[key]:
			want = addrs // nil for Clear
		case w.seen[key]:
			// Served before, not now: clear it once, if the status is
			// still ours (another controller may have written its own).
			if !sameAddresses(cur, addrs) && !sameAddresses(cur, w.written[key]) {
				delete(w.seen, key)
				delete(w.written, key)
				continue
			}
			if len(cur) == 0 {
				delete(w.seen, key)
				continue
			}
		default:
			continue
		}
		if sameAddresses(cur, want) {
			continue
		}
		if err := w.update(ctx, ing, cur, want); err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if len(want) == 0 {
			delete(w.written, key)
			if !served[key] {
				delete(w.seen, key) // cleaned up after
			}
		} else {
			w.written[key] = want
		}
	}
	for key := range w.seen {
		if !present[key] {
			delete(w.seen, key)
			delete(w.written, key)
		}
	}
	return errors.Join(errs...)
}

// servedIngress: an Ingress of the class that routes something and is not
// being deleted.
func servedIngress(ing *networkingv1.Ingress) bool {
	return ing.DeletionTimestamp == nil && (len(ing.Spec.Rules) > 0 || ing.Spec.DefaultBackend != nil)
}

func ingressKey(ing *networkingv1.Ingress) string { return ing.Namespace + "/" + ing.Name }

// update writes want to a copy of ing's status; on a conflict (the cache
// is behind) it reads the Ingress again and retries once.
func (w *StatusWriter) update(ctx context.Context, ing *networkingv1.Ingress, cur, want []networkingv1.IngressLoadBalancerIngress) error {
	if err := w.limiter.Wait(ctx); err != nil {
		return err
	}
	log := klog.FromContext(ctx)
	client := w.cfg.Client.NetworkingV1().Ingresses(ing.Namespace)
	obj := ing.DeepCopy()
	for attempt := 0; ; attempt++ {
		obj.Status.LoadBalancer.Ingress = slices.Clone(want)
		_, err := client.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		if err == nil {
			log.Info("Updated the Ingress status", "ingress", klog.KObj(ing), "from", addressList(cur), "to", addressList(want))
			return nil
		}
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile
		}
		if !apierrors.IsConflict(err) || attempt > 0 {
			return fmt.Errorf("status of ingress %s: %w", ingressKey(ing), err)
		}
		if obj, err = client.Get(ctx, ing.Name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("status of ingress %s: %w", ingressKey(ing), err)
		}
	}
}

// addressList is a list of addresses for logs.
func addressList(a []networkingv1.IngressLoadBalancerIngress) string {
	s := make([]string, 0, len(a))
	for _, x := range a {
		s = append(s, x.IP+x.Hostname)
	}
	return "[" + strings.Join(s, ",") + "]"
}
