package controller

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// Endpoints of the Lua push histogram: the paths under /configuration/
// that sync.Apply posts to (the certificates go with the servers).
const (
	luaEndpointBackends = "backends"
	luaEndpointServers  = "servers"
)

func newLuaPushMetric() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: metricsNamespace,
		Name:      "lua_push_duration_seconds",
		Help: "Time of one POST of a Lua payload to nginx's status endpoint, each attempt of a retry counted alone. " +
			"endpoint is backends or servers (the host to certificate map and the certificates); result is success or error.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"endpoint", "result"})
}

// timedPusher is the Pusher the loop uses: the configured one, with each
// POST timed into lua_push_duration_seconds.
type timedPusher struct {
	next ksync.Pusher
	hist *prometheus.HistogramVec
}

var _ ksync.Pusher = timedPusher{}

func (p timedPusher) PostBackends(ctx context.Context, backends []luaapi.Backend) error {
	start := time.Now()
	err := p.next.PostBackends(ctx, backends)
	p.observe(luaEndpointBackends, start, err)
	return err
}

func (p timedPusher) PostServers(ctx context.Context, servers luaapi.Servers) error {
	start := time.Now()
	err := p.next.PostServers(ctx, servers)
	p.observe(luaEndpointServers, start, err)
	return err
}

func (p timedPusher) observe(endpoint string, start time.Time, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	p.hist.WithLabelValues(endpoint, result).Observe(time.Since(start).Seconds())
}
