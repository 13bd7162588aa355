package controller

import (
	"runtime"
	"testing"
	"time"
)

// fakeReturner is a memoryReturner on a fake heap and clock, whose returns
// wait for release.
type fakeReturner struct {
	*memoryReturner
	heapFree, objects uint64
	clock             time.Time
	started, finished chan struct{}
	release           chan struct{}
}

func newFakeReturner() *fakeReturner {
	f := &fakeReturner{
		clock:    time.Unix(1000, 0),
		started:  make(chan struct{}, 4),
		finished: make(chan struct{}, 4),
		release:  make(chan struct{}),
	}
	f.memoryReturner = &memoryReturner{
		now:  func() time.Time { return f.clock },
		read: func() (uint64, uint64) { return f.heapFree, f.objects },
		free: func() { f.started <- struct{}{}; <-f.release },
		done: func() { f.finished <- struct{}{} },
	}
	return f
}

// finish lets the running return end, waits for it and moves the clock
// past returnInterval.
func (f *fakeReturner) finish() {
	<-f.started
	close(f.release)
	<-f.finished
	f.release = make(chan struct{})
	f.clock = f.clock.Add(returnInterval)
}

// TestMemoryReturner: a return starts only with enough heap (after a whole
// build: its size; when quiet: the free part, both bounds), never two at
// once nor within returnInterval of the last, and the runtime's own reader
// and free work.
func TestMemoryReturner(t *testing.T) {
	f := newFakeReturner()
	f.heapFree, f.objects = returnFreeMin*8, returnFreeMin*8
	if f.afterSync(false) {
		t.Error("a sync that built only the changed Ingresses started a return")
	}
	f.heapFree, f.objects = 0, returnWholeMin-1
	if f.afterSync(true) {
		t.Error("a whole build with a small heap: a return started")
	}
	f.heapFree, f.objects = 1, returnWholeMin-1
	if !f.afterSync(true) {
		t.Fatal("a whole build with a large heap: no return started")
	}
	f.finish()

	for _, c := range []struct{ free, objects uint64 }{
		{returnFreeMin - 1, 0}, // below the minimum
		{returnFreeMin, returnFreeMin*returnFreeShare + returnFreeShare}, // below the share of the objects
	} {
		f.heapFree, f.objects = c.free, c.objects
		if f.whenQuiet() {
			t.Errorf("quiet, free %d, objects %d: a return started", c.free, c.objects)
		}
	}
	f.heapFree, f.objects = returnFreeMin, returnFreeMin*returnFreeShare
	if !f.whenQuiet() {
		t.Fatal("quiet, free at both bounds: no return started")
	}
	if f.whenQuiet() || f.afterSync(true) {
		t.Error("a second return started while one runs")
	}
	<-f.started
	close(f.release)
	<-f.finished
	f.release = make(chan struct{})
	if f.whenQuiet() {
		t.Error("a return started less than returnInterval after the last one")
	}
	f.clock = f.clock.Add(returnInterval)
	if !f.whenQuiet() {
		t.Error("no return started returnInterval after the last one")
	}
	f.finish()

	// The runtime's: after a large garbage, the free heap is returned.
	garbage := make([][]byte, 0, 64)
	for range 64 {
		garbage = append(garbage, make([]byte, 4<<20))
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	runtime.GC()
	before, _ := readHeapMetrics()
	if before < returnFreeMin {
		t.Fatalf("free heap after 256 MiB of garbage: %d bytes", before)
	}
	real := &memoryReturner{done: func() { f.finished <- struct{}{} }}
	if !real.whenQuiet() {
		t.Fatalf("free heap %d bytes: no return started", before)
	}
	<-f.finished
	if after, _ := readHeapMetrics(); after >= before/2 {
		t.Errorf("free heap %d bytes before, %d after the return, want it mostly returned", before, after)
	}
}

// TestQuietCheck: the memory is returned only after a period without a
// sync, and not while one runs.
func TestQuietCheck(t *testing.T) {
	f := newFakeReturner()
	f.heapFree, f.objects = returnFreeMin, 0
	c := &Controller{}
	c.memory.read, c.memory.now = f.read, f.now
	c.memory.free = func() {}
	c.memory.done = func() { f.finished <- struct{}{} }
	c.syncing.Store(true)
	last, started := c.quietCheck(0)
	if started {
		t.Error("a return started while a sync runs")
	}
	c.syncing.Store(false)
	c.syncs.Add(1)
	if last, started = c.quietCheck(last); started {
		t.Error("a return started with a sync since the last check")
	}
	if last, started = c.quietCheck(last); !started {
		t.Fatal("no return after a quiet period")
	}
	<-f.finished
	if last != 1 {
		t.Errorf("quietCheck returned %d syncs, want 1", last)
	}
}
