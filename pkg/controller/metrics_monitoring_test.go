package controller

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/promqlcheck"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// monitoringDir holds the dashboard and the alerts that the tests below
// check against the registry (deploy/monitoring; go test ./deploy -run
// Monitoring checks their shape).
const monitoringDir = "../../deploy/monitoring"

// pidNginx is a fake nginx whose master and worker are this test process,
// so that the /proc collector has figures.
type pidNginx struct{ *fakeNginx }

func (pidNginx) Pid() int                   { return os.Getpid() }
func (pidNginx) WorkerPids() ([]int, error) { return []int{os.Getpid()}, nil }

// droppingLua is a Lua endpoint that drops one entry of every payload.
type droppingLua struct{ fakeLua }

func (d *droppingLua) PostBackendsReport(context.Context, []luaapi.Backend) ([]luaapi.Dropped, error) {
	return []luaapi.Dropped{{Kind: luaapi.DroppedBackend, Name: "web-bad-80", Reason: "bad"}}, nil
}

func (d *droppingLua) PostServersReport(context.Context, luaapi.Servers) ([]luaapi.Dropped, error) {
	return []luaapi.Dropped{{Kind: luaapi.DroppedCertificate, Name: "web/bad", Reason: "bad"}}, nil
}

// monitorBody is one request series of the status server's
// /monitor/requests with a value in every histogram.
const monitorBody = `[{"host":"a.example.com","status":"503","method":"GET","path":"/","namespace":"web","ingress":"a","service":"svc","canary":"web-canary-80","requests":3,
  "obs":{"request_duration_seconds":{"sum":0.5,"counts":{"1":3}},"response_duration_seconds":{"sum":0.5,"counts":{"1":3}},
         "header_duration_seconds":{"sum":0.5,"counts":{"1":3}},"connect_duration_seconds":{"sum":0.5,"counts":{"1":3}},
         "request_size":{"sum":30,"counts":{"3":3}},"response_size":{"sum":30,"counts":{"3":3}},"bytes_sent":{"sum":30,"counts":{"2":3}}}}]`

// metricCatalog is what a registry exports: each series name (a
// histogram's _bucket, _sum and _count) and its label names.
type metricCatalog map[string]map[string]bool

// everyMetric builds a Controller as the controller subcommand does (the
// request metrics on, nginx's gauges read from a status server, the
// leader election's metrics registered), gives every metric a value
// (a reload and a failed one, a sync, Lua pushes with dropped entries, a
// served certificate, problems, nginx traffic) and gathers its registry:
// a metric whose name or labels change changes the catalog.
func everyMetric(t *testing.T) metricCatalog {
	t.Helper()
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case NginxStatusPath:
			fmt.Fprint(w, stubText)
		case nginxconf.MonitorPath:
			fmt.Fprint(w, monitorBody)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(status.Close)
	conf := nginxconf.DefaultConfOptions()
	conf.StatusAddress = strings.TrimPrefix(status.URL, "http://")
	reqOpts := DefaultRequestMetricsOptions()
	c, err := New(Config{
		Source: newFakeSource(render.Snapshot{}), Problems: &recordingReporter{},
		Nginx: pidNginx{&fakeNginx{}}, Lua: &droppingLua{},
		Build: render.DefaultOptions(), Conf: conf,
		MetricsIdentity: testIdentity, RequestMetrics: &reqOpts,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &Elector{cfg: ElectorConfig{Name: "kubectl-ingress-leader", MetricsIdentity: testIdentity}, metrics: newLeaderMetrics()}
	e.metrics.set(true)
	if err := c.RegisterCollectors(e.Collectors()...); err != nil {
		t.Fatal(err)
	}

	m := c.metrics
	m.reloads.Inc()
	m.reloadErrors.Inc()
	m.dynamicUpdates.Inc()
	m.dynamicErrors.Inc()
	m.restarts.Inc()
	m.syncDuration.WithLabelValues("reload", "success").Observe(0.1)
	m.lastSuccess.Set(float64(time.Now().Unix()))
	m.setConfig("0123456789abcdef0123456789abcdef")
	m.quarantined.Set(1)
	m.setProblems([]model.Problem{{Field: "metadata.annotations"}})
	_, ctx := ktesting.NewTestContext(t) // the drops are logged
	if err := c.cfg.Lua.PostBackends(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.cfg.Lua.PostServers(ctx, luaapi.Servers{}); err != nil {
		t.Fatal(err)
	}
	m.setServing(&model.Config{
		Servers:      []model.Server{{Hostname: "shop.example.com", TLS: true, CertificateID: "web/shop"}},
		Certificates: []model.Certificate{{ID: "web/shop", Secret: model.ObjectRef{Namespace: "web", Name: "shop"}, NotAfter: time.Now().Add(time.Hour)}},
	})

	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	cat := metricCatalog{}
	add := func(name string, labels []string) {
		if cat[name] == nil {
			cat[name] = map[string]bool{}
		}
		for _, l := range labels {
			cat[name][l] = true
		}
	}
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			var labels []string
			for _, lp := range metric.GetLabel() {
				labels = append(labels, lp.GetName())
			}
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM:
				add(f.GetName()+"_bucket", append(slices.Clone(labels), "le"))
				add(f.GetName()+"_sum", labels)
				add(f.GetName()+"_count", labels)
			case dto.MetricType_SUMMARY:
				add(f.GetName(), append(slices.Clone(labels), "quantile"))
				add(f.GetName()+"_sum", labels)
				add(f.GetName()+"_count", labels)
			default:
				add(f.GetName(), labels)
			}
		}
	}
	return cat
}

// check returns what q reads that the catalog lacks: a metric, a label of
// a selector's metric, or a label of a by, without, on, ignoring or
// label_values clause that none of its metrics has.
func (cat metricCatalog) check(q promqlcheck.Query) []string {
	e, err := promqlcheck.Parse(q.Expr)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", q.Where, err)}
	}
	var bad []string
	all := map[string]bool{}
	for _, s := range e.Selectors {
		labels, ok := cat[s.Metric]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: the controller exports no metric %s", q.Where, s.Metric))
			continue
		}
		for _, l := range s.Labels {
			if !labels[l] && l != "__name__" {
				bad = append(bad, fmt.Sprintf("%s: %s has no label %s", q.Where, s.Metric, l))
			}
		}
		for l := range labels {
			all[l] = true
		}
	}
	grouping := e.Grouping
	if q.Label != "" {
		grouping = append(grouping, q.Label)
	}
	for _, l := range grouping {
		if !all[l] && len(bad) == 0 {
			bad = append(bad, fmt.Sprintf("%s: no metric of %v has the label %s", q.Where, e.Metrics(), l))
		}
	}
	return bad
}

func monitoringQueries(t *testing.T) []promqlcheck.Query {
	t.Helper()
	dash, err := os.ReadFile(filepath.Join(monitoringDir, "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := promqlcheck.DashboardQueries(dash)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(filepath.Join(monitoringDir, "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := promqlcheck.ReadPrometheusRule(rules)
	if err != nil {
		t.Fatal(err)
	}
	return append(qs, promqlcheck.RuleQueries(r)...)
}

// TestMonitoringQueries: every metric and label that the shipped
// dashboard and alerts query is one this controller's registry exports.
func TestMonitoringQueries(t *testing.T) {
	cat := everyMetric(t)
	qs := monitoringQueries(t)
	if len(qs) < 40 {
		t.Fatalf("only %d queries in %s", len(qs), monitoringDir)
	}
	for _, q := range qs {
		for _, b := range cat.check(q) {
			t.Error(b)
		}
	}
}

// TestMonitoringCatalog: the catalog has what the dashboard needs to be
// checked against (so that TestMonitoringQueries cannot pass on an empty
// one), and check reports a renamed metric, a missing label and a
// grouping label no metric has.
func TestMonitoringCatalog(t *testing.T) {
	cat := everyMetric(t)
	for name, labels := range map[string][]string{
		"nginx_ingress_controller_requests":                                        {"controller_namespace", "controller_class", "controller_pod", "host", "status", "method", "path", "namespace", "ingress", "service", "canary"},
		"nginx_ingress_controller_request_duration_seconds_bucket":                 {"le", "ingress", "namespace"},
		"nginx_ingress_controller_response_duration_seconds_bucket":                {"le"},
		"nginx_ingress_controller_bytes_sent_sum":                                  {"ingress"},
		"nginx_ingress_controller_nginx_process_connections":                       {"state"},
		"nginx_ingress_controller_nginx_process_cpu_seconds_total":                 {"controller_pod"},
		"nginx_ingress_controller_success":                                         {"controller_class"},
		"nginx_ingress_controller_config_last_reload_successful":                   {"controller_pod"},
		"nginx_ingress_controller_ssl_expire_time_seconds":                         {"class", "host", "namespace"},
		"nginx_ingress_controller_leader_election_status":                          {"name", "controller_pod"},
		"kubectl_ingress_lua_dropped_entries":                                      {"endpoint", "kind", "name", "kept"},
		"kubectl_ingress_lua_push_duration_seconds_bucket":                         {"endpoint", "result", "le"},
		"kubectl_ingress_problems":                                                 {"family"},
		"kubectl_ingress_quarantined":                                              nil,
		"nginx_ingress_controller_config_last_reload_successful_timestamp_seconds": {"controller_class"},
	} {
		got, ok := cat[name]
		if !ok {
			t.Errorf("the catalog lacks %s", name)
			continue
		}
		for _, l := range labels {
			if !got[l] {
				t.Errorf("the catalog's %s lacks the label %s", name, l)
			}
		}
	}
	for _, tc := range []struct {
		q    promqlcheck.Query
		want string
	}{
		{promqlcheck.Query{Expr: `sum(rate(nginx_ingress_controller_request[5m]))`}, "no metric nginx_ingress_controller_request"},
		{promqlcheck.Query{Expr: `nginx_ingress_controller_requests{exported_namespace="a"}`}, "has no label exported_namespace"},
		{promqlcheck.Query{Expr: `sum by (pod) (kubectl_ingress_problems)`}, "has the label pod"},
		{promqlcheck.Query{Expr: `kubectl_ingress_problems`, Label: "controller_pod"}, "has the label controller_pod"},
		{promqlcheck.Query{Expr: `nginx_ingress_controller_request_duration_seconds{le="1"}`}, "no metric nginx_ingress_controller_request_duration_seconds"},
		{promqlcheck.Query{Expr: `sum(rate(x[5m]`}, `want ")"`},
	} {
		bad := cat.check(tc.q)
		if len(bad) == 0 || !strings.Contains(strings.Join(bad, "\n"), tc.want) {
			t.Errorf("check(%q) = %q, want %q", tc.q.Expr, bad, tc.want)
		}
	}
	if bad := cat.check(promqlcheck.Query{Expr: `histogram_quantile(0.9, sum by (ingress, le) (rate(nginx_ingress_controller_request_duration_seconds_bucket{status=~"5.."}[5m])))`}); len(bad) != 0 {
		t.Errorf("a valid query refused: %q", bad)
	}
}
