package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// ShutdownFlags are the flags of the graceful shutdown, named and typed as
// ingress-nginx has them (whole seconds), so that its manifests work as
// they are, plus the bound of nginx's own graceful quit.
type ShutdownFlags struct {
	// GracePeriod is --shutdown-grace-period: seconds between the signal
	// (when /readyz starts answering 503) and nginx's quit, nginx serving
	// meanwhile, so that the pod leaves its Services' endpoints first.
	GracePeriod int
	// PostGracePeriod is --post-shutdown-grace-period: seconds to wait
	// after nginx stopped before exiting.
	PostGracePeriod int
	// QuitTimeout bounds nginx's graceful quit (the requests in flight);
	// after it nginx is terminated.
	QuitTimeout time.Duration
	// Profiling serves net/http/pprof on the metrics server.
	Profiling bool
}

// NewShutdownFlags returns the defaults: no waits (ingress-nginx waits 10 s
// after nginx stopped; we exit as soon as it stopped), 30 s for the quit,
// profiling off.
func NewShutdownFlags() ShutdownFlags {
	return ShutdownFlags{QuitTimeout: controller.DefaultStopTimeout}
}

// AddFlags registers the flags.
func (f *ShutdownFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.GracePeriod, "shutdown-grace-period", f.GracePeriod, "Seconds to wait after SIGTERM, with /readyz answering 503 and nginx still serving, before nginx quits (lets the pod leave its Services' endpoints first)")
	fs.IntVar(&f.PostGracePeriod, "post-shutdown-grace-period", f.PostGracePeriod, "Seconds to wait after nginx has stopped before the controller exits (ingress-nginx's default is 10)")
	fs.DurationVar(&f.QuitTimeout, "nginx-quit-timeout", f.QuitTimeout, "How long nginx's graceful quit (SIGQUIT: requests in flight complete) may take before nginx is terminated")
	fs.BoolVar(&f.Profiling, "profiling", f.Profiling, "Serve Go profiling (net/http/pprof) under /debug/pprof/ on the --metrics-addr server")
}

// Validate checks the flags.
func (f *ShutdownFlags) Validate() error {
	switch {
	case f.GracePeriod < 0:
		return fmt.Errorf("--shutdown-grace-period must not be negative, got %d", f.GracePeriod)
	case f.PostGracePeriod < 0:
		return fmt.Errorf("--post-shutdown-grace-period must not be negative, got %d", f.PostGracePeriod)
	case f.QuitTimeout <= 0:
		return fmt.Errorf("--nginx-quit-timeout must be positive, got %v", f.QuitTimeout)
	}
	return nil
}

// apply sets the shutdown fields of cfg.
func (f *ShutdownFlags) apply(cfg *controller.Config) {
	cfg.ShutdownGracePeriod = time.Duration(f.GracePeriod) * time.Second
	cfg.PostShutdownGracePeriod = time.Duration(f.PostGracePeriod) * time.Second
	cfg.StopTimeout = f.QuitTimeout
	cfg.Profiling = f.Profiling
}

// runAndServe runs the controller until ctx ends (the signal) and serves
// health and metrics until Run has returned: /readyz answers 503 during
// the whole shutdown instead of refusing connections. A health server that
// fails ends the controller.
func runAndServe(ctx context.Context, c *controller.Controller, serve func(context.Context) error) error {
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	serveCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- serve(serveCtx)
		cancelRun()
	}()
	runErr := c.Run(runCtx)
	stopServing()
	if err := <-serveErr; err != nil {
		runErr = errors.Join(runErr, err)
	}
	return runErr
}
