package nginxconf

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The per-request metrics of lua/monitor.lua, on when
// ConfOptions.RequestMetricBuckets is set (the controller sets it; render
// and the goldens leave it off): a shared dict, the module's init, its
// worker timer and its log phase, the per-location variables of the
// labels in every location, and GET /monitor/requests on the status
// server.

// MonitorPath is the status server's location of the request metrics.
const MonitorPath = "/monitor/requests"

// monitorVars are the per-location variables monitor.lua reads; every
// Ingress location sets them (writeLogLocationVars) and they are declared
// empty at http level for the others.
var monitorVars = []string{"ingress_name", "location_path", "namespace", "service_name"}

func monitorOn(o ConfOptions) bool { return len(o.RequestMetricBuckets) > 0 }

func writeMonitorDict(w *confWriter, o ConfOptions) {
	if monitorOn(o) {
		w.line("lua_shared_dict", "monitor_data", "16m")
	}
}

// writeMonitorInit is in init_by_lua: the buckets are numbers the
// controller made, written as a Lua table.
func writeMonitorInit(w *confWriter, o ConfOptions) {
	if !monitorOn(o) {
		return
	}
	names := make([]string, 0, len(o.RequestMetricBuckets))
	for n := range o.RequestMetricBuckets {
		if isMetricName(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(`monitor = require("monitor") monitor.init({`)
	for _, n := range names {
		b.WriteString(n + " = {")
		for i, v := range o.RequestMetricBuckets[n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteString("}, ")
	}
	b.WriteString("})")
	w.raw(b.String())
}

// isMetricName allows [a-z_] only: the names are the controller's.
func isMetricName(n string) bool {
	if n == "" {
		return false
	}
	for _, r := range n {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

func writeMonitorWorker(w *confWriter, o ConfOptions) {
	if monitorOn(o) {
		w.raw(`monitor.init_worker()`)
	}
}

func writeMonitorLog(w *confWriter, o ConfOptions) {
	if monitorOn(o) {
		w.raw(`monitor.call()`)
	}
}

// writeMonitorVars declares the label variables that the log format does
// not declare already (writeAccessLog).
func writeMonitorVars(w *confWriter, g model.Global, o ConfOptions) {
	if !monitorOn(o) {
		return
	}
	for _, v := range monitorVars {
		if logFormatReads(g.Logging.FormatUpstream, v) {
			continue
		}
		w.open("map", `""`, "$"+v)
		w.line("default", `""`)
		w.close()
	}
	// The method label: ingress-nginx's list, anything else OTHER.
	w.open("map", "$request_method", "$kubectl_ingress_monitor_method")
	w.line("default", "OTHER")
	for _, m := range monitorMethods {
		w.line(m, m)
	}
	w.close()
	// Everything monitor.call reads, in one variable that nginx computes
	// in C when the log phase reads it: one variable read from Lua per
	// request instead of a dozen.
	w.open("map", `""`, "$kubectl_ingress_monitor")
	w.line("default", w.q(monitorRecord))
	w.close()
}

// monitorMethods are the methods that are their own method label.
var monitorMethods = []string{"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"}

// monitorRecord is the value of $kubectl_ingress_monitor that
// lua/monitor.lua splits: the numbers its histograms observe, each
// followed by "|" (no number holds one; an upstream time of several tries
// holds ", " and " : "), then the labels separated by one space (none
// holds white space: paths, names and host names cannot), in the order
// monitor.lua's LABELS has them after the host, which comes first.
const monitorRecord = "$request_time|$request_length|$bytes_sent|$upstream_connect_time|$upstream_header_time|$upstream_response_time|" +
	"$server_name $status $kubectl_ingress_monitor_method $location_path $namespace $ingress_name $service_name"

func writeMonitorLocation(w *confWriter, o ConfOptions) {
	if !monitorOn(o) {
		return
	}
	// The status server's own requests (Lua pushes, checksum polls,
	// scrapes) are not client traffic: not counted.
	w.open("log_by_lua_block")
	w.raw(`return`)
	w.close()
	w.open("location", "=", MonitorPath)
	w.open("content_by_lua_block")
	w.raw(`monitor.serve()`)
	w.close()
	w.close()
}
