package controller

import (
	"runtime/debug"
	"sync"
)

// A whole build (the first config, a ConfigMap change, a change of many
// EndpointSlices) and its apply run with the garbage collector's target
// lowered to Config.WholeBuildGCPercent: that is when the controller's
// heap peaks, and its peak is what a pod's memory limit must hold. The
// first sync is lowered from the start, with the source's first reading
// of the manifests; a later whole build from its start when the builder
// knows ahead that it will be whole (a ConfigMap, Secret or IngressClass
// changed: render.Incremental.WholeAhead), else from the moment the build
// says it was, through its apply; and any sync while nginx is not started
// (a retry of a first sync that failed, a start after the master exited),
// which preloads every payload. Small syncs keep the process's target:
// lowering it makes the collector run at once, which costs a new Ingress
// its latency.
//
// Measured at 100,000 Ingresses (the controller's RSS sampled every
// 0.1 s): the first config peaks at 1,430 MiB in 16.9 s with GOGC 50
// throughout, at 1,254 MiB in 19.9 s with 20 in the whole build (10:
// 1,286 MiB in 22.6 s, the heap is mostly live by then); a ConfigMap
// change peaks at 2,291 MiB, synced in 10.1 s, with 50; at 1,941 MiB in
// 12.2 s with 20 from the build's end; at 1,812 MiB in 13.8 s with 20
// from its start (WholeAhead).

// buildGC lowers the GC percent while a whole build runs. Its zero value
// leaves the collector alone.
type buildGC struct {
	// percent is the GC percent of a whole build; 0 leaves it alone.
	percent int
	// set is debug.SetGCPercent (tests replace it).
	set func(int) int

	mu      sync.Mutex
	lowered bool
	saved   int // the percent to restore
}

func newBuildGC(percent int) *buildGC {
	return &buildGC{percent: percent, set: debug.SetGCPercent}
}

// lower sets the build's percent, unless the process's is lower already
// (or the collector is off) or it is lowered.
func (g *buildGC) lower() {
	if g == nil || g.percent <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lowered {
		return
	}
	prev := g.set(g.percent)
	if prev < 0 || prev <= g.percent {
		g.set(prev)
		return
	}
	g.lowered, g.saved = true, prev
}

// restore sets the percent lower found, if it lowered it.
func (g *buildGC) restore() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lowered {
		g.set(g.saved)
		g.lowered = false
	}
}
