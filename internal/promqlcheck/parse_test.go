package promqlcheck

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		expr     string
		want     Expr
		grouping []string
	}{
		{expr: `up`, want: Expr{Selectors: []Selector{{Metric: "up"}}}},
		{expr: `sum(rate(a_total{x="1", y=~"b|c",}[5m]))`, want: Expr{Selectors: []Selector{{Metric: "a_total", Labels: []string{"x", "y"}}}}},
		{
			expr: `histogram_quantile(0.99, sum by (ns, le) (rate(h_bucket{ns!~"$ns"}[$__rate_interval])))`,
			want: Expr{Selectors: []Selector{{Metric: "h_bucket", Labels: []string{"ns"}}}, Grouping: []string{"ns", "le"}},
		},
		{
			expr: `sum(rate(r{status=~"5.."}[5m])) by (ingress) / ignoring(status) group_left(pod) sum by (ingress) (rate(r[5m])) > bool 0.05`,
			want: Expr{Selectors: []Selector{{Metric: "r", Labels: []string{"status"}}, {Metric: "r"}}, Grouping: []string{"ingress", "status", "pod", "ingress"}},
		},
		{expr: `-(g - time()) < 14 * 24 * 3600 and on (host) g offset 1h unless absent(g)`, want: Expr{Selectors: []Selector{{Metric: "g"}, {Metric: "g"}, {Metric: "g"}}, Grouping: []string{"host"}}},
		{expr: `count(count_values by (c) ("hash", h)) > 1`, want: Expr{Selectors: []Selector{{Metric: "h"}}, Grouping: []string{"c"}}},
		{expr: `max_over_time(g[1h:5m]) >= 1e3 or vector(0)`, want: Expr{Selectors: []Selector{{Metric: "g"}}}},
		{expr: `topk(5, {__name__="x"}) # a comment`, want: Expr{Selectors: []Selector{{Labels: []string{"__name__"}}}}},
		{expr: "sum without (pod) (\n  increase(e_total[1h30m])\n)", want: Expr{Selectors: []Selector{{Metric: "e_total"}}, Grouping: []string{"pod"}}},
	} {
		got, err := Parse(Expand(tc.expr))
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.expr, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.expr, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`sum(rate(a[5m])`, `want ")"`},
		{`sum(rate(a[5m])))`, `unexpected ")"`},
		{`rat(a[5m])`, `unknown function "rat"`},
		{`a{x="1"`, `want "}"`},
		{`a{x=1}`, `want a string`},
		{`a{x=="1"}`, `want a label matcher operator`},
		{`a{"x"="1"}`, `want a label name`},
		{`rate(a[5])`, `want a duration`},
		{`rate(a[5m)`, `want "]"`},
		{`a{x="1}`, `unterminated string`},
		{`sum by (a b) (x)`, `want ")"`},
		{`a + `, `want a value`},
		{`a + bool b`, `no comparison`},
		{`histogram_quantile($q, a)`, `unexpected character '$'`},
		{`a[5x]`, `bad`},
		{`{}`, `neither a metric name nor a matcher`},
		{`sum(a) by`, `want "("`},
		{`a b`, `unexpected "b"`},
	} {
		_, err := Parse(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.expr, err, tc.want)
		}
	}
}

func TestDashboardQueries(t *testing.T) {
	d := `{"panels": [
	  {"id": 1, "title": "A", "targets": [{"refId": "A", "expr": "rate(x[$__rate_interval])"}]},
	  {"id": 2, "type": "row", "title": "R", "panels": [{"id": 3, "title": "B", "targets": [{"refId": "B", "expr": "y"}]}]}
	],
	"templating": {"list": [
	  {"name": "datasource", "type": "datasource", "query": "prometheus"},
	  {"name": "ns", "type": "query", "query": "label_values(x{a=\"b\"}, namespace)"},
	  {"name": "ing", "type": "query", "query": {"query": "label_values(y, ingress)", "refId": "V"}}
	]}}`
	got, err := DashboardQueries([]byte(d))
	if err != nil {
		t.Fatal(err)
	}
	want := []Query{
		{Where: "panel 1 (A) target A", Expr: "rate(x[5m])"},
		{Where: "panel 3 (B) target B", Expr: "y"},
		{Where: "variable ns", Expr: `x{a="b"}`, Label: "namespace"},
		{Where: "variable ing", Expr: "y", Label: "ingress"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DashboardQueries = %+v, want %+v", got, want)
	}
	if _, err := DashboardQueries([]byte(`{"templating": {"list": [{"name": "v", "type": "query", "query": "query_result(x)"}]}}`)); err == nil {
		t.Error("a variable query other than label_values was accepted")
	}
}

func TestReadPrometheusRule(t *testing.T) {
	good := `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: r, labels: {a: b}}
spec:
  groups:
  - name: g
    rules:
    - alert: A
      expr: up == 0
      for: 5m
      labels: {severity: warning}
      annotations: {summary: s}
`
	r, err := ReadPrometheusRule([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := RuleQueries(r); len(got) != 1 || got[0].Expr != "up == 0" || got[0].Where != "group g rule A" {
		t.Errorf("RuleQueries = %+v", got)
	}
	if _, err := ReadPrometheusRule([]byte(strings.Replace(good, "for: 5m", "fo: 5m", 1))); err == nil {
		t.Error("a misspelt rule key was accepted")
	}
}
