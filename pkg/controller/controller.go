package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// Nginx is the nginx process the loop drives; *nginx.Instance implements
// it. The loop calls Start for the first config and after the master
// died, Reload for later configs, and Stop when it ends.
type Nginx interface {
	Start(ctx context.Context, conf []byte) error
	Reload(ctx context.Context, conf []byte) error
	Stop(ctx context.Context) error
	// Done is closed when the master started last exits.
	Done() <-chan struct{}
}

// Defaults of Config.
const (
	DefaultSyncRate      = 20
	DefaultSyncBurst     = 1
	DefaultRetryBase     = 250 * time.Millisecond
	DefaultRetryMax      = 2 * time.Minute
	DefaultMaxRestarts   = 3
	DefaultRestartWindow = time.Minute
	DefaultSyncTimeout   = 15 * time.Minute
	DefaultStopTimeout   = 30 * time.Second
)

// Config is what a Controller needs. Source, Problems, Nginx and Lua are
// required; zero values elsewhere take the defaults.
type Config struct {
	Source   Source
	Problems ProblemReporter
	Nginx    Nginx
	// Lua posts the payloads; *luaapi.Client implements it.
	Lua ksync.Pusher
	// Stream writes the stream payload of TCP/UDP services and SSL
	// passthrough (*nginx.Instance implements it); optional while the
	// config has no stream servers.
	Stream ksync.StreamWriter
	// Files writes the files nginx.conf names (htpasswd files, CA
	// bundles: model.File); NginxFiles adapts *nginx.Instance. Optional
	// while the config names none.
	Files ksync.FileWriter

	Build render.Options
	Conf  nginxconf.ConfOptions

	// SyncRate (syncs per second) and SyncBurst are the token bucket that
	// every sync takes a token from (--sync-rate-limit). Events that come
	// while a sync waits or runs are coalesced into the next one.
	SyncRate  float64
	SyncBurst int
	// RetryBase and RetryMax bound the exponential backoff of a failed
	// sync (each failure doubles the delay).
	RetryBase, RetryMax time.Duration
	// MaxRestarts is how many times nginx may exit on its own, or fail to
	// start, within RestartWindow; one more and Run returns an error.
	MaxRestarts   int
	RestartWindow time.Duration
	// SyncTimeout bounds one sync: nginx -t and a reload of a large
	// config take minutes (10,000 Ingresses, 8 MB of nginx.conf: over 5
	// minutes on 2 busy cores); StopTimeout bounds the graceful stop.
	SyncTimeout time.Duration
	StopTimeout time.Duration

	// Observers are told about each sync's outcome (the Ingress status
	// writer, the RELOAD events); optional.
	Observers []SyncObserver

	// Graceful shutdown (shutdown.go): when ctx ends, /readyz answers 503
	// at once; nginx keeps serving for ShutdownGracePeriod, then the
	// ShutdownHooks run, then nginx quits (bounded by StopTimeout), then
	// Run waits PostShutdownGracePeriod. All optional (0: no wait).
	ShutdownGracePeriod     time.Duration
	PostShutdownGracePeriod time.Duration
	ShutdownHooks           []ShutdownHook

	// Profiling serves net/http/pprof under /debug/pprof/ on the metrics
	// server (--profiling).
	Profiling bool
	// WholeBuildGCPercent is the garbage collector's target (GOGC) during
	// a whole build and its apply, the first sync from its start
	// (memory_gc.go); 0 leaves the collector alone.
	WholeBuildGCPercent int

	// MetricsIdentity labels the metrics exported under ingress-nginx's
	// names (controller_namespace, controller_class, controller_pod);
	// an empty Class takes Build.ControllerClass.
	MetricsIdentity MetricsIdentity
	// RequestMetrics, when set, counts every request in nginx's Lua
	// (lua/monitor.lua) and exports ingress-nginx's request metrics
	// (metrics_requests.go); nil: none.
	RequestMetrics *RequestMetricsOptions
}

func (c *Config) defaults() error {
	if c.Source == nil || c.Problems == nil || c.Nginx == nil || c.Lua == nil {
		return errors.New("controller: Source, Problems, Nginx and Lua are required")
	}
	if c.SyncRate < 0 {
		return fmt.Errorf("controller: sync rate must not be negative, got %v", c.SyncRate)
	}
	setDefault(&c.SyncRate, DefaultSyncRate)
	setDefault(&c.SyncBurst, DefaultSyncBurst)
	setDefault(&c.RetryBase, DefaultRetryBase)
	setDefault(&c.RetryMax, DefaultRetryMax)
	setDefault(&c.MaxRestarts, DefaultMaxRestarts)
	setDefault(&c.RestartWindow, DefaultRestartWindow)
	setDefault(&c.SyncTimeout, DefaultSyncTimeout)
	setDefault(&c.StopTimeout, DefaultStopTimeout)
	setDefault(&c.MetricsIdentity.Class, c.Build.ControllerClass)
	if c.RequestMetrics != nil {
		if err := ValidateRequestMetricsOptions(*c.RequestMetrics); err != nil {
			return err
		}
		c.Conf.RequestMetricBuckets = RequestHistogramBuckets(*c.RequestMetrics)
	}
	return nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// syncKey is the one key of the work queue: every change asks for the same
// full sync, so changes made while a sync waits coalesce into it.
const syncKey = "sync"

// Controller keeps one nginx equal to what its Source holds.
type Controller struct {
	cfg      Config
	queue    workqueue.TypedRateLimitingInterface[string]
	backoff  *recordingLimiter
	limiter  *rate.Limiter
	metrics  *loopMetrics
	fatal    chan error
	stopping atomic.Bool
	ready    atomic.Bool
	// draining is set when the shutdown begins: /readyz fails from then on.
	draining atomic.Bool
	// syncing is set while the worker processes a sync (Stats.Busy).
	syncing atomic.Bool
	// memory returns the heap a large sync left free (memory.go); syncs
	// counts the syncs processed, for its quiet check.
	memory memoryReturner
	syncs  atomic.Uint64
	// buildGC lowers the GC target during whole builds (memory_gc.go).
	buildGC *buildGC
	// masterDown is set while a master the loop started has exited and
	// was not started again yet (/healthz fails meanwhile).
	masterDown atomic.Bool

	// The state below belongs to the worker goroutine.
	state loopState
}

// New checks cfg and returns a Controller; nothing runs until Run.
func New(cfg Config) (*Controller, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	metrics := newLoopMetrics(cfg.MetricsIdentity)
	statusAddress := cfg.Conf.StatusAddress
	if statusAddress == "" {
		statusAddress = nginxconf.DefaultConfOptions().StatusAddress
	}
	metrics.addNginxCollectors(cfg.MetricsIdentity, cfg.Nginx, statusAddress)
	if cfg.RequestMetrics != nil {
		metrics.addRequestCollector(cfg.MetricsIdentity, *cfg.RequestMetrics, statusAddress)
	}
	// The metrics see every sync first, and every POST to Lua is timed.
	cfg.Observers = append([]SyncObserver{metrics}, cfg.Observers...)
	cfg.Lua = newTimedPusher(cfg.Lua, metrics).withBodies()
	backoff := &recordingLimiter{TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.RetryBase, cfg.RetryMax)}
	return &Controller{
		cfg:     cfg,
		backoff: backoff,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig[string](backoff, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "kubectl-ingress-sync",
		}),
		limiter: rate.NewLimiter(rate.Limit(cfg.SyncRate), cfg.SyncBurst),
		metrics: metrics,
		fatal:   make(chan error, 1),
		buildGC: newBuildGC(cfg.WholeBuildGCPercent),
	}, nil
}

// Stats returns the loop's counters (the same numbers as the metrics).
func (c *Controller) Stats() Stats {
	s := c.metrics.stats()
	s.Busy = c.syncing.Load() || c.queue.Len() > 0
	return s
}

// Ready reports whether nginx serves a config of this controller and the
// controller is not shutting down (what /readyz answers).
func (c *Controller) Ready() bool { return c.ready.Load() && !c.draining.Load() }

// enqueue is the changed callback of the Source: it only adds the key.
func (c *Controller) enqueue() { c.queue.Add(syncKey) }

// Run waits for the Source's first complete view, then syncs after every
// change until ctx ends or a fatal error (the Source failed, nginx died too
// often). It then shuts down (shutdown.go: /readyz 503 first, nginx quits
// gracefully with SIGQUIT, bounded by StopTimeout) and returns the error,
// nil when ctx ended. Run may be called once.
func (c *Controller) Run(ctx context.Context) error {
	log := klog.FromContext(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	sourceErr := make(chan error, 1)
	// the first sync, with the source's first reading, is a whole build
	c.buildGC.lower()
	defer c.buildGC.restore() // when Run ends before a sync did
	wg.Go(func() { sourceErr <- c.cfg.Source.Run(ctx, c.enqueue) })

	var err error
	log.Info("Waiting for the source's first complete view")
	if c.cfg.Source.WaitForSync(ctx) {
		log.Info("Source synced; starting the sync loop")
		c.enqueue()
		wg.Go(func() { c.runWorker(ctx) })
		wg.Go(func() { c.returnMemoryWhenQuiet(ctx, returnCheck) })
		select {
		case <-ctx.Done():
		case err = <-sourceErr:
			if err == nil && ctx.Err() == nil {
				err = errors.New("controller: the source stopped")
			}
		case err = <-c.fatal:
		}
	} else {
		select {
		case err = <-sourceErr:
		default:
		}
		if err == nil && ctx.Err() == nil {
			err = errors.New("controller: the source did not sync")
		}
	}
	c.beginDrain(log)
	cancel()
	c.queue.ShutDown()
	wg.Wait()
	if stopErr := c.shutdown(klog.NewContext(context.Background(), log), err == nil); stopErr != nil {
		err = errors.Join(err, stopErr)
	}
	return err
}

// stopNginx quits nginx gracefully (Stop waits for the requests in flight)
// within StopTimeout.
func (c *Controller) stopNginx(ctx context.Context) error {
	c.stopping.Store(true)
	// A connection of ours that never sent a request would hold nginx's
	// graceful stop until its client_header_timeout (luaapi.Client's
	// CloseIdleConnections); no push comes after this point.
	if idle, ok := c.cfg.Lua.(interface{ CloseIdleConnections() }); ok {
		idle.CloseIdleConnections()
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StopTimeout)
	defer cancel()
	if err := c.cfg.Nginx.Stop(ctx); err != nil {
		return fmt.Errorf("controller: stopping nginx: %w", err)
	}
	klog.FromContext(ctx).Info("nginx stopped")
	return nil
}

// runWorker takes a token of the rate limiter, then the key, and syncs,
// until the queue shuts down. Taking the token first lets the events that
// come during the wait coalesce into the key before it is taken.
func (c *Controller) runWorker(ctx context.Context) {
	for {
		if err := c.limiter.Wait(ctx); err != nil {
			return
		}
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		c.processItem(ctx, key)
	}
}

// processItem syncs and settles the key: forgotten after a success,
// re-queued with backoff after a failure, left alone when the desired
// config is held (its retry is already scheduled).
func (c *Controller) processItem(ctx context.Context, key string) {
	c.syncing.Store(true)
	// Cleared after Done, which queues a change that came meanwhile: no
	// moment between looks idle (Stats.Busy).
	defer c.syncing.Store(false)
	defer c.queue.Done(key)
	err := c.syncOnce(ctx)
	c.buildGC.restore()
	c.syncs.Add(1)
	if c.memory.afterSync(c.state.builder.Last.Whole) {
		klog.FromContext(ctx).V(2).Info("Returning the free heap memory to the system", "after", "a whole build")
	}
	switch {
	case err == nil:
		c.queue.Forget(key)
	case errors.Is(err, errHeld):
	case ctx.Err() != nil:
	default:
		var fe *fatalError
		if errors.As(err, &fe) {
			select {
			case c.fatal <- fe.err:
			default:
			}
			return
		}
		c.queue.AddRateLimited(key)
		retry := c.backoff.lastDelay()
		c.state.failedUntil(time.Now().Add(retry))
		klog.FromContext(ctx).Error(err, "Sync failed; the running config keeps serving", "retryIn", retry)
	}
}

// recordingLimiter is the backoff of failed syncs; it remembers the last
// delay it gave so that the loop knows when the retry comes.
type recordingLimiter struct {
	workqueue.TypedRateLimiter[string]
	mu   sync.Mutex
	last time.Duration
}

func (r *recordingLimiter) When(item string) time.Duration {
	d := r.TypedRateLimiter.When(item)
	r.mu.Lock()
	r.last = d
	r.mu.Unlock()
	return d
}

func (r *recordingLimiter) lastDelay() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// fatalError ends Run.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }
