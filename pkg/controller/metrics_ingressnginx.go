package controller

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ingressNginxNamespace is the prefix of ingress-nginx's metrics. The
// controller exports the metrics that have an ingress-nginx equivalent
// under that name too (same type, same label names), so that its
// dashboards and alerts keep working; ours (kubectl_ingress_*) stay for
// what it never had. docs/metrics.md lists both.
const ingressNginxNamespace = "nginx_ingress_controller"

// MetricsIdentity is the constant labels ingress-nginx puts on its
// controller metrics: controller_namespace and controller_pod (the pod's
// POD_NAMESPACE and POD_NAME) and controller_class (--controller-class).
type MetricsIdentity struct {
	Namespace, Class, Pod string
}

func (id MetricsIdentity) labels() prometheus.Labels {
	return prometheus.Labels{
		"controller_namespace": id.Namespace,
		"controller_class":     id.Class,
		"controller_pod":       id.Pod,
	}
}

// ingressNginxMetrics are the controller metrics under ingress-nginx's
// names: the reload outcome, the config hash, reload counts and
// certificate expiries. Leader election's is the Elector's
// (metrics_leader.go); nginx's own gauges are nginxStatusCollector's and
// nginxProcessCollector's.
type ingressNginxMetrics struct {
	id MetricsIdentity

	configHash        prometheus.Gauge
	configSuccess     prometheus.Gauge
	configSuccessTime prometheus.Gauge
	reloads           prometheus.Counter
	reloadErrors      prometheus.Counter
	sslExpire         *expiryCollector

	vecs []prometheus.Collector
}

func newIngressNginxMetrics(id MetricsIdentity) *ingressNginxMetrics {
	constLabels := id.labels()
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ingressNginxNamespace, Name: name, Help: help, ConstLabels: constLabels})
	}
	// ingress-nginx's reload counters carry the three labels as variable
	// labels (not constant ones); the series are the same.
	operation := []string{"controller_namespace", "controller_class", "controller_pod"}
	success := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ingressNginxNamespace, Name: "success",
		Help: "Cumulative number of nginx reloads that made nginx serve a new nginx.conf (kubectl_ingress_reloads_total).",
	}, operation)
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ingressNginxNamespace, Name: "errors",
		Help: "Cumulative number of nginx reloads that failed (kubectl_ingress_reload_errors_total).",
	}, operation)
	m := &ingressNginxMetrics{
		id:                id,
		configHash:        gauge("config_hash", "Hash of the nginx.conf that serves (the first 52 bits of its md5, kubectl_ingress_config_info's checksum); 0 after a failed reload."),
		configSuccess:     gauge("config_last_reload_successful", "1 when the last reload of nginx succeeded, 0 when it failed."),
		configSuccessTime: gauge("config_last_reload_successful_timestamp_seconds", "When nginx last reloaded successfully (Unix time)."),
		reloads:           success.With(constLabels),
		reloadErrors:      errs.With(constLabels),
		sslExpire: newExpiryCollector(prometheus.BuildFQName(ingressNginxNamespace, "", "ssl_expire_time_seconds"),
			"Expiry (Unix time) of the certificate served for each host; namespace and class are the controller's. "+
				"Expiring within 10 days: nginx_ingress_controller_ssl_expire_time_seconds < (time() + (10 * 24 * 3600)).",
			[]string{"namespace", "class", "host"},
			func(host string, _ *model.Certificate) []string { return []string{id.Namespace, id.Class, host} }),
	}
	// As ingress-nginx, nothing has reloaded yet: the last reload counts
	// as successful until one fails.
	m.configSuccess.Set(1)
	m.vecs = []prometheus.Collector{m.configHash, m.configSuccess, m.configSuccessTime, success, errs, m.sslExpire}
	return m
}

// collectors are the metrics to register.
func (m *ingressNginxMetrics) collectors() []prometheus.Collector { return m.vecs }

// reloaded records a reload (or start) that serves the new nginx.conf.
func (m *ingressNginxMetrics) reloaded() {
	m.reloads.Inc()
	m.configSuccess.Set(1)
	m.configSuccessTime.Set(float64(time.Now().Unix()))
}

// reloadFailed records a reload that failed: ingress-nginx then shows 0
// for the last reload and for the hash.
func (m *ingressNginxMetrics) reloadFailed() {
	m.reloadErrors.Inc()
	m.configSuccess.Set(0)
	m.configHash.Set(0)
}

// setConfig shows the checksum of the nginx.conf that serves as a number.
func (m *ingressNginxMetrics) setConfig(checksum string) {
	m.configHash.Set(configHashValue(checksum))
}

// configHashValue is the first 52 bits of a hex checksum: a float64 holds
// them exactly, so two pods with the same nginx.conf show the same number.
func configHashValue(checksum string) float64 {
	if len(checksum) > 13 {
		checksum = checksum[:13]
	}
	v, err := strconv.ParseUint(checksum, 16, 64)
	if err != nil {
		return 0
	}
	return float64(v)
}

// hookedCounter is a Counter that also tells another metric of each
// increment: the loop counts reloads once, on kubectl_ingress_*, and the
// ingress-nginx names follow.
type hookedCounter struct {
	prometheus.Counter
	hook func()
}

func (c hookedCounter) Inc() {
	c.Counter.Inc()
	c.hook()
}

func (c hookedCounter) Add(v float64) {
	c.Counter.Add(v)
	for i := 0.0; i < v; i++ {
		c.hook()
	}
}

// leaderStatus is ingress-nginx's leader_election_status: 1 while this
// replica leads, else 0, with the Lease's name in name.
type leaderStatus struct {
	desc    *prometheus.Desc
	name    string
	leading *atomic.Bool
}

func newLeaderStatus(id MetricsIdentity, lease string, leading *atomic.Bool) *leaderStatus {
	return &leaderStatus{
		desc: prometheus.NewDesc(ingressNginxNamespace+"_leader_election_status",
			"1 while this replica leads (writes the Ingress status), 0 while it follows; name is the Lease (--election-id).",
			[]string{"name"}, id.labels()),
		name:    lease,
		leading: leading,
	}
}

func (l *leaderStatus) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *leaderStatus) Collect(ch chan<- prometheus.Metric) {
	v := 0.0
	if l.leading.Load() {
		v = 1
	}
	ch <- prometheus.MustNewConstMetric(l.desc, prometheus.GaugeValue, v, l.name)
}
