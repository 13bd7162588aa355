package controller

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The heap memory that a large sync leaves free is given back to the
// operating system at once rather than over minutes. A whole rebuild (the
// first config, a change of every EndpointSlice) holds the old and the new
// model together for a moment: at 100,000 Ingresses the heap peaks near
// three times what stays live, and Go's background scavenger returns the
// difference slowly, so the process kept about 2.5 times its live heap
// as RSS long after the sync. After a sync that leaves more free heap than
// returnFreeShare of the live objects (and at least returnFreeMin), one
// collection returns it, in the background (one at a time): the next sync
// does not wait for it.
const (
	returnFreeMin   = 128 << 20
	returnFreeShare = 4 // free > live/returnFreeShare
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
	// the free memory to the system. nil: the runtime's (tests set them).
	read func() (free, objects uint64)
	free func()

	mu      sync.Mutex
	running bool
	// done, when set, is called after each return (tests).
	done func()
}

// afterSync starts a return of the free heap memory when there is enough
// of it and none is under way; it reports whether it started one.
func (m *memoryReturner) afterSync() bool {
	read, free := m.read, m.free
	if read == nil {
		read = readHeapMetrics
	}
	if free == nil {
		free = debug.FreeOSMemory
	}
	heapFree, objects := read()
	if heapFree < returnFreeMin || heapFree < objects/returnFreeShare {
		return false
	}
	m.mu.Lock()
	if m.running {
		m.mu.Unlock()
		return false
	}
	m.running = true
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
