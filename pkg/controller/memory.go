package controller

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// The heap memory that a large sync leaves free is given back to the
// operating system at once rather than over minutes. A whole build (the
// first config, a ConfigMap change, a change of many EndpointSlices) holds
// the old and the new model together for a moment: at 100,000 Ingresses
// the heap peaks near three times what stays live, and Go's background
// scavenger returns the difference slowly (about 1 % of a CPU), so the
// process kept about 2.5 times its live heap as RSS long after the sync.
// One collection returns it, in the background (one at a time), so that
// the next sync does not wait for it:
//   - after a whole build, when the heap holds at least returnWholeMin
//     (the old model is garbage then: the collection finds it);
//   - when the controller is quiet (no sync for returnCheck), if the free
//     heap is more than returnFreeShare of the heap objects and at least
//     returnFreeMin: what a run of small syncs left.
//
// Smaller heaps are left to Go's scavenger: a collection of their own
// would cost more than it returns. Returns are returnInterval apart at
// least: each is a collection of the whole heap (about 1.35 GB live at
// 100,000 Ingresses). Returning after small syncs as well cost a burst of
// new Ingresses about 100 ms at the median (hack/bench-controller.sh).
const (
	returnWholeMin  = 256 << 20
	returnFreeMin   = 128 << 20
	returnFreeShare = 4 // free > objects/returnFreeShare
	returnInterval  = 30 * time.Second
	returnCheck     = 10 * time.Second
)

// heapFreeMetric is the free heap memory not returned to the system yet,
// heapObjectsMetric the memory of heap objects, live or not yet swept.
const (
	heapFreeMetric    = "/memory/classes/heap/free:bytes"
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
)

// memoryReturner decides after each sync whether to return the free heap
// memory to the system. Its zero value reads the runtime's metrics and
// calls debug.FreeOSMemory.
type memoryReturner struct {
	// read returns the free and the object bytes of the heap; free returns
	// the free memory to the system; now is the clock. nil: the runtime's
	// and time.Now (tests set them).
	read func() (free, objects uint64)
	free func()
	now  func() time.Time

	mu      sync.Mutex
	running bool
	last    time.Time // when the last return started
	// done, when set, is called after each return (tests).
	done func()
}

// afterSync starts a return after a sync that built the whole config
// (whole) when the heap is large enough; it reports whether it started one.
func (m *memoryReturner) afterSync(whole bool) bool {
	if !whole {
		return false
	}
	return m.start(func(free, objects uint64) bool { return free+objects >= returnWholeMin })
}

// whenQuiet starts a return when the free heap is large enough; it
// reports whether it started one.
func (m *memoryReturner) whenQuiet() bool {
	return m.start(func(free, objects uint64) bool {
		return free >= returnFreeMin && free >= objects/returnFreeShare
	})
}

// start starts a return when enough says so of the heap's free and object
// bytes, none is under way and the last one started returnInterval ago.
func (m *memoryReturner) start(enough func(free, objects uint64) bool) bool {
	read, free, now := m.read, m.free, m.now
	if read == nil {
		read = readHeapMetrics
	}
	if free == nil {
		free = debug.FreeOSMemory
	}
	if now == nil {
		now = time.Now
	}
	if !enough(read()) {
		return false
	}
	t := now()
	m.mu.Lock()
	if m.running || (!m.last.IsZero() && t.Sub(m.last) < returnInterval) {
		m.mu.Unlock()
		return false
	}
	m.running, m.last = true, t
	done := m.done
	m.mu.Unlock()
	go func() {
		free()
		m.mu.Lock()
		m.running = false
		m.mu.Unlock()
		if done != nil {
			done()
		}
	}()
	return true
}

// returnMemoryWhenQuiet runs quietCheck every period until ctx ends.
func (c *Controller) returnMemoryWhenQuiet(ctx context.Context, period time.Duration) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	last := c.syncs.Load()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var started bool
		if last, started = c.quietCheck(last); started {
			klog.FromContext(ctx).V(2).Info("Returning the free heap memory to the system", "after", "a quiet "+period.String())
		}
	}
}

// quietCheck lets the memory returner see the free heap (whenQuiet) when
// no sync ran since the check that saw last syncs and none runs; it
// returns the syncs now, and whether a return started.
func (c *Controller) quietCheck(last uint64) (uint64, bool) {
	n := c.syncs.Load()
	return n, n == last && !c.syncing.Load() && c.memory.whenQuiet()
}

// readHeapMetrics reads heapFreeMetric and heapObjectsMetric (no stop of
// the world, unlike runtime.ReadMemStats).
func readHeapMetrics() (free, objects uint64) {
	samples := []metrics.Sample{{Name: heapFreeMetric}, {Name: heapObjectsMetric}}
	metrics.Read(samples)
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			continue
		}
		if i == 0 {
			free = s.Value.Uint64()
		} else {
			objects = s.Value.Uint64()
		}
	}
	return free, objects
}
