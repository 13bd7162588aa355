package controller

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// leaderMetrics are the metrics of one Elector; Collectors gives them to
// the Controller's registry (Controller.RegisterCollectors).
type leaderMetrics struct {
	leader      prometheus.Gauge
	transitions prometheus.Counter
}

func newLeaderMetrics() *leaderMetrics {
	return &leaderMetrics{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Name:      "leader",
			Help:      "1 while this replica holds the leader election Lease (and writes the Ingress status), else 0.",
		}),
		transitions: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace,
			Name:      "leader_transitions_total",
			Help:      "Times this replica became the leader or stopped leading.",
		}),
	}
}

func (m *leaderMetrics) set(leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.Set(v)
	m.transitions.Inc()
}

// Collectors are the Elector's metrics, for Controller.RegisterCollectors.
func (e *Elector) Collectors() []prometheus.Collector {
	return []prometheus.Collector{e.metrics.leader, e.metrics.transitions,
		newLeaderStatus(e.cfg.MetricsIdentity, e.cfg.Name, &e.leading)}
}

// RegisterCollectors adds metrics of the in-cluster duties (leader
// election, status) to the Controller's registry, served on /metrics.
func (c *Controller) RegisterCollectors(cs ...prometheus.Collector) error {
	for _, col := range cs {
		if err := c.metrics.registry.Register(col); err != nil {
			return fmt.Errorf("controller: register metrics: %w", err)
		}
	}
	return nil
}
