package annotations

import (
	"errors"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// nginx's workers, hash tables, HTTP/2, listeners and keep-alive to
// backends. A hash table size too small for the names of nginx.conf would
// fail nginx -t for every tenant: the writer raises such a value to what
// the config needs (see pkg/nginxconf/nginxconf_global.go).

// tuningConfigKeys are the ConfigMap keys of this family, sorted by key.
var tuningConfigKeys = []configKeySpec{
	{Key: "debug-connections", Kind: kindCIDRList, NoDefault: true, Description: "Client addresses (IPs or CIDRs, comma separated) whose connections nginx logs at debug level.",
		set: configStringList(64, valueCIDR, func(g *model.Global) *[]string { return &g.Tuning.DebugConnections })},
	{Key: "default-type", Kind: kindMIMEList, Default: "text/html", Description: "MIME type of answers whose type nginx does not know.",
		set: configString(func(v string) (string, error) {
			if v == "*" {
				return "", errors.New("must be a MIME type type/subtype")
			}
			return valueMIMEType(v)
		}, func(g *model.Global) *string { return &g.Tuning.DefaultType })},
	{Key: "disable-ipv6", Kind: kindBool, Default: "false", Description: "\"true\": no listeners on [::] (the controller adds them, beside the IPv4 ones, when its pod has an IPv6 address and --listen-address is not set).",
		set: configBool(func(g *model.Global) *bool { return &g.Tuning.DisableIPv6 })},
	{Key: "enable-multi-accept", Kind: kindBool, Default: "true", Description: "A worker accepts all new connections at once.",
		set: configBool(func(g *model.Global) *bool { return &g.Tuning.MultiAccept })},
	{Key: "http2-max-concurrent-streams", Kind: kindInt, Default: "128", Description: "Concurrent HTTP/2 streams per connection.",
		set: configInt(1, 65536, func(g *model.Global) *int { return &g.Tuning.HTTP2MaxConcurrentStreams })},
	{Key: "http2-max-field-size", Kind: kindSize, NoDefault: true, Description: "Obsolete since nginx 1.19.7 (large-client-header-buffers limits HTTP/2 headers too); ignored.",
		set: configObsoleteHTTP2("large-client-header-buffers")},
	{Key: "http2-max-header-size", Kind: kindSize, NoDefault: true, Description: "Obsolete since nginx 1.19.7 (large-client-header-buffers limits HTTP/2 headers too); ignored.",
		set: configObsoleteHTTP2("large-client-header-buffers")},
	{Key: "http2-max-requests", Kind: kindInt, NoDefault: true, Description: "Obsolete since nginx 1.19.7 (keep-alive-requests limits HTTP/2 connections too); ignored.",
		set: configObsoleteHTTP2("keep-alive-requests")},
	{Key: "map-hash-bucket-size", Kind: kindInt, Default: "64", Description: "Bucket size of the map hash tables (raised to what the longest key needs).",
		set: configInt(32, 16384, func(g *model.Global) *int { return &g.Tuning.MapHashBucketSize })},
	{Key: "max-worker-connections", Kind: kindInt, Default: "16384", Description: "Connections per worker (0: max-worker-open-files), raised to what the listening sockets need (at least 1024).",
		set: configInt(0, 1<<20, func(g *model.Global) *int { return &g.Tuning.MaxWorkerConnections })},
	{Key: "max-worker-open-files", Kind: kindInt, Default: "0", Description: "Open files per worker (worker_rlimit_nofile; 0: 65535).",
		set: configInt(0, 1<<24, func(g *model.Global) *int { return &g.Tuning.MaxWorkerOpenFiles })},
	{Key: "reuse-port", Kind: kindBool, Default: "true", Description: "One listening socket per worker (SO_REUSEPORT): the kernel spreads connections.",
		set: configBool(func(g *model.Global) *bool { return &g.Tuning.ReusePort })},
	{Key: "server-name-hash-bucket-size", Kind: kindInt, NoDefault: true, Description: "Bucket size of the server name hash (raised to what the longest host needs, which is the default).",
		set: configInt(32, 16384, func(g *model.Global) *int { return &g.Tuning.ServerNameHashBucketSize })},
	{Key: "server-name-hash-max-size", Kind: kindInt, Default: "1024", Description: "Largest server name hash (raised to twice the number of hosts).",
		set: configInt(1, 1<<20, func(g *model.Global) *int { return &g.Tuning.ServerNameHashMaxSize })},
	{Key: "upstream-keepalive-requests", Kind: kindInt, Default: "10000", Description: "Requests over one idle-kept connection to a backend before it is closed.",
		set: configInt(1, MaxInt32, func(g *model.Global) *int { return &g.Tuning.UpstreamKeepaliveRequests })},
	{Key: "upstream-keepalive-time", Kind: kindSeconds, Default: "1h", Description: "Longest life of a kept connection to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.Tuning.UpstreamKeepaliveTime })},
	{Key: "upstream-keepalive-timeout", Kind: kindSeconds, Default: "60", Description: "How long an idle connection to a backend is kept.",
		set: configSeconds(func(g *model.Global) *int { return &g.Tuning.UpstreamKeepaliveTimeout })},
	{Key: "use-http2", Kind: kindBool, Default: "true", Description: "Serve HTTP/2 on the HTTPS port.",
		set: configBool(func(g *model.Global) *bool { return &g.Tuning.UseHTTP2 })},
	{Key: "variables-hash-bucket-size", Kind: kindInt, Default: "256", Description: "Bucket size of the variables hash table (at least 64).",
		set: configInt(64, 16384, func(g *model.Global) *int { return &g.Tuning.VariablesHashBucketSize })},
	{Key: "variables-hash-max-size", Kind: kindInt, Default: "2048", Description: "Largest variables hash table.",
		set: configInt(1, 1<<20, func(g *model.Global) *int { return &g.Tuning.VariablesHashMaxSize })},
	{Key: "worker-cpu-affinity", Kind: kindEnum, NoDefault: true, Description: `Bind workers to CPUs: "auto", or one bit mask per worker ("0001 0010").`,
		set: configString(valueCPUAffinity, func(g *model.Global) *string { return &g.Tuning.WorkerCPUAffinity })},
	{Key: "worker-shutdown-timeout", Kind: kindSeconds, Default: "240s", Description: "How long an old worker may finish its requests after a reload.",
		set: configSeconds(func(g *model.Global) *int { return &g.Tuning.WorkerShutdownTimeout })},
}

// configObsoleteHTTP2 takes a valid value of an HTTP/2 key that nginx
// 1.19.7 made obsolete and reports that it is ignored.
func configObsoleteHTTP2(instead string) func(*model.Global, string) error {
	return func(_ *model.Global, v string) error {
		if _, err := valueSize(v); err != nil {
			return err
		}
		return configIgnored{"obsolete since nginx 1.19.7, which limits HTTP/2 with " + instead + " instead; the key is ignored"}
	}
}

// valueCPUAffinity checks worker_cpu_affinity: "auto", optionally with one
// mask, or masks of 0 and 1 separated by spaces.
func valueCPUAffinity(v string) (string, error) {
	bad := errors.New(`must be "auto" or bit masks of 0 and 1 separated by spaces (one per worker, e.g. "0001 0010")`)
	fields := strings.Fields(v)
	if len(fields) == 0 || len(fields) > 64 {
		return "", bad
	}
	if fields[0] == "auto" {
		fields = fields[1:]
		if len(fields) > 1 {
			return "", bad
		}
	}
	for _, f := range fields {
		if len(f) > 64 || strings.Trim(f, "01") != "" || !strings.Contains(f, "1") {
			return "", bad
		}
	}
	return strings.Join(strings.Fields(v), " "), nil
}
