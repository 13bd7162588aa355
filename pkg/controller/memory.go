package controller

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
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
//   - after any sync that leaves more free heap than returnFreeShare of
//     the heap objects, and at least returnFreeMin.
//
// Smaller heaps are left to Go's scavenger: a collection of their own
// would cost more than it returns. Returns are returnInterval apart at
// least: each is a collection of the whole heap (about a second of CPU at
// 100,000 Ingresses), and a burst of small syncs would otherwise pay one
// every few syncs.
const (
	returnWholeMin  = 256 << 20
	returnFreeMin   = 128 << 20
	returnFreeShare = 4 // free > objects/returnFreeShare
	returnInterval  = 30 * time.Second
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

// afterSync starts a return of the free heap memory when there is enough
// of it (whole: the sync built the whole config), none is under way and
// the last one started returnInterval ago; it reports whether it started
// one.
func (m *memoryReturner) afterSync(whole bool) bool {
	read, free := m.read, m.free
	if read == nil {
		read = readHeapMetrics
	}
	if free == nil {
		free = debug.FreeOSMemory
	}
	heapFree, objects := read()
	enough := heapFree >= returnFreeMin && heapFree >= objects/returnFreeShare
	if whole {
		enough = enough || heapFree+objects >= returnWholeMin
	}
	if !enough {
		return false
	}
	now := time.Now
	if m.now != nil {
		now = m.now
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
