package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// DemoBackends is a Source that adds pretend Pods to another one, for the
// local simulator: whenever the loop takes a Snapshot, it makes sure that
// every loopback endpoint of the EndpointSlices (an address in 127.0.0.0/8
// or ::1, with its port) has something listening, by starting a small HTTP
// server there unless the port is already taken (then someone serves it:
// it is left alone). Servers of endpoints that left the snapshot are closed.
// Each answers 200 with the Service, the endpoint and the request line, and
// an X-Demo-Backend header, so that curl through nginx shows where a
// request went. Other addresses are never bound.
type DemoBackends struct {
	Source

	mu      sync.Mutex
	log     klog.Logger
	servers map[netip.AddrPort]*http.Server
	closed  bool
}

// WithDemoBackends wraps src.
func WithDemoBackends(src Source) *DemoBackends {
	return &DemoBackends{Source: src, log: klog.Background(), servers: map[netip.AddrPort]*http.Server{}}
}

// Run runs the wrapped Source and closes the demo servers when it returns.
func (d *DemoBackends) Run(ctx context.Context, changed func()) error {
	d.mu.Lock()
	d.log = klog.FromContext(ctx).WithName("demo-backends")
	d.mu.Unlock()
	defer d.closeAll()
	return d.Source.Run(ctx, changed)
}

// Snapshot returns the wrapped Source's snapshot after starting the demo
// servers it needs.
func (d *DemoBackends) Snapshot() (render.Snapshot, error) {
	snap, err := d.Source.Snapshot()
	if err == nil {
		d.reconcile(snap.EndpointSlices)
	}
	return snap, err
}

// Addresses returns the endpoints served by demo servers, sorted.
func (d *DemoBackends) Addresses() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.servers))
	for ap := range d.servers {
		out = append(out, ap.String())
	}
	sort.Strings(out)
	return out
}

func (d *DemoBackends) reconcile(slices []*discoveryv1.EndpointSlice) {
	want := map[netip.AddrPort]string{} // endpoint -> "namespace/service"
	for _, es := range slices {
		service := es.Namespace + "/" + es.Labels[discoveryv1.LabelServiceName]
		for _, p := range es.Ports {
			if p.Port == nil || *p.Port < 1 || *p.Port > 65535 {
				continue
			}
			for _, ep := range es.Endpoints {
				for _, a := range ep.Addresses {
					addr, err := netip.ParseAddr(a)
					if err != nil || !addr.IsLoopback() {
						continue
					}
					want[netip.AddrPortFrom(addr, uint16(*p.Port))] = service
				}
			}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for ap, srv := range d.servers {
		if _, ok := want[ap]; !ok {
			_ = srv.Close()
			delete(d.servers, ap)
			d.log.Info("Stopped a demo backend", "endpoint", ap.String())
		}
	}
	for ap, service := range want {
		if _, ok := d.servers[ap]; ok {
			continue
		}
		l, err := net.Listen("tcp", ap.String())
		if err != nil {
			if !errors.Is(err, syscall.EADDRINUSE) {
				d.log.Error(err, "Cannot start a demo backend", "endpoint", ap.String())
			}
			continue
		}
		srv := &http.Server{Handler: demoHandler(service, ap.String()), ReadHeaderTimeout: 10 * time.Second}
		d.servers[ap] = srv
		go func() { _ = srv.Serve(l) }()
		d.log.Info("Started a demo backend", "service", service, "endpoint", ap.String())
	}
}

func (d *DemoBackends) closeAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for ap, srv := range d.servers {
		_ = srv.Close()
		delete(d.servers, ap)
	}
}

func demoHandler(service, endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Demo-Backend", endpoint)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "demo backend of service %s at %s: %s %s (Host %s)\n", service, endpoint, r.Method, r.URL.RequestURI(), strconv.Quote(r.Host))
	})
}
