package controller

import (
	"runtime"
	"testing"
	"time"
)

// TestMemoryReturner: a return starts only with enough free heap (both
// bounds, or the heap's size after a whole build), never two at once nor
// within returnInterval of the last, and the runtime's own reader and free
// work.
func TestMemoryReturner(t *testing.T) {
	var heapFree, objects uint64
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	finished := make(chan struct{}, 4)
	clock := time.Unix(1000, 0)
	m := &memoryReturner{
		now:  func() time.Time { return clock },
		read: func() (uint64, uint64) { return heapFree, objects },
		free: func() { started <- struct{}{}; <-release },
		done: func() { finished <- struct{}{} },
	}
	for _, c := range []struct {
		free, objects uint64
	}{
		{returnFreeMin - 1, 0}, // below the minimum
		{returnFreeMin, returnFreeMin*returnFreeShare + returnFreeShare}, // below the share of the live heap
	} {
		heapFree, objects = c.free, c.objects
		if m.afterSync(false) {
			t.Errorf("free %d, objects %d: a return started", c.free, c.objects)
		}
	}
	// after a whole build, the heap's size alone decides
	heapFree, objects = 0, returnWholeMin-1
	if m.afterSync(true) {
		t.Error("a whole build with a small heap: a return started")
	}
	heapFree, objects = 1, returnWholeMin-1
	if !m.afterSync(true) {
		t.Fatal("a whole build with a large heap: no return started")
	}
	<-started
	close(release)
	<-finished
	release = make(chan struct{})
	if m.afterSync(true) {
		t.Error("a return started less than returnInterval after the last one")
	}
	clock = clock.Add(returnInterval)

	heapFree, objects = returnFreeMin, returnFreeMin*returnFreeShare
	if !m.afterSync(false) {
		t.Fatal("free at both bounds: no return started")
	}
	<-started
	if m.afterSync(false) {
		t.Error("a second return started while one runs")
	}
	close(release)
	<-finished
	clock = clock.Add(returnInterval)
	if !m.afterSync(false) {
		t.Error("no return started after the last one ended")
	}
	<-started
	<-finished

	// The runtime's: after a large garbage, the free heap is returned.
	garbage := make([][]byte, 0, 64)
	for range 64 {
		garbage = append(garbage, make([]byte, 4<<20))
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	runtime.GC()
	before, _ := readHeapMetrics()
	if before < 128<<20 {
		t.Fatalf("free heap after 256 MiB of garbage: %d bytes", before)
	}
	real := &memoryReturner{done: func() { finished <- struct{}{} }}
	if !real.afterSync(false) {
		t.Fatalf("free heap %d bytes: no return started", before)
	}
	<-finished
	if after, _ := readHeapMetrics(); after >= before/2 {
		t.Errorf("free heap %d bytes before, %d after the return, want it mostly returned", before, after)
	}
}
