package promqlcheck

import (
	"encoding/json"
	"fmt"
	"regexp"

	"sigs.k8s.io/yaml"
)

// Query is one PromQL expression of a file and where it is.
type Query struct {
	// Where names it: "panel 3 (Requests) target A", "rule KubectlIngressX".
	Where string
	// Expr is the expression with Grafana's interval variables expanded
	// (Expand).
	Expr string
	// Label is the label a Grafana label_values(expr, label) variable
	// lists; else "".
	Label string
}

// grafanaIntervals are Grafana's built-in duration variables; each stands
// for a duration when Prometheus gets the query.
var grafanaIntervals = regexp.MustCompile(`\$\{?__(rate_interval|interval|range)\}?`)

// Expand replaces Grafana's duration variables ($__rate_interval,
// $__interval, $__range) with a duration, as Grafana does before it sends
// a query. Other variables ($namespace) are left: the dashboards use them
// only inside label matchers' strings.
func Expand(expr string) string { return grafanaIntervals.ReplaceAllString(expr, "5m") }

// dashboard is the part of a Grafana dashboard's JSON model that holds
// queries.
type dashboard struct {
	Panels     []panel `json:"panels"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID      int      `json:"id"`
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	Targets []target `json:"targets"`
	Panels  []panel  `json:"panels"` // a collapsed row's
}

type target struct {
	RefID string `json:"refId"`
	Expr  string `json:"expr"`
}

type variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Query json.RawMessage `json:"query"`
}

// labelValues is Grafana's label_values(selector, label) variable query.
var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$`)

// DashboardQueries returns the queries of a Grafana dashboard: each
// panel's targets (rows' panels too) and each query variable's
// label_values.
func DashboardQueries(data []byte) ([]Query, error) {
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	var out []Query
	var walk func(ps []panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				out = append(out, Query{Where: fmt.Sprintf("panel %d (%s) target %s", p.ID, p.Title, t.RefID), Expr: Expand(t.Expr)})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, err := variableQuery(v.Query)
		if err != nil {
			return nil, fmt.Errorf("dashboard: variable %s: %w", v.Name, err)
		}
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			return nil, fmt.Errorf("dashboard: variable %s: query %q is not label_values(selector, label)", v.Name, q)
		}
		out = append(out, Query{Where: "variable " + v.Name, Expr: Expand(m[1]), Label: m[2]})
	}
	return out, nil
}

// variableQuery is a query variable's query: a string, or (Grafana 10
// and later) an object with the string in query.
func variableQuery(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var o struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return "", err
	}
	return o.Query, nil
}

// Rule is one rule of a PrometheusRule.
type Rule struct {
	Alert       string            `json:"alert"`
	Record      string            `json:"record"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// RuleGroup is one group of a PrometheusRule.
type RuleGroup struct {
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
}

// PrometheusRule is the prometheus-operator object, as far as the checks
// need it.
type PrometheusRule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Groups []RuleGroup `json:"groups"`
	} `json:"spec"`
}

// ReadPrometheusRule reads a PrometheusRule from YAML (or JSON). Its spec
// is read strictly: a misspelt key of a group or rule is an error.
func ReadPrometheusRule(data []byte) (PrometheusRule, error) {
	var r PrometheusRule
	if err := yaml.Unmarshal(data, &r); err != nil {
		return PrometheusRule{}, fmt.Errorf("PrometheusRule: %w", err)
	}
	var loose map[string]any
	if err := yaml.Unmarshal(data, &loose); err != nil {
		return PrometheusRule{}, fmt.Errorf("PrometheusRule: %w", err)
	}
	specOnly, err := yaml.Marshal(map[string]any{"spec": loose["spec"]})
	if err != nil {
		return PrometheusRule{}, fmt.Errorf("PrometheusRule: %w", err)
	}
	var strict struct {
		Spec struct {
			Groups []RuleGroup `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(specOnly, &strict); err != nil {
		return PrometheusRule{}, fmt.Errorf("PrometheusRule: %w", err)
	}
	return r, nil
}

// RuleQueries returns the expression of every rule.
func RuleQueries(r PrometheusRule) []Query {
	var out []Query
	for _, g := range r.Spec.Groups {
		for _, rule := range g.Rules {
			name := rule.Alert
			if name == "" {
				name = rule.Record
			}
			out = append(out, Query{Where: "group " + g.Name + " rule " + name, Expr: rule.Expr})
		}
	}
	return out
}
