package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// errHeld ends a sync whose desired nginx.conf nginx -t already rejected
// and whose retry is not due: only the Lua payloads were posted.
var errHeld = errors.New("desired config held: nginx -t rejected these bytes; waiting for a change or the retry")

// maxLoggedReasons bounds the reasons one plan log line lists.
const maxLoggedReasons = 20

// loopState is what the worker knows of nginx. Only the worker goroutine
// touches it.
type loopState struct {
	// builder builds the desired config again after each change, only
	// the Ingresses the change touches (render.Incremental).
	builder render.Incremental
	// desired keeps what the desired state took of the servers that did
	// not change: their Lua router payloads and classic reasons
	// (ksync.StateCache).
	desired ksync.StateCache
	// dicts keeps the encoded lengths of the backends that did not
	// change, which size the Lua dicts (luaapi.DictsCache).
	dicts luaapi.DictsCache
	// started is true while a master the loop started is believed to run.
	started bool
	// running is what nginx serves: the config of the last successful
	// apply; zero before the first one and after the master died.
	running ksync.State
	// luaDirty is true when Lua may hold other payloads than running's
	// (an apply failed part way, or bridge payloads were posted): the next
	// sync posts them again.
	luaDirty bool
	// routedHosts are the hosts the Lua router may hold (--routing=lua):
	// running's, plus every host an apply since posted. A dirty plan
	// deletes those desired does not have.
	routedHosts map[string]bool
	// rejected is the checksum of the last nginx.conf that nginx -t
	// rejected; retryAt is when the backoff retry of the last failure
	// comes. Until then the same bytes are not tested again.
	rejected string
	retryAt  time.Time
	// failures are the times nginx exited on its own or failed to start,
	// within the restart window.
	failures []time.Time
	// quarantine holds the Ingresses left out because nginx -t refused
	// them (quarantine.go), until they change.
	quarantine map[model.ObjectRef]quarantineEntry
	// served is set when this sync found nginx serving the desired
	// config; the sync reports ready only at its very end, once its
	// Problems, metrics and observers tell the same state (markSuccess).
	served bool
}

func (s *loopState) failedUntil(t time.Time) { s.retryAt = t }

// held tells whether a desired nginx.conf with this checksum was rejected
// by nginx -t and its retry is not due yet.
func (s *loopState) held(checksum string, now time.Time) bool {
	return s.rejected != "" && s.rejected == checksum && now.Before(s.retryAt)
}

// syncOnce is one pass of the loop: snapshot → render.Incremental → NGINXConf →
// sync.NewPlan(running, desired) → sync.Apply.
func (c *Controller) syncOnce(ctx context.Context) (err error) {
	log := klog.FromContext(ctx)
	workerCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, c.cfg.SyncTimeout)
	defer cancel()
	start := time.Now()
	verdict := "none"
	var observed SyncResult
	defer func() {
		result := "success"
		if err != nil && !errors.Is(err, errHeld) {
			result = "error"
		}
		c.metrics.syncDuration.WithLabelValues(verdict, result).Observe(time.Since(start).Seconds())
		if observed.Desired != nil {
			observed.Serving = c.state.running.Config
			observed.Err = err
			c.notify(workerCtx, observed)
		}
		// Last: whoever waits for ready reads this sync's Problems,
		// metrics and observers' view, never the previous sync's.
		if c.state.served {
			c.state.served = false
			if !c.masterDown.Load() {
				c.ready.Store(true)
			}
		}
	}()

	if err := c.checkMaster(ctx, start); err != nil {
		return err
	}
	snap, err := c.cfg.Source.Snapshot()
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	build := c.cfg.Build
	build.Quarantined = c.quarantined(ctx, snap)
	if c.state.builder.WholeAhead(snap, build) != "" || !c.state.started {
		// a whole build, or the first apply (also when the first sync
		// failed: its retry builds what changed, but preloads and starts
		// nginx with every payload): until the sync ends (memory_gc.go)
		c.buildGC.lower()
	}
	cfg, problems := c.state.builder.Build(snap, build)
	if b := c.state.builder.Last; b.Whole {
		c.buildGC.lower() // until the sync ends (memory_gc.go)
		log.V(1).Info("Built the whole config", "why", b.Why, "ingresses", b.Rebuilt, "duration", time.Since(start).Round(time.Microsecond))
	} else {
		log.V(1).Info("Built the changed Ingresses again", "ingresses", b.Rebuilt, "duration", time.Since(start).Round(time.Microsecond))
	}
	// The Problems are reported once a sync, whichever way it ends, and
	// the final list: a quarantine below replaces problems with a list
	// that has its own Problem.
	defer func() { c.reportProblems(ctx, problems) }()
	desired, err := ksync.DesiredStateWith(cfg, c.confOptions(cfg), &c.state.desired)
	if err != nil {
		return err
	}
	checksum := nginx.Checksum(desired.NGINXConf)

	s := &c.state
	plan := c.newPlan(desired)
	observed = SyncResult{Snapshot: snap, Desired: cfg, Verdict: plan.Verdict}
	verdict = verdictLabel(plan.Verdict)

	if plan.Verdict == ksync.ReloadRequired && s.held(checksum, start) {
		verdict = "held"
		log.V(1).Info("Desired nginx.conf was rejected by nginx -t; posting the Lua payloads only", "checksum", checksum, "retryAt", s.retryAt)
		if !s.started {
			return errHeld
		}
		s.luaDirty = true
		if err := ksync.PushBridge(ctx, s.running.Config, desired.Config, c.cfg.Lua); err != nil {
			c.metrics.dynamicErrors.Inc()
			return err
		}
		if err := ksync.WriteStreamBridge(ctx, s.running.Config, desired.Config, c.cfg.Stream); err != nil {
			c.metrics.dynamicErrors.Inc()
			return err
		}
		return errHeld
	}
	logPlan(log, plan, len(problems))
	if plan.Verdict == ksync.NoChange {
		c.markSuccess(checksum)
		return nil
	}

	var reloader ksync.Reloader = c.cfg.Nginx
	if !s.started {
		reloader = &starter{c: c, watchCtx: workerCtx}
	}
	// The files nginx.conf names exist before nginx -t reads them.
	if err := ksync.WriteFiles(ctx, c.cfg.Files, desired.Config); err != nil {
		return err
	}
	err = c.apply(ctx, plan, desired, reloader)
	if res, ok := c.quarantine(ctx, snap, build, c.confOptions, cfg, err); ok {
		// nginx -t refused desired; res leaves out the Ingresses that
		// made it (quarantine.go) and passes. Lua may hold the bridge
		// payloads of the failed attempt.
		s.luaDirty = s.luaDirty || s.running.Config != nil
		problems = res.problems
		cfg, checksum = res.cfg, nginx.Checksum(res.conf)
		if desired, err = ksync.DesiredStateWith(cfg, c.confOptions(cfg), &c.state.desired); err != nil {
			return err
		}
		plan = c.newPlan(desired)
		observed.Desired, observed.Verdict = cfg, plan.Verdict
		verdict = verdictLabel(plan.Verdict)
		logPlan(log, plan, len(problems))
		if werr := ksync.WriteFiles(ctx, c.cfg.Files, desired.Config); werr != nil {
			return werr
		}
		err = c.apply(ctx, plan, desired, reloader)
	}
	err = c.settle(plan, desired, checksum, err)
	if s.running.Config == cfg {
		// nginx serves cfg's nginx.conf: the files only an older config
		// named can go.
		if perr := ksync.PruneFiles(ctx, c.cfg.Files, cfg); perr != nil && err == nil {
			err = perr
		}
	}
	// settle makes desired the running state when nginx serves its
	// nginx.conf (the reload worked, even if a push after it failed).
	observed.Reloaded = plan.Verdict == ksync.ReloadRequired && s.running.Config == cfg
	if err == nil {
		log.Info("Applied", "verdict", plan.Verdict.String(), "checksum", checksum, "duration", time.Since(start).Round(time.Microsecond))
	}
	return err
}

// reportProblems gives the Problems of a sync to the problems gauge and
// the reporter (Events, log), in that order: whoever the reporter shows
// them to can read the same list on /metrics.
func (c *Controller) reportProblems(ctx context.Context, problems []model.Problem) {
	c.metrics.setProblems(problems)
	c.cfg.Problems.ReportProblems(ctx, problems)
}

// newPlan is sync.NewPlan(running, desired), with every payload posted
// again when Lua may hold others than running's (luaDirty).
func (c *Controller) newPlan(desired ksync.State) ksync.Plan {
	s := &c.state
	plan := ksync.NewPlan(s.running, desired)
	if !s.luaDirty {
		return plan
	}
	if plan.Verdict == ksync.NoChange {
		plan.Verdict = ksync.DynamicOnly
		plan.Reasons = append(plan.Reasons, ksync.Reason{Message: "Lua payloads posted again: the last apply did not finish"})
	}
	plan.PushBackends, plan.PushServers = true, true
	plan.PushStream = !desired.Config.Stream.Empty()
	if desired.Routes != nil {
		// Every host again, and every host Lua may hold that desired
		// does not have is deleted (a failed attempt may have posted it).
		plan.Routes.Hosts = desired.Routes
		want := make(map[string]bool, len(desired.Routes))
		for _, h := range desired.Routes {
			want[h.Host] = true
		}
		plan.Routes.Delete = nil
		for _, host := range slices.Sorted(maps.Keys(s.routedHosts)) {
			if !want[host] {
				plan.Routes.Delete = append(plan.Routes.Delete, host)
			}
		}
		plan.PushRoutes = len(plan.Routes.Hosts)+len(plan.Routes.Delete) > 0
	}
	return plan
}

// apply is ksync.Apply, with the hosts it may post to the Lua router
// remembered first (routedHosts), and running's hosts only once it
// succeeded.
func (c *Controller) apply(ctx context.Context, plan ksync.Plan, desired ksync.State, r ksync.Reloader) error {
	s := &c.state
	if s.routedHosts == nil {
		s.routedHosts = map[string]bool{}
	}
	for _, h := range plan.Routes.Hosts {
		s.routedHosts[h.Host] = true
	}
	err := ksync.Apply(ctx, plan, s.running, desired, r, c.cfg.Lua, c.cfg.Stream)
	if err == nil {
		s.routedApplied(plan, desired)
	}
	return err
}

// routedApplied makes routedHosts desired's hosts, which Lua holds once
// plan applied. routedHosts holds them all already (those of running,
// which the last success left, and those apply added) and those the plan
// deleted; it is built again only when it holds others too (posted by an
// attempt that failed and not deleted since): at 100,000 hosts a map
// built every sync was 8 ms of a new Ingress's sync, and its garbage.
func (s *loopState) routedApplied(plan ksync.Plan, desired ksync.State) {
	for _, h := range plan.Routes.Delete {
		delete(s.routedHosts, h)
	}
	if len(s.routedHosts) != len(desired.Routes) {
		s.routedHosts = make(map[string]bool, len(desired.Routes))
		for _, h := range desired.Routes {
			s.routedHosts[h.Host] = true
		}
	}
}

// settle updates the state and the metrics after Apply.
func (c *Controller) settle(plan ksync.Plan, desired ksync.State, checksum string, err error) error {
	s := &c.state
	var ae *ksync.ApplyError
	if err != nil && !errors.As(err, &ae) {
		return err
	}
	stage := ksync.Stage("")
	if ae != nil {
		stage = ae.Stage
	}
	pushFailed := stage == ksync.StageBackends || stage == ksync.StageServers || stage == ksync.StageStream || stage == ksync.StageRoutes
	if plan.Verdict == ksync.ReloadRequired && (err == nil || pushFailed) {
		// nginx serves desired's nginx.conf.
		c.metrics.reloads.Inc()
		c.metrics.setConfig(checksum)
	}
	switch {
	case err == nil:
		s.running = desired
		s.luaDirty = false
		s.rejected = ""
		if plan.Verdict == ksync.DynamicOnly {
			c.metrics.dynamicUpdates.Inc()
		}
		c.markSuccess(checksum)
		return nil
	case pushFailed:
		s.running = desired
		s.luaDirty = true
		c.metrics.dynamicErrors.Inc()
	case stage == ksync.StageBridge:
		s.luaDirty = true
		c.metrics.dynamicErrors.Inc()
	case stage == ksync.StageReload:
		c.metrics.reloadErrors.Inc()
		s.luaDirty = s.running.Config != nil
		var te *nginx.TestError
		switch {
		case errors.As(err, &te):
			s.rejected = checksum
		case !errors.Is(err, nginx.ErrRejected) && s.started:
			// The reload may still be under way: which nginx.conf
			// serves is unknown, so the next sync reloads whatever.
			s.running.NGINXConf = nil
		}
	}
	return err
}

// markSuccess records that nginx serves the desired config; the sync
// reports ready when it ends (syncOnce).
func (c *Controller) markSuccess(checksum string) {
	c.metrics.lastSuccess.SetToCurrentTime()
	c.metrics.setConfig(checksum)
	c.state.served = true
}

// checkMaster notices a master that exited on its own: the next apply
// starts a new one with the desired config. Too many exits (or failed
// starts) within the restart window are fatal.
func (c *Controller) checkMaster(ctx context.Context, now time.Time) error {
	s := &c.state
	if !s.started || !isClosed(c.cfg.Nginx.Done()) {
		return nil
	}
	s.started = false
	s.running = ksync.State{}
	s.luaDirty = false
	s.rejected = ""
	c.ready.Store(false)
	c.masterDown.Store(true)
	c.metrics.restarts.Inc()
	klog.FromContext(ctx).Error(nil, "The nginx master exited; starting it again")
	return c.countFailure(now, errors.New("the nginx master exited"))
}

// countFailure records an exit or failed start of nginx and returns a
// *fatalError when there were more than MaxRestarts within RestartWindow.
func (c *Controller) countFailure(now time.Time, why error) error {
	s := &c.state
	kept := s.failures[:0]
	for _, t := range s.failures {
		if now.Sub(t) < c.cfg.RestartWindow {
			kept = append(kept, t)
		}
	}
	s.failures = append(kept, now)
	if len(s.failures) > c.cfg.MaxRestarts {
		return &fatalError{err: fmt.Errorf("controller: nginx failed %d times within %v, giving up: %w", len(s.failures), c.cfg.RestartWindow, why)}
	}
	return nil
}

// starter is the Reloader of the first apply: it starts nginx with the
// config, and watches the master until watchCtx ends. It hands the Lua
// payloads to nginx before the start (sync.Preloader), so that the first
// request after a start (the first, or after the master died) finds the
// backends and certificates.
type starter struct {
	c        *Controller
	watchCtx context.Context
}

var (
	_ ksync.Preloader       = (*starter)(nil)
	_ ksync.RoutesPreloader = (*starter)(nil)
)

// PreloadRoutes hands the route payload to nginx when it takes it (nil,
// nil when it does not).
func (st *starter) PreloadRoutes(ctx context.Context, write func(io.Writer) error) (func() (io.ReadCloser, int64, error), error) {
	if pl, ok := st.c.cfg.Nginx.(ksync.RoutesPreloader); ok {
		return pl.PreloadRoutes(ctx, write)
	}
	return nil, nil
}

// Preload hands the payloads to nginx when it takes them.
func (st *starter) Preload(ctx context.Context, backends, servers []byte) error {
	if pl, ok := st.c.cfg.Nginx.(ksync.Preloader); ok {
		return pl.Preload(ctx, backends, servers)
	}
	return nil
}

func (st *starter) Reload(ctx context.Context, conf []byte) error {
	c := st.c
	if err := c.cfg.Nginx.Start(ctx, conf); err != nil {
		var te *nginx.TestError
		if errors.As(err, &te) || ctx.Err() != nil {
			return err
		}
		if fatal := c.countFailure(time.Now(), err); fatal != nil {
			return fatal
		}
		return err
	}
	c.state.started = true
	c.masterDown.Store(false)
	done := c.cfg.Nginx.Done()
	go func() {
		select {
		case <-done:
			if !c.stopping.Load() {
				c.masterDown.Store(true)
				c.ready.Store(false)
				c.enqueue()
			}
		case <-st.watchCtx.Done():
		}
	}()
	return nil
}

func isClosed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func verdictLabel(v ksync.Verdict) string {
	switch v {
	case ksync.NoChange:
		return "none"
	case ksync.DynamicOnly:
		return "dynamic"
	}
	return "reload"
}

// logPlan logs the verdict and the reasons (at most maxLoggedReasons);
// a plan without change only at verbosity 2.
func logPlan(log klog.Logger, plan ksync.Plan, problems int) {
	if plan.Verdict == ksync.NoChange {
		log.V(2).Info("Plan", "verdict", plan.Verdict.String(), "problems", problems)
		return
	}
	n := min(len(plan.Reasons), maxLoggedReasons)
	reasons := make([]string, 0, n+1)
	for _, r := range plan.Reasons[:n] {
		reasons = append(reasons, r.String())
	}
	if more := len(plan.Reasons) - n; more > 0 {
		reasons = append(reasons, fmt.Sprintf("… and %d more", more))
	}
	log.Info("Plan", "verdict", plan.Verdict.String(), "reasons", reasons, "problems", problems)
}
