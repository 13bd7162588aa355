package luaapi

import (
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestServersNamed: the servers hosts names, once each, in the order of
// the Config's servers, whether hosts come in that order (one walk), in
// another, with a name twice or with one that no server has (a set).
func TestServersNamed(t *testing.T) {
	c := &model.Config{Servers: []model.Server{{Hostname: "_"}, {Hostname: "a"}, {Hostname: "b"}, {Hostname: "c"}}}
	for _, tc := range []struct {
		hosts []string
		want  []string
	}{
		{[]string{"_", "a", "c"}, []string{"_", "a", "c"}},
		{[]string{"c", "a"}, []string{"a", "c"}},
		{[]string{"a", "a", "b"}, []string{"a", "b"}},
		{[]string{"a", "x", "c"}, []string{"a", "c"}},
		{nil, []string{}},
	} {
		got := []string{}
		for _, s := range serversNamed(c, tc.hosts) {
			got = append(got, s.Hostname)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("hosts %v: servers %v, want %v", tc.hosts, got, tc.want)
		}
	}
}
