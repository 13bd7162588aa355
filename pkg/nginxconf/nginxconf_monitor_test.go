package nginxconf_test

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func monitorConf(t *testing.T, input string, buckets map[string][]float64) string {
	t.Helper()
	res, err := manifest.Read([]string{"../../testdata/render/" + input + "/input.yaml"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := render.Build(res.Snapshot, render.DefaultOptions())
	o := nginxconf.DefaultConfOptions()
	o.RequestMetricBuckets = buckets
	conf, err := nginxconf.NGINXConf(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return string(conf)
}

// TestMonitorConf: with RequestMetricBuckets the writer adds the monitor
// (dict, init with the buckets, worker timer, log phase, the status
// server's location, no counting of the status server) and every Ingress
// location sets the label variables; declared once even where the log
// format declares them too. Without, nothing of it (the goldens).
func TestMonitorConf(t *testing.T) {
	buckets := map[string][]float64{"request_duration_seconds": {0.005, 10}, "bytes_sent": {10, 1e+06}, "bad name;": {1}}
	for _, input := range []string{"access-log", "configmap-logging"} {
		conf := monitorConf(t, input, buckets)
		for _, want := range []string{
			"lua_shared_dict monitor_data 16m;",
			`monitor = require("monitor") monitor.init({bytes_sent = {10, 1e+06}, request_duration_seconds = {0.005, 10}, })`,
			"monitor.init_worker()",
			"monitor.call()",
			"location = /monitor/requests {",
			"monitor.serve()",
		} {
			if !strings.Contains(conf, want) {
				t.Errorf("%s: no %q", input, want)
			}
		}
		if strings.Contains(conf, "bad name") {
			t.Errorf("%s: a bucket name that is not [a-z_] was written", input)
		}
		for _, v := range []string{"$namespace", "$ingress_name", "$service_name", "$location_path"} {
			if n := strings.Count(conf, `map "" `+v+" {"); n != 1 {
				t.Errorf("%s: %s declared %d times, want 1", input, v, n)
			}
		}
		if !strings.Contains(conf, `set $namespace "`) || !strings.Contains(conf, `set $ingress_name "`) || !strings.Contains(conf, `set $service_name "`) {
			t.Errorf("%s: the Ingress locations do not set the label variables", input)
		}
		off := monitorConf(t, input, nil)
		if strings.Contains(off, "monitor") {
			t.Errorf("%s: monitor lines without RequestMetricBuckets", input)
		}
	}
}
