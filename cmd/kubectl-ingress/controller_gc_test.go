package main

import (
	"runtime/debug"
	"testing"
)

// TestSetControllerGC: the controller collects at 50 % (20 % in whole
// builds) unless GOGC is set, which the Go runtime has applied already and
// which then holds throughout.
func TestSetControllerGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	whole := setControllerGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != controllerGCPercent || whole != wholeBuildGCPercent {
		t.Errorf("GOGC unset: GC percent %d, %d in whole builds; want %d, %d", got, whole, controllerGCPercent, wholeBuildGCPercent)
	}
	whole = setControllerGC(func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 || whole != 0 {
		t.Errorf("GOGC set: GC percent %d, %d in whole builds; want the runtime's (100 here), 0 (left alone)", got, whole)
	}
}
