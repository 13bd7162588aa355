package controller

import (
	"bytes"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

var testIdentity = MetricsIdentity{Namespace: "ingress-nginx", Class: "k8s.io/ingress-nginx", Pod: "ctl-0"}

const testConst = `controller_class="k8s.io/ingress-nginx",controller_namespace="ingress-nginx",controller_pod="ctl-0"`

// TestIngressNginxReloadMetrics follows ingress-nginx's reload metrics
// through a start, a failed reload and a good one: names, types and
// label names are ingress-nginx's.
func TestIngressNginxReloadMetrics(t *testing.T) {
	m := newLoopMetrics(testIdentity)
	names := []string{
		"nginx_ingress_controller_success", "nginx_ingress_controller_errors",
		"nginx_ingress_controller_config_last_reload_successful", "nginx_ingress_controller_config_hash",
	}
	expect := func(step string, success, errs, ok int, hash string) {
		t.Helper()
		want := `# HELP nginx_ingress_controller_success x
# TYPE nginx_ingress_controller_success counter
nginx_ingress_controller_success{` + testConst + `} ` + itoa(success) + `
# HELP nginx_ingress_controller_errors x
# TYPE nginx_ingress_controller_errors counter
nginx_ingress_controller_errors{` + testConst + `} ` + itoa(errs) + `
# HELP nginx_ingress_controller_config_last_reload_successful x
# TYPE nginx_ingress_controller_config_last_reload_successful gauge
nginx_ingress_controller_config_last_reload_successful{` + testConst + `} ` + itoa(ok) + `
# HELP nginx_ingress_controller_config_hash x
# TYPE nginx_ingress_controller_config_hash gauge
nginx_ingress_controller_config_hash{` + testConst + `} ` + hash + `
`
		if err := compareGathered(helpless{m.registry}, want, names...); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	expect("new", 0, 0, 1, "0")

	m.reloads.Inc()
	m.setConfig("0000000000001ffffffffffffffffff0")
	expect("started", 1, 0, 1, "1")
	if v := gaugeFloat(m.compat.configSuccessTime); v < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("config_last_reload_successful_timestamp_seconds = %v, want now", v)
	}

	m.reloadErrors.Inc()
	expect("failed reload", 1, 1, 0, "0")

	m.reloads.Inc()
	m.setConfig("00000000000ffeeddccbbaa998877665")
	expect("good reload", 2, 1, 1, "255")

	// kubectl_ingress_* counts the same.
	if s := m.stats(); s.Reloads != 2 || s.ReloadErrors != 1 {
		t.Errorf("stats = %+v, want 2 reloads and 1 error", s)
	}
}

func TestIngressNginxSSLExpire(t *testing.T) {
	m := newLoopMetrics(testIdentity)
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	m.setServing(&model.Config{
		Servers: []model.Server{
			{Hostname: "shop.example.com", TLS: true, CertificateID: "web/shop"},
			{Hostname: "plain.example.com"},
			{Hostname: model.CatchAllHost, TLS: true, CertificateID: "web/shop"},
		},
		Certificates: []model.Certificate{{ID: "web/shop", Secret: model.ObjectRef{Namespace: "web", Name: "shop"}, NotAfter: exp}},
	})
	want := `# HELP nginx_ingress_controller_ssl_expire_time_seconds x
# TYPE nginx_ingress_controller_ssl_expire_time_seconds gauge
nginx_ingress_controller_ssl_expire_time_seconds{class="k8s.io/ingress-nginx",host="shop.example.com",namespace="ingress-nginx"} 1.893553445e+09
`
	if err := compareGathered(helpless{m.registry}, want, "nginx_ingress_controller_ssl_expire_time_seconds"); err != nil {
		t.Error(err)
	}
	// Ours, computed at the same scrape, with the Secret; and the hosts.
	ours := `# HELP kubectl_ingress_ssl_expire_time_seconds x
# TYPE kubectl_ingress_ssl_expire_time_seconds gauge
kubectl_ingress_ssl_expire_time_seconds{host="shop.example.com",namespace="web",secret_name="shop"} 1.893553445e+09
# HELP kubectl_ingress_hosts x
# TYPE kubectl_ingress_hosts gauge
kubectl_ingress_hosts 2
`
	if err := compareGathered(helpless{m.registry}, ours, "kubectl_ingress_ssl_expire_time_seconds", "kubectl_ingress_hosts"); err != nil {
		t.Error(err)
	}
	m.setServing(nil)
	if err := compareGathered(helpless{m.registry}, "", "nginx_ingress_controller_ssl_expire_time_seconds"); err != nil {
		t.Errorf("expiries without a config: %v", err)
	}
}

func TestIngressNginxLeaderStatus(t *testing.T) {
	var leading atomic.Bool
	reg := prometheus.NewRegistry()
	reg.MustRegister(newLeaderStatus(testIdentity, "ingress-nginx-leader", &leading))
	for _, v := range []bool{false, true, false} {
		leading.Store(v)
		want := `# HELP nginx_ingress_controller_leader_election_status x
# TYPE nginx_ingress_controller_leader_election_status gauge
nginx_ingress_controller_leader_election_status{` + testConst + `,name="ingress-nginx-leader"} ` + map[bool]string{true: "1", false: "0"}[v] + `
`
		if err := compareGathered(helpless{reg}, want); err != nil {
			t.Errorf("leading=%v: %v", v, err)
		}
	}
}

func TestConfigHashValue(t *testing.T) {
	for in, want := range map[string]float64{
		"":                                 0,
		"zz":                               0,
		"fffffffffffff":                    1<<52 - 1,
		"fffffffffffff000000000000000000f": 1<<52 - 1,
		"0000000000010":                    16,
	} {
		if got := configHashValue(in); got != want {
			t.Errorf("configHashValue(%q) = %v, want %v", in, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// helpless gathers without the help texts, so that the tests compare
// names, types, labels and values only.
type helpless struct{ g prometheus.Gatherer }

func (h helpless) Gather() ([]*dto.MetricFamily, error) {
	fs, err := h.g.Gather()
	x := "x"
	for _, f := range fs {
		f.Help = &x
	}
	return fs, err
}

func gaugeFloat(g prometheus.Gauge) float64 {
	var d dto.Metric
	if err := g.Write(&d); err != nil {
		return 0
	}
	return d.GetGauge().GetValue()
}

// compareGathered compares the text format of the named families (all
// when none is named) with want, in the order of the text.
func compareGathered(g prometheus.Gatherer, want string, names ...string) error {
	fs, err := g.Gather()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, name := range names {
		for _, f := range fs {
			if f.GetName() == name {
				if _, err := expfmt.MetricFamilyToText(&buf, f); err != nil {
					return err
				}
			}
		}
	}
	if len(names) == 0 {
		for _, f := range fs {
			if _, err := expfmt.MetricFamilyToText(&buf, f); err != nil {
				return err
			}
		}
	}
	if got := buf.String(); got != want {
		return fmt.Errorf("got\n%s\nwant\n%s", got, want)
	}
	return nil
}
