package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// inCluster reports whether the process runs in a pod (the variables
// client-go's in-cluster configuration reads).
func inCluster() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != ""
}

// listenedPort is an address the controller or its nginx listens on, and
// the flag that sets it.
type listenedPort struct {
	addr, flag string
}

// listenedPorts are the addresses nginx and the controller listen on.
func (o *ControllerOptions) listenedPorts() []listenedPort {
	r := o.Render
	ports := []listenedPort{
		{net.JoinHostPort(r.ListenAddress, strconv.Itoa(r.HTTPPort)), "--http-port"},
		{net.JoinHostPort(r.ListenAddress, strconv.Itoa(r.HTTPSPort)), "--https-port"},
		{r.StatusAddress, "--status-address"},
	}
	if r.EnableSSLPassthrough {
		ports = append(ports,
			listenedPort{net.JoinHostPort("127.0.0.1", strconv.Itoa(r.SSLPassthroughProxyPort)), "--ssl-passthrough-proxy-port"},
			listenedPort{net.JoinHostPort("127.0.0.1", strconv.Itoa(r.SSLPassthroughHopPort)), "--ssl-passthrough-hop-port"})
	}
	if o.HealthAddr != "" {
		ports = append(ports, listenedPort{o.HealthAddr, "--health-addr"})
	}
	if o.MetricsAddr != "" && o.MetricsAddr != o.HealthAddr {
		ports = append(ports, listenedPort{o.MetricsAddr, "--metrics-addr"})
	}
	if o.Webhook.Address != "" {
		ports = append(ports, listenedPort{o.Webhook.Address, "--validating-webhook"})
	}
	return ports
}

// checkPorts fails on the first address that another process listens on,
// naming its port and flag, before nginx starts and reports only that it
// rejected the config. Other errors (no permission for a port below 1024)
// are left to nginx, which says them well.
func checkPorts(ports []listenedPort) error {
	for _, p := range ports {
		if addrInUse(p.addr) {
			_, port, _ := net.SplitHostPort(p.addr)
			return fmt.Errorf("port %s (%s) is in use by another process (another controller or simulator?): stop it or give another with %s", port, p.flag, p.flag)
		}
	}
	return nil
}

// addrInUse reports whether listening on addr fails because something
// listens there already.
func addrInUse(addr string) bool {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Is(err, syscall.EADDRINUSE)
	}
	_ = l.Close()
	return false
}

// freeLoopbackAddr gives 127.0.0.1 with a port nothing listens on now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// pickFreeSimulatorPorts moves the simulator's status and health servers
// to free ports when the defaults are taken (a second simulator) and the
// flags were not given; it says so on stderr.
func (o *ControllerOptions) pickFreeSimulatorPorts(changed func(string) bool) {
	move := func(addr *string, flag string) {
		if changed(flag) || !addrInUse(*addr) {
			return
		}
		free, err := freeLoopbackAddr()
		if err != nil {
			return
		}
		if o.ErrOut != nil {
			fmt.Fprintf(o.ErrOut, "note: %s (--%s) is in use, another simulator?: using %s\n", *addr, flag, free)
		}
		*addr = free
	}
	move(&o.Render.StatusAddress, "status-address")
	move(&o.HealthAddr, "health-addr")
}

// reachAPIServer asks the API server its version, so that a controller that
// cannot reach it says why (the dial error) at once, rather than waiting
// on informer caches that never sync.
func reachAPIServer(ctx context.Context, cfg *rest.Config) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = 15 * time.Second
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		return fmt.Errorf("cluster client: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cs.Discovery().ServerVersion()
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("cannot reach the API server at %s: %w", cfg.Host, err)
	}
	return nil
}
