package controller

import (
	"fmt"
	"os"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// BenchmarkSyncNewIngress measures the steps of a sync after the
// Snapshot, as syncOnce takes them in Lua routing, on a generated cluster
// of BENCH_INGRESSES Ingresses (default 10,000): the incremental build,
// the dict sizes (DictsCache), the desired State (StateCache) and the
// Plan against the running State. Each iteration adds an Ingress with a
// new host on an existing Service, or removes it again; every sync is
// dynamic. Run:
//
//	BENCH_INGRESSES=100000 go test ./pkg/controller -run '^$' -bench BenchmarkSyncNewIngress -benchtime 20x -benchmem
func BenchmarkSyncNewIngress(b *testing.B) {
	s := benchSnapshot(b)
	added := s.Ingresses[1].DeepCopy()
	added.Name += "-added"
	added.Spec.Rules = added.Spec.Rules[:1]
	added.Spec.Rules[0].Host = "added.example.com"
	added.Spec.TLS = nil
	withAdded := s
	withAdded.Ingresses = append(append([]*networkingv1.Ingress(nil), s.Ingresses...), added)

	opts := render.DefaultOptions()
	conf := luaConfOptions()
	var (
		inc     render.Incremental
		dicts   luaapi.DictsCache
		cache   ksync.StateCache
		running ksync.State
	)
	step := func(snap render.Snapshot) ksync.Plan {
		cfg, _ := inc.Build(snap, opts)
		o := conf
		d, err := dicts.DictsFor(cfg, luaapi.DictSizesOf(running.NGINXConf))
		if err != nil {
			b.Fatal(err)
		}
		o.LuaDicts = nginxconf.LuaDicts(d)
		o.LuaRouting = ksync.RunningLuaRouting(running.NGINXConf)
		desired, err := ksync.DesiredStateWith(cfg, o, &cache)
		if err != nil {
			b.Fatal(err)
		}
		plan := ksync.NewPlan(running, desired)
		running = desired
		return plan
	}
	step(s)
	b.ResetTimer()
	for i := range b.N {
		next := s
		if i%2 == 0 {
			next = withAdded
		}
		plan := step(next)
		if inc.Last.Whole {
			b.Fatalf("built whole: %s", inc.Last.Why)
		}
		if plan.Verdict != ksync.DynamicOnly || len(plan.Routes.Hosts)+len(plan.Routes.Delete) != 1 {
			b.Fatalf("plan %v, %d hosts posted, %d deleted: %v", plan.Verdict, len(plan.Routes.Hosts), len(plan.Routes.Delete), plan.Reasons)
		}
	}
}

// BenchmarkDesiredStateFirst measures the desired State of the first sync
// (an empty StateCache: every route payload encoded and sized) on the
// same generated cluster, as the controller computes it before nginx
// starts. Run:
//
//	BENCH_INGRESSES=100000 go test ./pkg/controller -run '^$' -bench BenchmarkDesiredStateFirst -benchtime 5x -benchmem
func BenchmarkDesiredStateFirst(b *testing.B) {
	cfg, _ := render.Build(benchSnapshot(b), render.DefaultOptions())
	conf := luaConfOptions()
	b.ResetTimer()
	for range b.N {
		var cache ksync.StateCache
		if _, err := ksync.DesiredStateWith(cfg, conf, &cache); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSnapshot reads a genmanifests cluster of BENCH_INGRESSES Ingresses
// (default 10,000).
func benchSnapshot(b *testing.B) render.Snapshot {
	b.Helper()
	n := 10000
	if v := os.Getenv("BENCH_INGRESSES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			b.Fatalf("BENCH_INGRESSES: %v", err)
		}
	}
	dir := b.TempDir()
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	if err := genmanifests.Write(dir, o); err != nil {
		b.Fatal(err)
	}
	res, err := manifest.Read([]string{dir}, manifest.Options{MaxFileSize: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	return res.Snapshot
}

func luaConfOptions() nginxconf.ConfOptions {
	conf := nginxconf.DefaultConfOptions()
	conf.Routing = nginxconf.RoutingLua
	return conf
}
