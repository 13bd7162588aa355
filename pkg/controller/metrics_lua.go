package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// Endpoints of the Lua push histogram: the paths under /configuration/
// that sync.Apply posts to (the certificates go with the servers).
const (
	luaEndpointBackends = "backends"
	luaEndpointServers  = "servers"
	luaEndpointRoutes   = "routes"
)

// maxLoggedDrops bounds the entries one "dropped" log line names;
// maxDroppedSeries the series of lua_dropped_entries per endpoint (a
// payload whose every entry is dropped must not make thousands).
const (
	maxLoggedDrops   = 20
	maxDroppedSeries = 100
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

// reportingPusher is a Pusher that also says which entries nginx dropped
// from a payload it applied (*luaapi.Client).
type reportingPusher interface {
	PostBackendsReport(ctx context.Context, backends []luaapi.Backend) ([]luaapi.Dropped, error)
	PostServersReport(ctx context.Context, servers luaapi.Servers) ([]luaapi.Dropped, error)
}

// timedPusher is the Pusher the loop uses: the configured one, with each
// POST timed into lua_push_duration_seconds, and the entries nginx dropped
// from the last payload of each endpoint in lua_dropped_entries and the
// log.
type timedPusher struct {
	next    ksync.Pusher
	hist    *prometheus.HistogramVec
	dropped *prometheus.GaugeVec
	total   *prometheus.CounterVec

	mu   sync.Mutex
	last map[string][]luaapi.Dropped // endpoint -> what the last POST dropped
}

var (
	_ ksync.Pusher      = (*timedPusher)(nil)
	_ ksync.RoutePusher = (*timedPusher)(nil)
	_ ksync.BodyPusher  = timedBodyPusher{}
)

// newTimedPusher wraps next and registers its drop metrics on m.
func newTimedPusher(next ksync.Pusher, m *loopMetrics) *timedPusher {
	p := &timedPusher{
		next: next,
		hist: m.luaPush,
		dropped: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Name:      "lua_dropped_entries",
			Help: "Entries that nginx's Lua dropped from the last payload it applied (1 each, at most 100 per endpoint): endpoint is backends or servers, " +
				"kind backend, certificate or server (a host), name the entry; kept is true when nginx still serves the entry's last accepted version.",
		}, []string{"endpoint", "kind", "name", "kept"}),
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace,
			Name:      "lua_dropped_entries_total",
			Help:      "Entries that nginx's Lua dropped from the payloads it applied, by endpoint (backends or servers).",
		}, []string{"endpoint"}),
		last: map[string][]luaapi.Dropped{},
	}
	m.registry.MustRegister(p.dropped, p.total)
	return p
}

func (p *timedPusher) PostBackends(ctx context.Context, backends []luaapi.Backend) error {
	return p.post(ctx, luaEndpointBackends,
		func(r reportingPusher) ([]luaapi.Dropped, error) { return r.PostBackendsReport(ctx, backends) },
		func() error { return p.next.PostBackends(ctx, backends) })
}

func (p *timedPusher) PostServers(ctx context.Context, servers luaapi.Servers) error {
	return p.post(ctx, luaEndpointServers,
		func(r reportingPusher) ([]luaapi.Dropped, error) { return r.PostServersReport(ctx, servers) },
		func() error { return p.next.PostServers(ctx, servers) })
}

// PostRoutes posts the route payloads of --routing=lua (next must be a
// ksync.RoutePusher), timed as the other payloads; the host entries nginx
// dropped are in the drop metrics and returned.
func (p *timedPusher) PostRoutes(ctx context.Context, u luaapi.RoutesUpdate) ([]luaapi.Dropped, error) {
	rp, ok := p.next.(ksync.RoutePusher)
	if !ok {
		return nil, errors.New("the Lua pusher cannot post routes")
	}
	start := time.Now()
	dropped, err := rp.PostRoutes(ctx, u)
	p.observe(luaEndpointRoutes, start, err)
	if err == nil {
		p.report(ctx, luaEndpointRoutes, dropped)
	}
	return dropped, err
}

// timedBodyPusher is the timedPusher of a Pusher that posts encoded
// payloads (ksync.BodyPusher): withBodies wraps it so only then.
type timedBodyPusher struct {
	*timedPusher
	bodies ksync.BodyPusher
}

// withBodies returns p as a ksync.BodyPusher when its next one is one.
func (p *timedPusher) withBodies() ksync.Pusher {
	if bp, ok := p.next.(ksync.BodyPusher); ok {
		return timedBodyPusher{p, bp}
	}
	return p
}

// PostBody posts an encoded payload, timed and reported as the payload
// of its endpoint.
func (p timedBodyPusher) PostBody(ctx context.Context, path string, body []byte) ([]luaapi.Dropped, error) {
	return p.timed(ctx, strings.TrimPrefix(path, "/configuration/"), func() ([]luaapi.Dropped, error) {
		return p.bodies.PostBody(ctx, path, body)
	})
}

// EncodeBackends encodes backends through the next Pusher when it keeps
// what it encoded (the luaapi.Client), else as luaapi.EncodeBackends.
func (p timedBodyPusher) EncodeBackends(backends []luaapi.Backend) (*luaapi.EncodedBackends, error) {
	if be, ok := p.bodies.(ksync.BackendsEncoder); ok {
		return be.EncodeBackends(backends)
	}
	return luaapi.EncodeBackends(backends)
}

// PostBodyFrom posts a payload read from a file as it is sent, through
// the next Pusher when it can (the luaapi.Client), else read whole and
// posted as PostBody; timed and reported as PostBody.
func (p timedBodyPusher) PostBodyFrom(ctx context.Context, path string, open luaapi.OpenBody) ([]luaapi.Dropped, error) {
	sp, ok := p.bodies.(ksync.StreamPusher)
	if !ok {
		body, err := open.ReadAll()
		if err != nil {
			return nil, err
		}
		return p.PostBody(ctx, path, body)
	}
	return p.timed(ctx, strings.TrimPrefix(path, "/configuration/"), func() ([]luaapi.Dropped, error) {
		return sp.PostBodyFrom(ctx, path, open)
	})
}

// timed makes one post to endpoint, timed, and reports its drops when it
// succeeds.
func (p timedBodyPusher) timed(ctx context.Context, endpoint string, post func() ([]luaapi.Dropped, error)) ([]luaapi.Dropped, error) {
	start := time.Now()
	dropped, err := post()
	p.observe(endpoint, start, err)
	if err == nil {
		p.report(ctx, endpoint, dropped)
	}
	return dropped, err
}

// PostEncodedBackends posts encoded backends through the next Pusher when
// it takes them (the luaapi.Client: it then knows the array nginx holds,
// so that the next push of backends sends only what changed, where it
// sent the whole array again after every start), else their body; timed
// and reported as PostBody.
func (p timedBodyPusher) PostEncodedBackends(ctx context.Context, e *luaapi.EncodedBackends) ([]luaapi.Dropped, error) {
	ep, ok := p.bodies.(ksync.EncodedPusher)
	if !ok {
		body, err := e.Body()
		if err != nil {
			return nil, err
		}
		return p.PostBody(ctx, luaapi.PathBackends, body)
	}
	return p.timed(ctx, luaEndpointBackends, func() ([]luaapi.Dropped, error) { return ep.PostEncodedBackends(ctx, e) })
}

// post makes one POST to endpoint, through report when next says what
// nginx dropped, else through plain; times it, and reports the drops of a
// POST that succeeded.
func (p *timedPusher) post(ctx context.Context, endpoint string, report func(reportingPusher) ([]luaapi.Dropped, error), plain func() error) error {
	start := time.Now()
	var dropped []luaapi.Dropped
	var err error
	if r, ok := p.next.(reportingPusher); ok {
		dropped, err = report(r)
	} else {
		err = plain()
	}
	p.observe(endpoint, start, err)
	if err == nil {
		p.report(ctx, endpoint, dropped)
	}
	return err
}

func (p *timedPusher) observe(endpoint string, start time.Time, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	p.hist.WithLabelValues(endpoint, result).Observe(time.Since(start).Seconds())
}

// report sets the drop metrics of endpoint to what its last POST dropped,
// and logs the dropped entries when they differ from the last POST's.
func (p *timedPusher) report(ctx context.Context, endpoint string, dropped []luaapi.Dropped) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total.WithLabelValues(endpoint).Add(float64(len(dropped)))
	p.dropped.DeletePartialMatch(prometheus.Labels{"endpoint": endpoint})
	for _, d := range dropped[:min(len(dropped), maxDroppedSeries)] {
		p.dropped.WithLabelValues(endpoint, d.Kind, d.Name, fmt.Sprint(d.Kept)).Set(1)
	}
	if slices.Equal(p.last[endpoint], dropped) {
		return
	}
	log := klog.FromContext(ctx)
	if len(dropped) == 0 {
		log.Info("nginx applies every entry of the Lua payload again", "endpoint", endpoint)
	} else {
		shown := make([]string, 0, min(len(dropped), maxLoggedDrops)+1)
		for _, d := range dropped[:min(len(dropped), maxLoggedDrops)] {
			shown = append(shown, d.String())
		}
		if more := len(dropped) - maxLoggedDrops; more > 0 {
			shown = append(shown, fmt.Sprintf("… and %d more", more))
		}
		log.Error(nil, "nginx dropped entries of a Lua payload and applied the others", "endpoint", endpoint, "count", len(dropped), "dropped", shown)
	}
	p.last[endpoint] = slices.Clone(dropped)
}
