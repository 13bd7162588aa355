package controller

import (
	"context"

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
func newServingMetrics() (*prometheus.GaugeVec, prometheus.Gauge) {
	expire := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: metricsNamespace,
		Name:      "ssl_expire_time_seconds",
		Help: "Expiry (Unix time, the leaf certificate's NotAfter) of the certificate served for each host with TLS. " +
			"Certificates expiring within 10 days: kubectl_ingress_ssl_expire_time_seconds < time() + 10*24*3600.",
	}, []string{"host", "namespace", "secret_name"})
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
	m.compat.setServing(cfg)
	m.sslExpire.Reset()
	if cfg == nil {
		m.hosts.Set(0)
		return
	}
	certs := make(map[string]*model.Certificate, len(cfg.Certificates))
	for i := range cfg.Certificates {
		certs[cfg.Certificates[i].ID] = &cfg.Certificates[i]
	}
	hosts := 0
	for _, s := range cfg.Servers {
		if s.Hostname == model.CatchAllHost {
			continue
		}
		hosts++
		c, ok := certs[s.CertificateID]
		if !s.TLS || !ok || c.NotAfter.IsZero() {
			continue
		}
		m.sslExpire.WithLabelValues(s.Hostname, c.Secret.Namespace, c.Secret.Name).Set(float64(c.NotAfter.Unix()))
	}
	m.hosts.Set(float64(hosts))
}
