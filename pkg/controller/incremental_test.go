package controller

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// TestIncrementalStateMatchesWhole holds what the loop computes from sync
// to sync (render.Incremental, then ksync.DesiredStateWith with the cache
// it keeps, and the Lua dicts' need through its luaapi.DictsCache) to a
// whole render.Build, DesiredState and luaapi.Needs, in Lua routing: the
// same nginx.conf, route payloads and dict needs after every step, each
// Ingress of every render golden and corpus case removed and put back.
func TestIncrementalStateMatchesWhole(t *testing.T) {
	goldens, _ := filepath.Glob("../../testdata/render/*/input.yaml")
	corpus, _ := filepath.Glob("../../testdata/corpus/cases/*.yaml")
	if len(goldens) < 50 || len(corpus) < 100 {
		t.Fatalf("found %d render goldens and %d corpus cases", len(goldens), len(corpus))
	}
	ro := render.DefaultOptions()
	ro.ReportSkipped = true
	co := nginxconf.DefaultConfOptions()
	co.Routing = nginxconf.RoutingLua
	reused, splitReused, encoded := 0, 0, 0
	for _, in := range append(goldens, corpus...) {
		res, err := manifest.Read([]string{in}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Snapshot
		var inc render.Incremental
		var cache ksync.StateCache
		var dicts luaapi.DictsCache
		step := func(what string, next render.Snapshot) {
			t.Helper()
			cfg, _ := inc.Build(next, ro)
			got, err := ksync.DesiredStateWith(cfg, co, &cache)
			if err != nil {
				t.Fatalf("%s, %s: %v", in, what, err)
			}
			reused += cache.Routes.Reused
			splitReused += cache.Split.Reused
			gotNeed, err := dicts.Needs(cfg)
			if err != nil {
				t.Fatalf("%s, %s: %v", in, what, err)
			}
			encoded += dicts.Encoded
			wantCfg, _ := render.Build(next, ro)
			want, err := ksync.DesiredState(wantCfg, co)
			if err != nil {
				t.Fatalf("%s, %s: %v", in, what, err)
			}
			if !bytes.Equal(got.NGINXConf, want.NGINXConf) {
				t.Fatalf("%s, %s: nginx.conf differs from a whole build's", in, what)
			}
			if wantNeed, _ := luaapi.Needs(luaapi.FromModel(wantCfg)); gotNeed != wantNeed {
				t.Fatalf("%s, %s: the dicts need %+v, a whole build's %+v", in, what, gotNeed, wantNeed)
			}
			if !reflect.DeepEqual(got.Routes, want.Routes) {
				t.Fatalf("%s, %s: route payloads differ from a whole build's:\n got %+v\nwant %+v", in, what, got.Routes, want.Routes)
			}
		}
		step("start", s)
		for i, ing := range s.Ingresses {
			without := s
			without.Ingresses = append(append([]*networkingv1.Ingress(nil), s.Ingresses[:i]...), s.Ingresses[i+1:]...)
			step("without "+ing.Namespace+"/"+ing.Name, without)
			step("back", s)
		}
	}
	if reused < 1000 || splitReused < 1000 {
		t.Errorf("the routes cache reused %d payloads and the split cache %d servers over all steps: the test does not exercise them", reused, splitReused)
	}
	t.Logf("the routes cache reused %d payloads, the split cache %d servers; the dicts cache encoded %d backends", reused, splitReused, encoded)
}
