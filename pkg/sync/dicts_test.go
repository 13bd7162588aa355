package sync_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// preloadingNginx is a fakeNginx that takes preload payloads.
type preloadingNginx struct {
	fakeNginx
}

func (f *preloadingNginx) Preload(_ context.Context, backends, servers []byte) error {
	var bs []luaapi.Backend
	if err := json.Unmarshal(backends, &bs); err != nil {
		return err
	}
	var s luaapi.Servers
	if err := json.Unmarshal(servers, &s); err != nil {
		return err
	}
	names := make([]string, 0, len(bs))
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return f.record("preload", strings.Join(names, ",")+" certs "+strings.Join(sortedKeys(s.Certificates), ","))
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dictsConf(configurationData string) string {
	return "http {\n    lua_shared_dict configuration_data " + configurationData + ";\n" +
		"    lua_shared_dict certificate_data 32m;\n    lua_shared_dict certificate_servers 8m;\n}"
}

func TestPlanNamesResizedDicts(t *testing.T) {
	c := config([]string{"a.example"}, true, "ns-a-80")
	plan := ksync.NewPlan(st(c, dictsConf("64m")), st(c, dictsConf("128m")))
	if plan.Verdict != ksync.ReloadRequired {
		t.Fatalf("verdict %v, want a reload", plan.Verdict)
	}
	if !plan.Resized(luaapi.DictConfiguration) || plan.Resized(luaapi.DictCertificates) || len(plan.ResizedDicts) != 1 {
		t.Errorf("ResizedDicts = %v, want configuration_data", plan.ResizedDicts)
	}
	want := "lua_shared_dict configuration_data resized from 64 MiB to 128 MiB: the Lua payloads need more room"
	if len(plan.Reasons) != 1 || plan.Reasons[0].String() != want {
		t.Errorf("reasons %v, want [%s]", plan.Reasons, want)
	}
	if same := ksync.NewPlan(st(c, dictsConf("64m")), st(c, dictsConf("64m"))); len(same.ResizedDicts) != 0 {
		t.Errorf("same sizes: ResizedDicts = %v", same.ResizedDicts)
	}
}

func TestApplyPreloadsAndSkipsTheBridgeOfAResizedDict(t *testing.T) {
	running := st(config([]string{"a.example"}, true, "ns-a-80", "ns-old-80"), dictsConf("64m"))
	desired := st(config([]string{"a.example", "b.example"}, true, "ns-a-80", "ns-b-80"), dictsConf("128m"))
	for _, c := range []struct {
		name             string
		running, desired ksync.State
		want             []string
	}{
		{
			name:    "start: preload, then start, then push",
			running: ksync.State{}, desired: desired,
			want: []string{
				"preload ns-a-80,ns-b-80 certs ns/a.example,ns/b.example",
				"reload " + string(desired.NGINXConf),
				"backends ns-a-80,ns-b-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
			},
		},
		{
			name:    "reload resizing configuration_data: no backends bridge into the old zone",
			running: running, desired: desired,
			want: []string{
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
				"preload ns-a-80,ns-b-80 certs ns/a.example,ns/b.example",
				"reload " + string(desired.NGINXConf),
				"backends ns-a-80,ns-b-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
			},
		},
		{
			name:    "reload of the same sizes: the full bridge",
			running: running, desired: ksync.State{Config: desired.Config, NGINXConf: []byte(dictsConf("64m") + "\n# other")},
			want: []string{
				"backends ns-a-80,ns-b-80,ns-old-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
				"preload ns-a-80,ns-b-80 certs ns/a.example,ns/b.example",
				"reload " + dictsConf("64m") + "\n# other",
				"backends ns-a-80,ns-b-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := &preloadingNginx{}
			plan := ksync.NewPlan(c.running, c.desired)
			if err := ksync.Apply(t.Context(), plan, c.running, c.desired, n, n, nil); err != nil {
				t.Fatal(err)
			}
			if strings.Join(n.calls, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(n.calls, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
