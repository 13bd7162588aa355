package main

import (
	"github.com/spf13/pflag"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// RequestMetricsFlags are ingress-nginx's flags of its per-request
// metrics (nginx_ingress_controller_requests …, docs/metrics.md), with
// its names and defaults. The metrics are always on, as ingress-nginx's
// with its default --enable-metrics.
type RequestMetricsFlags struct {
	PerHost, PerUndefinedHost, StatusClasses bool
	Exclude                                  []string
	TimeBuckets, LengthBuckets, SizeBuckets  []float64
}

func (f *RequestMetricsFlags) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.PerHost, "metrics-per-host", true, "Label the request metrics (nginx_ingress_controller_requests …) with the host")
	fs.BoolVar(&f.PerUndefinedHost, "metrics-per-undefined-host", false, `Count requests to hosts no Ingress defines too, all under host "_"`)
	fs.BoolVar(&f.StatusClasses, "report-status-classes", false, "Label the request metrics with the status class (2xx, 4xx …) instead of the status")
	fs.StringSliceVar(&f.Exclude, "exclude-socket-metrics", nil, "Request metrics not to export, e.g. nginx_ingress_controller_bytes_sent,request_size")
	fs.Float64SliceVar(&f.TimeBuckets, "time-buckets", controller.DefaultTimeBuckets, "Buckets of the request time histograms (seconds)")
	fs.Float64SliceVar(&f.LengthBuckets, "length-buckets", controller.DefaultLengthBuckets, "Buckets of the request_size and response_size histograms (bytes)")
	fs.Float64SliceVar(&f.SizeBuckets, "size-buckets", controller.DefaultSizeBuckets, "Buckets of the bytes_sent histogram (bytes)")
}

// Validate checks the buckets and the excluded names.
func (f *RequestMetricsFlags) Validate() error {
	return controller.ValidateRequestMetricsOptions(f.options())
}

func (f *RequestMetricsFlags) options() controller.RequestMetricsOptions {
	return controller.RequestMetricsOptions{
		PerHost: f.PerHost, PerUndefinedHost: f.PerUndefinedHost, StatusClasses: f.StatusClasses,
		Exclude: f.Exclude, TimeBuckets: f.TimeBuckets, LengthBuckets: f.LengthBuckets, SizeBuckets: f.SizeBuckets,
	}
}

func ptrTo[T any](v T) *T { return &v }
