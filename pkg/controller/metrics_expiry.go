package controller

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// expiryCollector is a certificate expiry gauge (one row per host with
// TLS: the NotAfter of the certificate it serves, as Unix time) computed
// when /metrics is scraped, from the config nginx serves. A sync only
// swaps the config: at 100,000 hosts with TLS, setting a GaugeVec's rows
// again after every sync cost about a tenth of a second, where a scrape
// comes every 15 to 60 s and reads them all anyway.
type expiryCollector struct {
	desc *prometheus.Desc
	// labels gives a row's label values, in desc's order.
	labels func(host string, cert *model.Certificate) []string
	// serving is the config nginx serves; nil: none (no rows).
	serving atomic.Pointer[model.Config]
}

func newExpiryCollector(name, help string, labelNames []string, labels func(host string, cert *model.Certificate) []string) *expiryCollector {
	return &expiryCollector{desc: prometheus.NewDesc(name, help, labelNames, nil), labels: labels}
}

// set makes cfg the config whose expiries are shown (nil: none).
func (e *expiryCollector) set(cfg *model.Config) { e.serving.Store(cfg) }

func (e *expiryCollector) Describe(ch chan<- *prometheus.Desc) { ch <- e.desc }

// Collect sends one row per server with TLS whose certificate has a
// NotAfter, the catch-all left out.
func (e *expiryCollector) Collect(ch chan<- prometheus.Metric) {
	cfg := e.serving.Load()
	if cfg == nil {
		return
	}
	certs := make(map[string]*model.Certificate, len(cfg.Certificates))
	for i := range cfg.Certificates {
		certs[cfg.Certificates[i].ID] = &cfg.Certificates[i]
	}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		c, ok := certs[s.CertificateID]
		if s.Hostname == model.CatchAllHost || !s.TLS || !ok || c.NotAfter.IsZero() {
			continue
		}
		ch <- prometheus.MustNewConstMetric(e.desc, prometheus.GaugeValue, float64(c.NotAfter.Unix()), e.labels(s.Hostname, c)...)
	}
}
