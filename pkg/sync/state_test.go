package sync_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

func hostNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("host-%05d.example.com", i)
	}
	return out
}

// TestDesiredStateLuaRouting: the route payloads come with the fixed
// nginx.conf; routes_data grows (a reload that names it, then every route
// posted into the new zone) only when the routes outgrow it, and keeps its
// size when they shrink a little.
func TestDesiredStateLuaRouting(t *testing.T) {
	o := nginxconf.DefaultConfOptions()
	o.Routing = nginxconf.RoutingLua
	desired := func(running ksync.State, n int) ksync.State {
		t.Helper()
		oo := o
		oo.LuaRouting = ksync.RunningLuaRouting(running.NGINXConf)
		s, err := ksync.DesiredState(config(hostNames(n), false), oo)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	small := desired(ksync.State{}, 10)
	if len(small.Routes) != 10 {
		t.Fatalf("%d routes for 10 hosts", len(small.Routes))
	}
	if strings.Contains(string(small.NGINXConf), "host-00001") {
		t.Error("nginx.conf names a Lua-routed host")
	}
	if got := luaapi.RoutesDictSizeOf(small.NGINXConf); got != luaapi.DefaultRoutesDict {
		t.Errorf("routes_data %d, want the default %d", got, luaapi.DefaultRoutesDict)
	}
	more := desired(small, 11)
	if p := ksync.NewPlan(small, more); p.Verdict != ksync.DynamicOnly || len(p.Routes.Hosts) != 1 {
		t.Errorf("one more host: %v, %d hosts posted", p.Verdict, len(p.Routes.Hosts))
	}

	big := desired(small, 40000)
	size := luaapi.RoutesDictSizeOf(big.NGINXConf)
	if size <= luaapi.DefaultRoutesDict {
		t.Fatalf("routes_data %d for 40,000 hosts", size)
	}
	p := ksync.NewPlan(small, big)
	if p.Verdict != ksync.ReloadRequired || !p.Resized(luaapi.DictRoutes) {
		t.Fatalf("growth: %v, resized %v", p.Verdict, p.ResizedDicts)
	}
	if !slices.ContainsFunc(p.Reasons, func(r ksync.Reason) bool {
		return r.Reload && strings.HasPrefix(r.Message, "lua_shared_dict routes_data resized")
	}) {
		t.Errorf("no reason names routes_data: %v", p.Reasons)
	}
	// The new zone is empty: every route goes there after the reload, and
	// nothing before it (the old zone could not hold them).
	f := &routedNginx{}
	if err := ksync.Apply(context.Background(), p, small, big, f, f, nil); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) == 0 || !strings.HasPrefix(f.calls[0], "reload") {
		t.Errorf("routes posted before the reload that resizes routes_data: %.60q", f.calls)
	}
	last := f.calls[len(f.calls)-1]
	if !strings.HasPrefix(last, "routes ") || strings.Count(last, ",")+1 != 40000 {
		t.Errorf("after the reload: %.80q, want the 40,000 hosts", last)
	}
	if fewer := desired(big, 39000); luaapi.RoutesDictSizeOf(fewer.NGINXConf) != size {
		t.Errorf("routes_data %d → %d for 1,000 hosts fewer", size, luaapi.RoutesDictSizeOf(fewer.NGINXConf))
	}
}
