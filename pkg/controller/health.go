package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// Paths of the health and metrics server, as ingress-nginx has them.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
	MetricsPath = "/metrics"
	// PprofPath is where net/http/pprof answers on the metrics server
	// with --profiling.
	PprofPath = "/debug/pprof/"
)

// HealthHandler serves /healthz and /readyz:
//
//   - /healthz answers 200 while the process runs and the nginx master it
//     started has not exited (before the first start too); 500 between an
//     exit of the master and its restart.
//   - /readyz answers 200 once nginx serves a config of this controller
//     with its Lua payloads, 503 before, while nginx is down, and from the
//     first moment of a shutdown on (nginx still serves then).
func (c *Controller) HealthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(HealthzPath, func(w http.ResponseWriter, _ *http.Request) {
		if c.masterDown.Load() {
			http.Error(w, "nginx master exited", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc(ReadyzPath, func(w http.ResponseWriter, _ *http.Request) {
		switch {
		case c.draining.Load():
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		case !c.ready.Load():
			http.Error(w, "nginx does not serve a config yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// MetricsHandler serves the controller's registry in the Prometheus text
// format.
func (c *Controller) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(c.metrics.registry, promhttp.HandlerOpts{Registry: c.metrics.registry})
}

// Handler serves /healthz, /readyz and /metrics on one mux (and
// /debug/pprof/ with Config.Profiling).
func (c *Controller) Handler() http.Handler {
	mux := c.metricsMux()
	health := c.HealthHandler()
	mux.Handle(HealthzPath, health)
	mux.Handle(ReadyzPath, health)
	return mux
}

// metricsMux serves /metrics, and net/http/pprof's handlers under
// /debug/pprof/ when Config.Profiling is set (never otherwise).
func (c *Controller) metricsMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, c.MetricsHandler())
	if c.cfg.Profiling {
		mux.HandleFunc(PprofPath, pprof.Index)
		mux.HandleFunc(PprofPath+"cmdline", pprof.Cmdline)
		mux.HandleFunc(PprofPath+"profile", pprof.Profile)
		mux.HandleFunc(PprofPath+"symbol", pprof.Symbol)
		mux.HandleFunc(PprofPath+"trace", pprof.Trace)
	}
	return mux
}

// Listen binds the health address and the metrics address ("" for none;
// the same address gives one server with both) and returns a function that
// serves them until ctx ends. Binding first lets a caller fail at once on
// an address in use.
func (c *Controller) Listen(healthAddr, metricsAddr string) (serve func(ctx context.Context) error, err error) {
	type server struct {
		l net.Listener
		h http.Handler
	}
	var servers []server
	closeAll := func() {
		for _, s := range servers {
			_ = s.l.Close()
		}
	}
	add := func(addr string, h http.Handler) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("controller: listen %s: %w", addr, err)
		}
		servers = append(servers, server{l: l, h: h})
		return nil
	}
	switch {
	case healthAddr != "" && healthAddr == metricsAddr:
		err = add(healthAddr, c.Handler())
	default:
		if healthAddr != "" {
			err = add(healthAddr, c.HealthHandler())
		}
		if err == nil && metricsAddr != "" {
			err = add(metricsAddr, c.metricsMux())
		}
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	return func(ctx context.Context) error {
		errs := make(chan error, len(servers))
		for _, s := range servers {
			srv := &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second}
			klog.FromContext(ctx).Info("Serving health and metrics", "address", s.l.Addr().String())
			go func() {
				if err := srv.Serve(s.l); !errors.Is(err, http.ErrServerClosed) {
					errs <- err
				}
			}()
			go func() {
				<-ctx.Done()
				shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(shutdownCtx)
			}()
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			return fmt.Errorf("controller: health server: %w", err)
		}
	}, nil
}
