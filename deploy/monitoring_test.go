package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-ingress/kubectl-ingress/internal/promqlcheck"
)

// monitoringDir is the monitoring component; the tests render it in an
// overlay of the base, as a user does.
const (
	monitoringDir     = "monitoring"
	monitoringOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- %[1]s
components:
- %[1]s/monitoring
`
	dashboardConfigMap = "kubectl-ingress-dashboard"
	dashboardKey       = "kubectl-ingress.json"
)

func renderMonitoring(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	return renderOverlay(t, "overlay with monitoring", fmt.Sprintf(monitoringOverlay, baseRef(t)))
}

// metricPrefixes are the prefixes of every metric the controller exports;
// pkg/controller's TestMonitoringQueries checks the names themselves
// against its registry.
var metricPrefixes = []string{"nginx_ingress_controller_", "kubectl_ingress_"}

// The component adds a ServiceMonitor, a PrometheusRule and the
// dashboard's ConfigMap to the base, in the controller's namespace, and
// changes nothing of the base.
func TestMonitoringObjects(t *testing.T) {
	base := map[string]string{}
	for _, u := range renderKustomization(t, baseDir) {
		data, _ := u.MarshalJSON()
		base[objectKey(u)] = string(data)
	}
	var added []string
	for _, u := range renderMonitoring(t) {
		key := objectKey(u)
		if b, ok := base[key]; ok {
			if data, _ := u.MarshalJSON(); string(data) != b {
				t.Errorf("the component changes %s of the base", key)
			}
			continue
		}
		added = append(added, key)
		if u.GetNamespace() != namespace {
			t.Errorf("%s is not in namespace %s", key, namespace)
		}
		if u.GetLabels()["app.kubernetes.io/name"] != "kubectl-ingress" {
			t.Errorf("%s lacks the label app.kubernetes.io/name=kubectl-ingress", key)
		}
	}
	slices.Sort(added)
	want := []string{
		"ConfigMap " + namespace + "/" + dashboardConfigMap,
		"PrometheusRule " + namespace + "/kubectl-ingress",
		"ServiceMonitor " + namespace + "/kubectl-ingress-controller",
	}
	if !slices.Equal(added, want) {
		t.Errorf("the component adds %q, want %q", added, want)
	}
}

// The ServiceMonitor scrapes the metrics Service's port named metrics,
// which only that Service has, with the metrics' own labels kept.
func TestMonitoringServiceMonitor(t *testing.T) {
	objs := renderMonitoring(t)
	var sm struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			NamespaceSelector struct {
				MatchNames []string `json:"matchNames"`
			} `json:"namespaceSelector"`
			Endpoints []struct {
				Port        string `json:"port"`
				Path        string `json:"path"`
				HonorLabels bool   `json:"honorLabels"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	for _, u := range objs {
		if u.GetKind() == "ServiceMonitor" {
			data, _ := u.MarshalJSON()
			if err := json.Unmarshal(data, &sm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if sm.APIVersion != "monitoring.coreos.com/v1" {
		t.Errorf("ServiceMonitor apiVersion %q", sm.APIVersion)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" || sm.Spec.Endpoints[0].Path != "/metrics" || !sm.Spec.Endpoints[0].HonorLabels {
		t.Errorf("ServiceMonitor endpoints %+v, want port metrics, /metrics, honorLabels", sm.Spec.Endpoints)
	}
	if !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{namespace}) {
		t.Errorf("ServiceMonitor namespaces %q", sm.Spec.NamespaceSelector.MatchNames)
	}
	var targets []string
	for _, u := range objs {
		if u.GetKind() != "Service" || u.GetNamespace() != namespace {
			continue
		}
		selected := len(sm.Spec.Selector.MatchLabels) > 0
		for k, v := range sm.Spec.Selector.MatchLabels {
			if u.GetLabels()[k] != v {
				selected = false
			}
		}
		var svc corev1.Service
		find(t, objs, "Service", u.GetName(), &svc)
		for _, p := range svc.Spec.Ports {
			if selected && p.Name == "metrics" {
				targets = append(targets, svc.Name)
				if p.Port != 10254 {
					t.Errorf("Service %s port metrics is %d, want 10254", svc.Name, p.Port)
				}
			}
		}
	}
	if !slices.Equal(targets, []string{"kubectl-ingress-controller-metrics"}) {
		t.Errorf("the ServiceMonitor scrapes the port metrics of %q, want kubectl-ingress-controller-metrics only", targets)
	}
}

// durationRE is a Prometheus duration as prometheus-operator accepts it.
var durationRE = regexp.MustCompile(`^(0|([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?)$`)

// The PrometheusRule has the shape prometheus-operator reads: groups with
// unique names, alerts with unique names, each with an expression that
// parses, a for duration, a severity and a summary and description.
func TestMonitoringPrometheusRule(t *testing.T) {
	var rule promqlcheck.PrometheusRule
	for _, u := range renderMonitoring(t) {
		if u.GetKind() == "PrometheusRule" {
			data, _ := u.MarshalJSON()
			r, err := promqlcheck.ReadPrometheusRule(data)
			if err != nil {
				t.Fatal(err)
			}
			rule = r
		}
	}
	if rule.APIVersion != "monitoring.coreos.com/v1" || rule.Kind != "PrometheusRule" {
		t.Fatalf("apiVersion %q kind %q, want monitoring.coreos.com/v1 PrometheusRule", rule.APIVersion, rule.Kind)
	}
	if len(rule.Spec.Groups) == 0 {
		t.Fatal("no rule groups")
	}
	groups, alerts := map[string]bool{}, map[string]bool{}
	for _, g := range rule.Spec.Groups {
		if g.Name == "" || groups[g.Name] {
			t.Errorf("group name %q empty or repeated", g.Name)
		}
		groups[g.Name] = true
		if len(g.Rules) == 0 {
			t.Errorf("group %s has no rules", g.Name)
		}
		for _, r := range g.Rules {
			if r.Alert == "" || r.Record != "" {
				t.Errorf("group %s: a rule that is no alert: %+v", g.Name, r)
				continue
			}
			if alerts[r.Alert] {
				t.Errorf("alert %s twice", r.Alert)
			}
			alerts[r.Alert] = true
			if !strings.HasPrefix(r.Alert, "KubectlIngress") {
				t.Errorf("alert %s: want the prefix KubectlIngress", r.Alert)
			}
			if r.For == "" || !durationRE.MatchString(r.For) {
				t.Errorf("alert %s: for %q is no duration", r.Alert, r.For)
			}
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("alert %s: severity %q, want warning or critical", r.Alert, s)
			}
			for _, a := range []string{"summary", "description"} {
				if strings.TrimSpace(r.Annotations[a]) == "" {
					t.Errorf("alert %s: no %s annotation", r.Alert, a)
				}
			}
		}
	}
	// What issue 16 asks the alerts to cover, each by an alert on the
	// metric that tells it.
	for alert, metric := range map[string]string{
		"KubectlIngressHigh5xxRatio":           "nginx_ingress_controller_requests",
		"KubectlIngressHighLatency":            "nginx_ingress_controller_request_duration_seconds_bucket",
		"KubectlIngressConfigReloadFailed":     "nginx_ingress_controller_config_last_reload_successful",
		"KubectlIngressReloadErrors":           "nginx_ingress_controller_errors",
		"KubectlIngressCertificateExpiresSoon": "nginx_ingress_controller_ssl_expire_time_seconds",
		"KubectlIngressConfigOutOfSync":        "nginx_ingress_controller_config_hash",
	} {
		found := false
		for _, q := range promqlcheck.RuleQueries(rule) {
			if strings.HasSuffix(q.Where, " rule "+alert) {
				found = true
				e, err := promqlcheck.Parse(q.Expr)
				if err == nil && !slices.Contains(e.Metrics(), metric) {
					t.Errorf("alert %s does not read %s", alert, metric)
				}
			}
		}
		if !found {
			t.Errorf("no alert %s", alert)
		}
	}
	checkQueries(t, promqlcheck.RuleQueries(rule), nil)
}

// The dashboard in the ConfigMap is dashboard.json; every panel and query
// takes the data source from the variable $datasource; panel ids are
// unique, panels lie on the 24-column grid without overlapping; every
// query parses and reads only the controller's metrics and the
// dashboard's variables.
func TestMonitoringDashboard(t *testing.T) {
	var cm corev1.ConfigMap
	find(t, renderMonitoring(t), "ConfigMap", dashboardConfigMap, &cm)
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("ConfigMap %s lacks the label grafana_dashboard=1 (Grafana's sidecar)", cm.Name)
	}
	data := []byte(cm.Data[dashboardKey])
	file, err := os.ReadFile(filepath.Join(monitoringDir, "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(file) {
		t.Fatalf("ConfigMap %s key %s is not dashboard.json", cm.Name, dashboardKey)
	}

	var d struct {
		UID        string           `json:"uid"`
		Title      string           `json:"title"`
		Panels     []map[string]any `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard uid %q title %q", d.UID, d.Title)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
		if v.Name == "datasource" && (v.Type != "datasource" || v.Query != "prometheus") {
			t.Errorf("variable datasource: type %q query %v, want a Prometheus data source variable", v.Type, v.Query)
		}
	}
	if !vars["datasource"] {
		t.Fatal("no variable datasource")
	}

	ids := map[float64]string{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	var walk func(ps []map[string]any)
	walk = func(ps []map[string]any) {
		for _, p := range ps {
			title, _ := p["title"].(string)
			id, ok := p["id"].(float64)
			if !ok || id <= 0 {
				t.Errorf("panel %q has no id", title)
			} else if other, dup := ids[id]; dup {
				t.Errorf("panels %q and %q share id %v", other, title, id)
			}
			ids[id] = title
			gp, _ := p["gridPos"].(map[string]any)
			x, y, w, h := num(gp["x"]), num(gp["y"]), num(gp["w"]), num(gp["h"])
			if w <= 0 || h <= 0 || x < 0 || x+w > 24 {
				t.Errorf("panel %q: gridPos %v off the 24-column grid", title, gp)
			}
			for i := x; i < x+w; i++ {
				for j := y; j < y+h; j++ {
					if other, ok := taken[cell{i, j}]; ok {
						t.Errorf("panels %q and %q overlap at %d,%d", other, title, i, j)
					}
					taken[cell{i, j}] = title
				}
			}
			if p["type"] == "row" {
				sub, _ := p["panels"].([]any)
				var subs []map[string]any
				for _, s := range sub {
					subs = append(subs, s.(map[string]any))
				}
				walk(subs)
				continue
			}
			if !usesDatasourceVar(p["datasource"]) {
				t.Errorf("panel %q: datasource %v, want uid ${datasource}", title, p["datasource"])
			}
			targets, _ := p["targets"].([]any)
			if len(targets) == 0 {
				t.Errorf("panel %q has no query", title)
			}
			for _, tg := range targets {
				if tm, _ := tg.(map[string]any); !usesDatasourceVar(tm["datasource"]) {
					t.Errorf("panel %q: a target's datasource %v, want uid ${datasource}", title, tm["datasource"])
				}
			}
		}
	}
	walk(d.Panels)

	queries, err := promqlcheck.DashboardQueries(data)
	if err != nil {
		t.Fatal(err)
	}
	// What issue 16 and ingress-nginx's operators watch, each read by
	// some panel.
	read := map[string]bool{}
	for _, q := range queries {
		if e, err := promqlcheck.Parse(q.Expr); err == nil {
			for _, m := range e.Metrics() {
				read[m] = true
			}
		}
	}
	for _, m := range []string{
		"nginx_ingress_controller_requests",
		"nginx_ingress_controller_request_duration_seconds_bucket",
		"nginx_ingress_controller_response_duration_seconds_bucket",
		"nginx_ingress_controller_success",
		"nginx_ingress_controller_errors",
		"nginx_ingress_controller_config_last_reload_successful",
		"nginx_ingress_controller_config_hash",
		"nginx_ingress_controller_ssl_expire_time_seconds",
		"nginx_ingress_controller_nginx_process_connections",
		"kubectl_ingress_problems",
		"kubectl_ingress_quarantined",
		"kubectl_ingress_lua_dropped_entries",
	} {
		if !read[m] {
			t.Errorf("no panel reads %s", m)
		}
	}
	checkQueries(t, queries, vars)
}

// checkQueries parses each query, checks that its metrics have the
// controller's prefixes and that the variables it names ($x, ${x}) are
// the dashboard's (vars nil: no variables allowed).
func checkQueries(t *testing.T, qs []promqlcheck.Query, vars map[string]bool) {
	t.Helper()
	if len(qs) == 0 {
		t.Fatal("no queries")
	}
	varRE := regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)`)
	for _, q := range qs {
		e, err := promqlcheck.Parse(q.Expr)
		if err != nil {
			t.Errorf("%s: %v\n%s", q.Where, err, q.Expr)
			continue
		}
		if len(e.Metrics()) == 0 {
			t.Errorf("%s: reads no metric: %s", q.Where, q.Expr)
		}
		for _, m := range e.Metrics() {
			if !slices.ContainsFunc(metricPrefixes, func(p string) bool { return strings.HasPrefix(m, p) }) {
				t.Errorf("%s: metric %s is not the controller's", q.Where, m)
			}
		}
		for _, v := range varRE.FindAllStringSubmatch(q.Expr, -1) {
			if !vars[v[1]] {
				t.Errorf("%s: variable $%s is not defined", q.Where, v[1])
			}
		}
	}
}

func usesDatasourceVar(ds any) bool {
	m, ok := ds.(map[string]any)
	return ok && m["type"] == "prometheus" && m["uid"] == "${datasource}"
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}
