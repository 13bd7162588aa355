package main

import (
	"runtime/debug"
	"testing"
)

// TestSetControllerGC: the controller collects at 50 % unless GOGC is set,
// which the Go runtime has applied already.
func TestSetControllerGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	setControllerGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != controllerGCPercent {
		t.Errorf("GOGC unset: GC percent %d, want %d", got, controllerGCPercent)
	}
	setControllerGC(func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent %d, want the runtime's (100 here)", got)
	}
}
