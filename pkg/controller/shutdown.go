package controller

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// ShutdownHook runs during a graceful shutdown, after readiness turned
// false and ShutdownGracePeriod passed, before nginx quits: the place to
// stop leading and clear the Ingress status (--update-status-on-shutdown).
// ctx is bounded by StopTimeout.
type ShutdownHook func(ctx context.Context)

// beginDrain makes /readyz answer 503 from now on, whatever the loop does
// after: the first step of a shutdown, so that the pod leaves its
// Services' endpoints while nginx still serves.
func (c *Controller) beginDrain(log klog.Logger) {
	if c.draining.Swap(true) {
		return
	}
	log.Info("Shutting down: /readyz answers 503 from now on", "gracePeriod", c.cfg.ShutdownGracePeriod)
}

// Draining reports whether the controller is shutting down.
func (c *Controller) Draining() bool { return c.draining.Load() }

// shutdown ends Run once the worker stopped: after a graceful end (ctx
// ended, graceful true) it waits ShutdownGracePeriod with nginx still
// serving, runs the ShutdownHooks; in every case it then quits nginx
// gracefully (SIGQUIT, as nginx -s quit: requests in flight finish) within
// StopTimeout, and after a graceful end waits PostShutdownGracePeriod.
func (c *Controller) shutdown(ctx context.Context, graceful bool) error {
	log := klog.FromContext(ctx)
	if graceful {
		if d := c.cfg.ShutdownGracePeriod; d > 0 {
			log.Info("Waiting before nginx quits, nginx serving meanwhile", "shutdownGracePeriod", d)
			time.Sleep(d)
		}
		for _, hook := range c.cfg.ShutdownHooks {
			hookCtx, cancel := context.WithTimeout(ctx, c.cfg.StopTimeout)
			hook(hookCtx)
			cancel()
		}
	}
	err := c.stopNginx(ctx)
	c.ready.Store(false)
	if graceful {
		if d := c.cfg.PostShutdownGracePeriod; d > 0 {
			log.Info("nginx stopped; waiting before exiting", "postShutdownGracePeriod", d)
			time.Sleep(d)
		}
	}
	return err
}
