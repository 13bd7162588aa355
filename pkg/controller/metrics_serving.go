package controller

import (
	"context"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// newServingMetrics makes the metrics of the config nginx serves: the
// expiry of each host's certificate and the number of hosts.
//
// ssl_expire_time_seconds is ingress-nginx's
// nginx_ingress_controller_ssl_expire_time_seconds under our prefix, with
// host and secret_name as there; namespace is the Secret's namespace
// (ingress-nginx puts the controller's namespace and class there).
func newServingMetrics() (*expiryCollector, prometheus.Gauge) {
	expire := newExpiryCollector(prometheus.BuildFQName(metricsNamespace, "", "ssl_expire_time_seconds"),
		"Expiry (Unix time, the leaf certificate's NotAfter) of the certificate served for each host with TLS. "+
			"Certificates expiring within 10 days: kubectl_ingress_ssl_expire_time_seconds < time() + 10*24*3600.",
		[]string{"host", "namespace", "secret_name"},
		func(host string, c *model.Certificate) []string {
			return []string{host, c.Secret.Namespace, c.Secret.Name}
		})
	hosts := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: metricsNamespace,
		Name:      "hosts",
		Help:      "Hosts (nginx servers, without the catch-all one) in the config nginx serves.",
	})
	return expire, hosts
}

// Synced is the metrics' SyncObserver: it shows the hosts and
// certificate expiries of the config that serves after each sync.
func (m *loopMetrics) Synced(_ context.Context, r SyncResult) {
	m.setServing(r.Serving)
}

// setServing replaces the serving metrics with cfg's (none for nil); it
// does nothing when cfg is the config shown already.
func (m *loopMetrics) setServing(cfg *model.Config) {
	if cfg == m.servingShown && cfg != nil {
		return
	}
	m.servingShown = cfg
	m.sslExpire.set(cfg)
	m.compat.sslExpire.set(cfg)
	hosts := 0
	if cfg != nil {
		hosts = len(cfg.Servers)
		if slices.ContainsFunc(cfg.Servers, func(s model.Server) bool { return s.Hostname == model.CatchAllHost }) {
			hosts--
		}
	}
	m.hosts.Set(float64(hosts))
}
