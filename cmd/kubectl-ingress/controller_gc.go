package main

import "runtime/debug"

// controllerGCPercent is the controller's garbage collection target
// (GOGC) when the environment sets none: 50, half of Go's default. The
// controller's heap is mostly the model of the whole cluster, kept from
// sync to sync; with Go's default the process grows to about three times
// that between collections. At 100,000 Ingresses (hack/bench-controller.sh,
// three runs each) 50 holds the RSS after the new Ingresses at 2.8-2.9 GB
// instead of 3.5-3.9 GB and its peak at 3.7 GB instead of 5.2-5.5 GB, with
// the same p99 for a new Ingress (0.53-0.61 s); 25 costs the latency (p99
// 0.78 s, a 2.2 s maximum). GOGC and GOMEMLIMIT in the environment are
// Go's own and win.
const controllerGCPercent = 50

// wholeBuildGCPercent is the garbage collection target during a whole
// build and its apply (controller.Config.WholeBuildGCPercent), when the
// environment sets no GOGC: 20, where the heap peaks (at 100,000
// Ingresses the first config peaks at 1,331 MiB instead of 1,480 MiB, and
// is served in 17.0 s instead of 15.0 s).
const wholeBuildGCPercent = 20

// setControllerGC applies controllerGCPercent unless getenv gives GOGC;
// it returns the GC percent of a whole build: wholeBuildGCPercent, or 0
// (the collector left alone) under GOGC.
func setControllerGC(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		return 0
	}
	debug.SetGCPercent(controllerGCPercent)
	return wholeBuildGCPercent
}
