package controller

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

const metricsNamespace = "kubectl_ingress"

// problemFamilies are the values of the family label of the problems
// gauge: a bounded set, never free text.
func problemFamilies() []string {
	return []string{"annotation", "backend", "configmap", "rule", "tls", "quarantined", "other"}
}

// loopMetrics are the Prometheus metrics of one Controller, registered on
// its own registry (nothing is registered globally).
type loopMetrics struct {
	registry *prometheus.Registry

	reloads        prometheus.Counter
	reloadErrors   prometheus.Counter
	dynamicUpdates prometheus.Counter
	dynamicErrors  prometheus.Counter
	restarts       prometheus.Counter
	syncDuration   *prometheus.HistogramVec
	lastSuccess    prometheus.Gauge
	configInfo     *prometheus.GaugeVec
	problems       *prometheus.GaugeVec
	quarantined    prometheus.Gauge

	// The serving config's hosts and certificates (metrics_serving.go)
	// and the Lua pushes (metrics_lua.go).
	sslExpire    *expiryCollector
	hosts        prometheus.Gauge
	luaPush      *prometheus.HistogramVec
	servingShown *model.Config

	// The same under ingress-nginx's names (metrics_ingressnginx.go) and
	// nginx's own gauges (metrics_nginx.go).
	compat *ingressNginxMetrics
}

func newLoopMetrics(id MetricsIdentity) *loopMetrics {
	compat := newIngressNginxMetrics(id)
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: metricsNamespace, Name: name, Help: help})
	}
	m := &loopMetrics{
		registry:       prometheus.NewRegistry(),
		reloads:        hookedCounter{counter("reloads_total", "nginx reloads (and starts) that serve the new nginx.conf."), compat.reloaded},
		reloadErrors:   hookedCounter{counter("reload_errors_total", "nginx reloads (and starts) that failed: nginx -t rejected the config, the master refused it or it did not serve in time. The previous config keeps serving."), compat.reloadFailed},
		compat:         compat,
		dynamicUpdates: counter("dynamic_updates_total", "Syncs applied without a reload, by posting the Lua payloads only."),
		dynamicErrors:  counter("dynamic_update_errors_total", "Syncs whose Lua payloads could not be posted after retries."),
		restarts:       counter("nginx_restarts_total", "Times the nginx master exited on its own and was started again."),
		syncDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace,
			Name:      "sync_duration_seconds",
			Help:      "Time of one sync: snapshot, build, plan and apply. verdict is none, dynamic, reload or held (nginx -t rejected these bytes already); result is success or error.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"verdict", "result"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Name:      "config_last_success_timestamp_seconds",
			Help:      "When a sync last made nginx serve the desired config (Unix time).",
		}),
		configInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Name:      "config_info",
			Help:      "1 for the nginx.conf that serves: checksum is its md5, as GET /configuration/checksum answers.",
		}, []string{"checksum"}),
		problems: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Name:      "problems",
			Help:      "Problems in the input at the last sync, by family: annotation, backend, configmap, rule, tls, quarantined (an Ingress nginx -t refused, see kubectl_ingress_quarantined), other.",
		}, []string{"family"}),
	}
	m.sslExpire, m.hosts = newServingMetrics()
	m.luaPush = newLuaPushMetric()
	m.quarantined = newQuarantineMetric()
	m.registry.MustRegister(m.reloads, m.reloadErrors, m.dynamicUpdates, m.dynamicErrors, m.restarts,
		m.syncDuration, m.lastSuccess, m.configInfo, m.problems, m.sslExpire, m.hosts, m.luaPush, m.quarantined,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registry.MustRegister(compat.collectors()...)
	m.setProblems(nil)
	return m
}

// setProblems replaces the problems gauge with the counts of ps.
func (m *loopMetrics) setProblems(ps []model.Problem) {
	counts := map[string]int{}
	for _, p := range ps {
		counts[problemFamily(p)]++
	}
	for _, f := range problemFamilies() {
		m.problems.WithLabelValues(f).Set(float64(counts[f]))
	}
}

// setConfig records the checksum of the nginx.conf that serves.
func (m *loopMetrics) setConfig(checksum string) {
	m.configInfo.Reset()
	m.configInfo.WithLabelValues(checksum).Set(1)
	m.compat.setConfig(checksum)
}

// problemFamily sorts a Problem into one of problemFamilies by the field
// it names.
func problemFamily(p model.Problem) string {
	f := p.Field
	switch {
	case isQuarantineProblem(p):
		return "quarantined"
	case strings.HasPrefix(f, "metadata.annotations"):
		return "annotation"
	case p.Object.Kind == "ConfigMap":
		return "configmap"
	case strings.Contains(f, "tls") || strings.Contains(f, "secretName") || strings.Contains(f, "ssl-certificate"):
		return "tls"
	case strings.Contains(f, "backend") || strings.Contains(f, "Backend"):
		return "backend"
	case strings.HasPrefix(f, "spec.rules"):
		return "rule"
	}
	return "other"
}

// Stats are the loop's counters, read from its metrics.
type Stats struct {
	Reloads        int
	ReloadErrors   int
	DynamicUpdates int
	DynamicErrors  int
	Restarts       int
	// Syncs counts every sync, whatever its verdict and result.
	Syncs int
	// Quarantined is how many Ingresses nginx -t refused are left out.
	Quarantined int
	// Busy is true while a sync runs or waits in the queue (not while a
	// failed sync waits out its backoff).
	Busy bool
}

func (m *loopMetrics) stats() Stats {
	return Stats{
		Reloads:        counterValue(m.reloads),
		ReloadErrors:   counterValue(m.reloadErrors),
		DynamicUpdates: counterValue(m.dynamicUpdates),
		DynamicErrors:  counterValue(m.dynamicErrors),
		Restarts:       counterValue(m.restarts),
		Syncs:          m.syncCount(),
		Quarantined:    intGauge(m.quarantined),
	}
}

func counterValue(c prometheus.Counter) int {
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		return 0
	}
	return int(d.GetCounter().GetValue())
}

func intGauge(g prometheus.Gauge) int {
	var d dto.Metric
	if err := g.Write(&d); err != nil {
		return 0
	}
	return int(d.GetGauge().GetValue())
}

func (m *loopMetrics) syncCount() int {
	// Only the histogram: gathering the whole registry would scrape nginx
	// (metrics_nginx.go).
	ch := make(chan prometheus.Metric)
	go func() {
		m.syncDuration.Collect(ch)
		close(ch)
	}()
	n := 0
	for metric := range ch {
		var d dto.Metric
		if err := metric.Write(&d); err == nil {
			n += int(d.GetHistogram().GetSampleCount())
		}
	}
	return n
}
