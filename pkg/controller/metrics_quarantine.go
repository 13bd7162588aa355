package controller

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// newQuarantineMetric is kubectl_ingress_quarantined: how many Ingresses
// are left out because nginx -t refused a config they wrote
// (quarantine.go). Their Problems also count in kubectl_ingress_problems,
// family "quarantined".
func newQuarantineMetric() prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: metricsNamespace,
		Name:      "quarantined",
		Help:      "Ingresses left out of nginx.conf because nginx -t refused a config they wrote; each stays out until its spec or annotations change.",
	})
}

// isQuarantineProblem tells the Problem render makes for a quarantined
// Ingress.
func isQuarantineProblem(p model.Problem) bool {
	return strings.HasPrefix(p.Reason, render.QuarantineReason)
}
