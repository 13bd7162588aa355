package controller

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func requestRegistry(t *testing.T, o RequestMetricsOptions, series []RequestSeries) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(newRequestCollector(testIdentity, o, func() ([]RequestSeries, error) { return series, nil }))
	return reg
}

// three requests: two 200 (0.003 s and 0.2 s) and one 404 (7 s) on
// a.example.com, one to a host no Ingress defines.
func sampleSeries() []RequestSeries {
	return []RequestSeries{
		{Host: "a.example.com", Status: "200", Method: "GET", Path: "/", Namespace: "web", Ingress: "a", Service: "svc", Defined: true, Requests: 2,
			Observations: map[string]Observation{"request_duration_seconds": {Sum: 0.203, Counts: []uint64{1, 0, 0, 0, 0, 1}}}},
		{Host: "a.example.com", Status: "404", Method: "GET", Path: "/", Namespace: "web", Ingress: "a", Service: "svc", Defined: true, Requests: 1,
			Observations: map[string]Observation{"request_duration_seconds": {Sum: 7, Counts: []uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}}},
		{Host: "evil.example.com", Status: "404", Method: "GET", Requests: 5},
		{Host: "other.evil", Status: "404", Method: "GET", Requests: 2},
	}
}

const reqLabels = `canary="",` + testConst + `,host="a.example.com",ingress="a",method="GET",namespace="web",path="/",service="svc"`

func TestRequestMetricsDefaults(t *testing.T) {
	reg := requestRegistry(t, DefaultRequestMetricsOptions(), sampleSeries())
	want := `# HELP nginx_ingress_controller_requests x
# TYPE nginx_ingress_controller_requests counter
nginx_ingress_controller_requests{` + reqLabels + `,status="200"} 2
nginx_ingress_controller_requests{` + reqLabels + `,status="404"} 1
# HELP nginx_ingress_controller_request_duration_seconds x
# TYPE nginx_ingress_controller_request_duration_seconds histogram
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.005"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.01"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.025"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.05"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.1"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.25"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="0.5"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="1"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="2.5"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="5"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="10"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="200",le="+Inf"} 2
nginx_ingress_controller_request_duration_seconds_sum{` + reqLabels + `,status="200"} 0.203
nginx_ingress_controller_request_duration_seconds_count{` + reqLabels + `,status="200"} 2
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.005"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.01"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.025"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.05"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.1"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.25"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="0.5"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="1"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="2.5"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="5"} 0
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="10"} 1
nginx_ingress_controller_request_duration_seconds_bucket{` + reqLabels + `,status="404",le="+Inf"} 1
nginx_ingress_controller_request_duration_seconds_sum{` + reqLabels + `,status="404"} 7
nginx_ingress_controller_request_duration_seconds_count{` + reqLabels + `,status="404"} 1
`
	if err := compareGathered(helpless{reg}, want, "nginx_ingress_controller_requests", "nginx_ingress_controller_request_duration_seconds"); err != nil {
		t.Error(err)
	}
}

func TestRequestMetricsOptions(t *testing.T) {
	// Undefined hosts collapse into one series; classes; no host label.
	o := RequestMetricsOptions{PerHost: true, PerUndefinedHost: true, StatusClasses: true, Exclude: []string{"nginx_ingress_controller_request_duration_seconds", "bytes_sent"}}
	reg := requestRegistry(t, o, sampleSeries())
	want := `# HELP nginx_ingress_controller_requests x
# TYPE nginx_ingress_controller_requests counter
nginx_ingress_controller_requests{canary="",` + testConst + `,host="_",ingress="",method="GET",namespace="",path="",service="",status="4xx"} 7
nginx_ingress_controller_requests{` + reqLabels + `,status="2xx"} 2
nginx_ingress_controller_requests{` + reqLabels + `,status="4xx"} 1
`
	if err := compareGathered(helpless{reg}, want, "nginx_ingress_controller_requests"); err != nil {
		t.Error(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if n := f.GetName(); n == "nginx_ingress_controller_request_duration_seconds" || n == "nginx_ingress_controller_bytes_sent" {
			t.Errorf("%s is excluded but exported", n)
		}
	}

	reg = requestRegistry(t, RequestMetricsOptions{}, sampleSeries())
	want = `# HELP nginx_ingress_controller_requests x
# TYPE nginx_ingress_controller_requests counter
nginx_ingress_controller_requests{canary="",` + testConst + `,ingress="a",method="GET",namespace="web",path="/",service="svc",status="200"} 2
nginx_ingress_controller_requests{canary="",` + testConst + `,ingress="a",method="GET",namespace="web",path="/",service="svc",status="404"} 1
`
	if err := compareGathered(helpless{reg}, want, "nginx_ingress_controller_requests"); err != nil {
		t.Error(err)
	}
	// No data (nginx down): no series.
	reg = prometheus.NewRegistry()
	reg.MustRegister(newRequestCollector(testIdentity, o, func() ([]RequestSeries, error) { return nil, errors.New("down") }))
	if err := compareGathered(helpless{reg}, ""); err != nil {
		t.Error(err)
	}
}

func TestRequestMetricsBuckets(t *testing.T) {
	b := RequestHistogramBuckets(RequestMetricsOptions{SizeBuckets: []float64{1, 2}})
	if got := b["bytes_sent"]; len(got) != 2 || got[1] != 2 {
		t.Errorf("bytes_sent buckets %v", got)
	}
	if got := b["request_size"]; len(got) != 10 || got[0] != 10 || got[9] != 100 {
		t.Errorf("request_size buckets %v, want 10…100", got)
	}
	if got := b["request_duration_seconds"]; len(got) != 11 || got[0] != 0.005 || got[10] != 10 {
		t.Errorf("request_duration_seconds buckets %v", got)
	}
	got, err := ParseBuckets("[0.1, 0.5,1]")
	if err != nil || len(got) != 3 || got[1] != 0.5 {
		t.Errorf("ParseBuckets = %v, %v", got, err)
	}
	if _, err := ParseBuckets("1,x"); err == nil {
		t.Error("ParseBuckets accepted x")
	}
	for _, bad := range []RequestMetricsOptions{
		{TimeBuckets: []float64{1, 1}},
		{LengthBuckets: []float64{2, 1}},
		{Exclude: []string{"nginx_ingress_controller_nope"}},
	} {
		if err := ValidateRequestMetricsOptions(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := ValidateRequestMetricsOptions(RequestMetricsOptions{Exclude: []string{"requests", "nginx_ingress_controller_response_size"}}); err != nil {
		t.Error(err)
	}
	if !strings.Contains(requestHistograms()[0].name, "connect") {
		t.Error("order")
	}
}

func TestDecodeMonitor(t *testing.T) {
	body := `[{"host":"a.example.com","status":"200","method":"GET","path":"/","namespace":"web","ingress":"a","service":"svc","canary":"","requests":3,
	  "obs":{"request_duration_seconds":{"sum":0.5,"counts":{"1":2,"12":1,"99":5,"x":1}},"unknown":{"sum":1,"counts":{"1":1}}}},
	 {"host":"_","status":"404","method":"GET","path":"","namespace":"","ingress":"","service":"","canary":"","requests":4,"obs":{}},
	 {"host":"_","status":"200","method":"GET","path":"/","namespace":"web","ingress":"nohost","service":"svc","canary":"","requests":1,"obs":{}}]`
	got, err := decodeMonitor([]byte(body), RequestHistogramBuckets(DefaultRequestMetricsOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Requests != 3 || !got[0].Defined || got[1].Defined || !got[2].Defined {
		t.Fatalf("got %+v", got)
	}
	obs := got[0].Observations["request_duration_seconds"]
	// 11 bounds: index 12 is above the last; 99 and "x" are ignored.
	if len(obs.Counts) != 12 || obs.Counts[0] != 2 || obs.Counts[11] != 1 || obs.Sum != 0.5 {
		t.Errorf("observation %+v", obs)
	}
	if _, ok := got[0].Observations["unknown"]; ok {
		t.Error("a histogram the exporter does not know was kept")
	}
	if _, err := decodeMonitor([]byte("<html>"), nil); err == nil {
		t.Error("not JSON accepted")
	}
}
