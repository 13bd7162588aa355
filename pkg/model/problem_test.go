package model

import (
	"reflect"
	"testing"
)

func TestProblemString(t *testing.T) {
	cases := []struct {
		p    Problem
		want string
	}{
		{Problem{Object: ObjectRef{Kind: "Ingress", Namespace: "team-a", Name: "shop"}, Field: "spec.rules[0].host", Reason: "bad"}, "ingress team-a/shop: spec.rules[0].host: bad"},
		{Problem{Object: ObjectRef{Kind: "IngressClass", Name: "nginx"}, Reason: "odd"}, "ingressclass nginx: odd"},
		{Problem{Object: ObjectRef{Namespace: "ns", Name: "x"}, Field: "f", Reason: "r"}, "ns/x: f: r"},
	}
	for _, c := range cases {
		if got := c.p.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestSortProblemsOrdersAndDeduplicates(t *testing.T) {
	a := Problem{Object: ObjectRef{Kind: "Ingress", Namespace: "a", Name: "x"}, Field: "f", Reason: "r"}
	b := Problem{Object: ObjectRef{Kind: "Ingress", Namespace: "b", Name: "x"}, Field: "f", Reason: "r"}
	c := Problem{Object: ObjectRef{Kind: "ConfigMap", Namespace: "z", Name: "z"}, Field: "data[k]", Reason: "r"}
	got := SortProblems([]Problem{b, a, c, a})
	want := []Problem{c, a, b}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SortProblems = %v, want %v", got, want)
	}
}

func TestConfigLookups(t *testing.T) {
	c := Config{Servers: []Server{{Hostname: "_"}, {Hostname: "a"}}, Backends: []Backend{{Name: "ns-svc-80"}}}
	if c.Server("a") == nil || c.Server("b") != nil {
		t.Error("Server lookup")
	}
	if c.Backend("ns-svc-80") == nil || c.Backend("x") != nil {
		t.Error("Backend lookup")
	}
}
