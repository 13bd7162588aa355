package controller

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// The per-request metrics of ingress-nginx (its "socket" metrics), built
// from series that nginx's Lua aggregated: RequestSeries. This file is
// the exporter only: names, types, label names and default buckets as
// ingress-nginx, --metrics-per-host, --metrics-per-undefined-host,
// --report-status-classes, --exclude-socket-metrics and the bucket flags.
// The data plane's side is lua/monitor.lua (log_by_lua, aggregated per
// worker, flushed into a shared dict), served on the status server's
// /monitor/requests (pkg/nginxconf/nginxconf_monitor.go).

// Default histogram buckets of ingress-nginx's --time-buckets,
// --length-buckets and --size-buckets.
var (
	DefaultTimeBuckets   = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	DefaultLengthBuckets = []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	DefaultSizeBuckets   = []float64{10, 100, 1000, 10000, 100000, 1e+06, 1e+07}
)

// UndefinedHost is the host label of every request to a host no Ingress
// defines (with --metrics-per-undefined-host): one value, so that clients
// choosing Host headers cannot grow the series.
const UndefinedHost = "_"

// RequestMetricsOptions are ingress-nginx's flags of the request metrics.
type RequestMetricsOptions struct {
	// PerHost adds the host label (--metrics-per-host, default true).
	PerHost bool
	// PerUndefinedHost counts requests to hosts no Ingress defines, under
	// host UndefinedHost (--metrics-per-undefined-host, default false:
	// they are not counted).
	PerUndefinedHost bool
	// StatusClasses reports status as 2xx, 4xx … (--report-status-classes).
	StatusClasses bool
	// Exclude are metric names, with or without the
	// nginx_ingress_controller_ prefix (--exclude-socket-metrics).
	Exclude []string
	// Buckets of the time, length and size histograms; nil: the defaults.
	TimeBuckets, LengthBuckets, SizeBuckets []float64
}

// DefaultRequestMetricsOptions are ingress-nginx's defaults.
func DefaultRequestMetricsOptions() RequestMetricsOptions {
	return RequestMetricsOptions{PerHost: true}
}

// Observation is one histogram's data in a RequestSeries: Counts[i] is
// how many values were ≤ Buckets[i] and above the bound before (not
// cumulative), Counts[len(Buckets)] those above the last bound.
type Observation struct {
	Sum    float64
	Counts []uint64
}

// RequestSeries is the aggregate of the requests that share their labels,
// since nginx started. Label values come from the model through
// per-location variables (namespace, ingress, service, path: the
// Ingress path, never the request's), from the request only for
// status, method and host (the server's name, or UndefinedHost).
type RequestSeries struct {
	Host, Status, Method, Path, Namespace, Ingress, Service, Canary string
	// Defined is false for a request no Ingress host matched.
	Defined bool
	// Requests counts them.
	Requests uint64
	// The histograms, by ingress-nginx's metric name without prefix
	// (request_duration_seconds …); a missing one had no value (no
	// upstream, say).
	Observations map[string]Observation
}

// requestHistogram is one of ingress-nginx's request histograms.
type requestHistogram struct {
	name, help string
	buckets    func(RequestMetricsOptions) []float64
}

func timeBuckets(o RequestMetricsOptions) []float64 {
	return orDefault(o.TimeBuckets, DefaultTimeBuckets)
}
func lengthBuckets(o RequestMetricsOptions) []float64 {
	return orDefault(o.LengthBuckets, DefaultLengthBuckets)
}
func sizeBuckets(o RequestMetricsOptions) []float64 {
	return orDefault(o.SizeBuckets, DefaultSizeBuckets)
}

func orDefault(b, def []float64) []float64 {
	if len(b) == 0 {
		return def
	}
	return b
}

// RequestHistograms are ingress-nginx's request histograms in the order of
// the exporter, with the buckets of each.
func requestHistograms() []requestHistogram {
	return []requestHistogram{
		{"connect_duration_seconds", "Time to establish the connection to the upstream server (seconds).", timeBuckets},
		{"header_duration_seconds", "Time to receive the first header from the upstream server (seconds).", timeBuckets},
		{"response_duration_seconds", "Time to receive the response from the upstream server (seconds).", timeBuckets},
		{"request_duration_seconds", "Time nginx spent on the request (seconds).", timeBuckets},
		{"request_size", "Request length, request line, headers and body included (bytes).", lengthBuckets},
		{"response_size", "Response length, status line, headers and body included (bytes).", lengthBuckets},
		{"bytes_sent", "Bytes sent to the client (deprecated by ingress-nginx; response_size).", sizeBuckets},
	}
}

// RequestHistogramBuckets gives the buckets of each histogram name: what
// the Lua monitor counts into.
func RequestHistogramBuckets(o RequestMetricsOptions) map[string][]float64 {
	m := map[string][]float64{}
	for _, h := range requestHistograms() {
		m[h.name] = h.buckets(o)
	}
	return m
}

// ValidateRequestMetricsOptions checks the buckets (ascending, finite) and
// the excluded names (known metrics).
func ValidateRequestMetricsOptions(o RequestMetricsOptions) error {
	for flag, b := range map[string][]float64{"--time-buckets": o.TimeBuckets, "--length-buckets": o.LengthBuckets, "--size-buckets": o.SizeBuckets} {
		for i := range b {
			if b[i] != b[i] || b[i] > 1e300 || b[i] < -1e300 {
				return fmt.Errorf("%s: %v is not a finite number", flag, b[i])
			}
			if i > 0 && b[i] <= b[i-1] {
				return fmt.Errorf("%s must be in increasing order: %v after %v", flag, b[i], b[i-1])
			}
		}
	}
	known := []string{"requests", "ingress_upstream_latency_seconds"}
	for _, h := range requestHistograms() {
		known = append(known, h.name)
	}
	for _, e := range o.Exclude {
		if !slices.Contains(known, strings.TrimPrefix(e, ingressNginxNamespace+"_")) {
			return fmt.Errorf("--exclude-socket-metrics: unknown metric %q (known: %s)", e, strings.Join(known, ", "))
		}
	}
	return nil
}

// requestCollector exports RequestSeries that source returns at scrape
// time.
type requestCollector struct {
	opts     RequestMetricsOptions
	source   func() ([]RequestSeries, error)
	labels   []string
	requests *prometheus.Desc
	hists    []requestHistogram
	descs    []*prometheus.Desc
}

// requestLabels are ingress-nginx's label names of the request metrics.
func requestLabels(perHost bool) []string {
	l := []string{"status", "method", "path", "namespace", "ingress", "service", "canary"}
	if perHost {
		l = append(l, "host")
	}
	return l
}

func newRequestCollector(id MetricsIdentity, o RequestMetricsOptions, source func() ([]RequestSeries, error)) *requestCollector {
	excluded := func(name string) bool {
		for _, e := range o.Exclude {
			if strings.TrimPrefix(e, ingressNginxNamespace+"_") == name {
				return true
			}
		}
		return false
	}
	c := &requestCollector{opts: o, source: source, labels: requestLabels(o.PerHost)}
	if !excluded("requests") {
		c.requests = prometheus.NewDesc(ingressNginxNamespace+"_requests", "The total number of client requests.", c.labels, id.labels())
	}
	for _, h := range requestHistograms() {
		if excluded(h.name) {
			continue
		}
		c.hists = append(c.hists, h)
		c.descs = append(c.descs, prometheus.NewDesc(ingressNginxNamespace+"_"+h.name, h.help, c.labels, id.labels()))
	}
	return c
}

func (c *requestCollector) Describe(ch chan<- *prometheus.Desc) {
	if c.requests != nil {
		ch <- c.requests
	}
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *requestCollector) Collect(ch chan<- prometheus.Metric) {
	series, err := c.source()
	if err != nil {
		return
	}
	for _, s := range mergeRequestSeries(series, c.opts) {
		values := []string{s.Status, s.Method, s.Path, s.Namespace, s.Ingress, s.Service, s.Canary}
		if c.opts.PerHost {
			values = append(values, s.Host)
		}
		if c.requests != nil {
			ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.Requests), values...)
		}
		for i, h := range c.hists {
			obs, ok := s.Observations[h.name]
			if !ok {
				continue
			}
			buckets := h.buckets(c.opts)
			cum := make(map[float64]uint64, len(buckets))
			var n uint64
			for j, b := range buckets {
				if j < len(obs.Counts) {
					n += obs.Counts[j]
				}
				cum[b] = n
			}
			count := n
			if len(obs.Counts) > len(buckets) {
				count += obs.Counts[len(buckets)]
			}
			m, err := prometheus.NewConstHistogram(c.descs[i], count, obs.Sum, cum, values...)
			if err == nil {
				ch <- m
			}
		}
	}
}

// mergeRequestSeries applies the options to the series: requests to
// undefined hosts are dropped or collapse into UndefinedHost, statuses
// become classes, the host goes without PerHost; series that end up with
// the same labels add up.
func mergeRequestSeries(in []RequestSeries, o RequestMetricsOptions) []RequestSeries {
	index := map[string]int{}
	var out []RequestSeries
	for _, s := range in {
		if !s.Defined {
			if !o.PerUndefinedHost {
				continue
			}
			s.Host = UndefinedHost
		}
		if !o.PerHost {
			s.Host = ""
		}
		if o.StatusClasses && s.Status != "" {
			s.Status = s.Status[:1] + "xx"
		}
		key := strings.Join([]string{s.Host, s.Status, s.Method, s.Path, s.Namespace, s.Ingress, s.Service, s.Canary}, "\x00")
		i, ok := index[key]
		if !ok {
			s.Observations = cloneObservations(s.Observations)
			index[key] = len(out)
			out = append(out, s)
			continue
		}
		t := &out[i]
		t.Requests += s.Requests
		for name, obs := range s.Observations {
			acc := t.Observations[name]
			acc.Sum += obs.Sum
			if len(acc.Counts) < len(obs.Counts) {
				acc.Counts = append(acc.Counts, make([]uint64, len(obs.Counts)-len(acc.Counts))...)
			}
			for j, v := range obs.Counts {
				acc.Counts[j] += v
			}
			t.Observations[name] = acc
		}
	}
	slices.SortFunc(out, func(a, b RequestSeries) int {
		return strings.Compare(seriesKey(a), seriesKey(b))
	})
	return out
}

func seriesKey(s RequestSeries) string {
	return strings.Join([]string{s.Host, s.Namespace, s.Ingress, s.Path, s.Service, s.Canary, s.Method, s.Status}, "\x00")
}

func cloneObservations(m map[string]Observation) map[string]Observation {
	out := make(map[string]Observation, len(m))
	for k, v := range m {
		out[k] = Observation{Sum: v.Sum, Counts: slices.Clone(v.Counts)}
	}
	return out
}

// ParseBuckets reads a bucket flag's value: comma-separated numbers, as
// ingress-nginx's float slice flags ("0.005,0.01,…").
func ParseBuckets(v string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(strings.Trim(v, "[] "), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("bucket %q is not a number", f)
		}
		out = append(out, x)
	}
	return out, nil
}

// monitorSeries is one entry of GET /monitor/requests (lua/monitor.lua).
type monitorSeries struct {
	Host      string  `json:"host"`
	Status    string  `json:"status"`
	Method    string  `json:"method"`
	Path      string  `json:"path"`
	Namespace string  `json:"namespace"`
	Ingress   string  `json:"ingress"`
	Service   string  `json:"service"`
	Canary    string  `json:"canary"`
	Requests  float64 `json:"requests"`
	Obs       map[string]struct {
		Sum    float64            `json:"sum"`
		Counts map[string]float64 `json:"counts"`
	} `json:"obs"`
}

// decodeMonitor turns monitor.lua's answer into RequestSeries: the
// bucket counts are 1-based indexes into buckets (len+1: above the last).
func decodeMonitor(body []byte, buckets map[string][]float64) ([]RequestSeries, error) {
	var in []monitorSeries
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	out := make([]RequestSeries, 0, len(in))
	for _, m := range in {
		s := RequestSeries{
			Host: m.Host, Status: m.Status, Method: m.Method, Path: m.Path,
			Namespace: m.Namespace, Ingress: m.Ingress, Service: m.Service, Canary: m.Canary,
			// The catch-all server "_" answers unknown hosts, and the
			// Ingress rules without a host.
			Defined:      m.Host != model.CatchAllHost || m.Namespace != "",
			Requests:     uint64(m.Requests),
			Observations: map[string]Observation{},
		}
		for name, o := range m.Obs {
			b, ok := buckets[name]
			if !ok {
				continue
			}
			counts := make([]uint64, len(b)+1)
			for k, v := range o.Counts {
				i, err := strconv.Atoi(k)
				if err != nil || i < 1 || i > len(counts) {
					continue
				}
				counts[i-1] = uint64(v)
			}
			s.Observations[name] = Observation{Sum: o.Sum, Counts: counts}
		}
		out = append(out, s)
	}
	return out, nil
}

// monitorSource reads GET /monitor/requests of the status server.
func monitorSource(statusAddress string, buckets map[string][]float64) func() ([]RequestSeries, error) {
	hc := newStatusClient()
	url := "http://" + statusAddress + nginxconf.MonitorPath
	return func() ([]RequestSeries, error) {
		resp, err := hc.Get(url)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", url, resp.Status)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		if err != nil {
			return nil, err
		}
		return decodeMonitor(body, buckets)
	}
}

// addRequestCollector registers the request metrics read from nginx.
func (m *loopMetrics) addRequestCollector(id MetricsIdentity, o RequestMetricsOptions, statusAddress string) {
	m.registry.MustRegister(newRequestCollector(id, o, monitorSource(statusAddress, RequestHistogramBuckets(o))))
}
