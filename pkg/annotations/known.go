package annotations

import "sort"

// The names ingress-nginx has, as data: every annotation and ConfigMap key
// of its documentation (docs/user-guide/nginx-configuration/annotations.md
// and configmap.md, up to v1.15) and the ones its releases removed. A name
// on an Ingress or in the ConfigMap that is neither ours nor here is
// "unknown" (a typo, most likely), with a did-you-mean; a name here that we
// do not implement is "not supported".

// ingressNginxAnnotations are the annotations of ingress-nginx, without
// annotationPrefix, sorted. It is never modified.
var ingressNginxAnnotations = []string{
	"affinity", "affinity-canary-behavior", "affinity-mode", "allowlist-source-range", "app-root",
	"auth-always-set-cookie", "auth-cache-duration", "auth-cache-key", "auth-keepalive",
	"auth-keepalive-requests", "auth-keepalive-share-vars", "auth-keepalive-timeout", "auth-method",
	"auth-proxy-set-headers", "auth-realm", "auth-request-redirect", "auth-response-headers", "auth-secret",
	"auth-secret-type", "auth-signin", "auth-signin-redirect-param", "auth-snippet", "auth-tls-error-page",
	"auth-tls-match-cn", "auth-tls-pass-certificate-to-upstream", "auth-tls-secret", "auth-tls-verify-client",
	"auth-tls-verify-depth", "auth-type", "auth-url", "backend-protocol", "canary", "canary-by-cookie",
	"canary-by-header", "canary-by-header-pattern", "canary-by-header-value", "canary-weight",
	"canary-weight-total", "client-body-buffer-size", "configuration-snippet", "connection-proxy-header",
	"cors-allow-credentials", "cors-allow-headers", "cors-allow-methods", "cors-allow-origin",
	"cors-expose-headers", "cors-max-age", "custom-headers", "custom-http-errors", "default-backend",
	"denylist-source-range", "disable-proxy-intercept-errors", "enable-access-log", "enable-cors",
	"enable-global-auth", "enable-influxdb", "enable-modsecurity", "enable-opentelemetry",
	"enable-opentracing", "enable-owasp-core-rules", "enable-rewrite-log", "fastcgi-index",
	"fastcgi-params-configmap", "force-ssl-redirect", "from-to-www-redirect", "global-rate-limit",
	"global-rate-limit-ignored-cidrs", "global-rate-limit-key", "global-rate-limit-window",
	"http2-push-preload", "influxdb-host", "influxdb-measurement", "influxdb-port", "influxdb-server-name",
	"limit-allowlist", "limit-burst-multiplier", "limit-connections", "limit-rate", "limit-rate-after",
	"limit-rpm", "limit-rps", "limit-whitelist", "load-balance", "mirror-host", "mirror-request-body",
	"mirror-target", "modsecurity-snippet", "modsecurity-transaction-id", "opentelemetry-operation-name",
	"opentelemetry-trust-incoming-span", "opentracing-trust-incoming-span", "permanent-redirect",
	"permanent-redirect-code", "preserve-trailing-slash", "proxy-body-size", "proxy-buffer-size",
	"proxy-buffering", "proxy-buffers-number", "proxy-busy-buffers-size", "proxy-connect-timeout",
	"proxy-cookie-domain", "proxy-cookie-path", "proxy-http-version", "proxy-max-temp-file-size",
	"proxy-next-upstream", "proxy-next-upstream-timeout", "proxy-next-upstream-tries", "proxy-read-timeout",
	"proxy-redirect-from", "proxy-redirect-to", "proxy-request-buffering", "proxy-send-timeout",
	"proxy-ssl-ciphers", "proxy-ssl-name", "proxy-ssl-protocols", "proxy-ssl-secret", "proxy-ssl-server-name",
	"proxy-ssl-verify", "proxy-ssl-verify-depth", "relative-redirects", "rewrite-target", "satisfy",
	"server-alias", "server-snippet", "service-upstream", "session-cookie-change-on-failure",
	"session-cookie-conditional-samesite-none", "session-cookie-domain", "session-cookie-expires",
	"session-cookie-max-age", "session-cookie-name", "session-cookie-partitioned", "session-cookie-path",
	"session-cookie-samesite", "session-cookie-secure", "ssl-ciphers", "ssl-passthrough",
	"ssl-prefer-server-ciphers", "ssl-redirect", "stream-snippet", "temporal-redirect",
	"temporal-redirect-code", "upstream-hash-by", "upstream-hash-by-subset", "upstream-hash-by-subset-size",
	"upstream-vhost", "use-port-in-redirects", "use-regex", "whitelist-source-range", "x-forwarded-prefix",
}

// removedAnnotations are annotations that ingress-nginx had and removed:
// it ignores them, and so do we, with a Problem that says so (they are
// known, not typos). Sorted by name; never modified.
var removedAnnotations = []unsupportedAnnotation{
	{Name: "add-base-url", Hint: "ingress-nginx removed it in v0.22.0 and ignores it too"},
	{Name: "base-url-scheme", Hint: "ingress-nginx removed it in v0.22.0 and ignores it too"},
	{Name: "grpc-backend", Hint: `ingress-nginx removed it in v0.22.0; use backend-protocol: "GRPC"`},
	{Name: "secure-backends", Hint: `ingress-nginx removed it in v0.22.0; use backend-protocol: "HTTPS"`},
	{Name: "secure-verify-ca-secret", Hint: "ingress-nginx removed it in v0.22.0 and ignores it too"},
	{Name: "session-cookie-hash", Hint: "ingress-nginx removed it in v0.24.0 and ignores it too"},
	{Name: "upstream-fail-timeout", Hint: "ingress-nginx removed it in v0.21.0 and ignores it too"},
	{Name: "upstream-max-fails", Hint: "ingress-nginx removed it in v0.21.0 and ignores it too"},
}

// ingressNginxConfigKeys are the ConfigMap keys of ingress-nginx, sorted.
// It is never modified.
var ingressNginxConfigKeys = []string{
	"access-log-params", "access-log-path", "add-headers", "allow-backend-server-header",
	"allow-cross-namespace-resources", "allow-snippet-annotations", "annotation-value-word-blocklist",
	"annotations-risk-level", "app-root", "bind-address", "block-cidrs", "block-referers",
	"block-user-agents", "brotli-level", "brotli-min-length", "brotli-types", "client-body-buffer-size",
	"client-body-timeout", "client-header-buffer-size", "client-header-timeout", "compute-full-forwarded-for",
	"custom-http-errors", "datadog-collector-host", "datadog-collector-port", "datadog-environment",
	"datadog-operation-name-override", "datadog-priority-sampling", "datadog-sample-rate",
	"datadog-service-name", "debug-connections", "default-type", "denylist-source-range",
	"disable-access-log", "disable-http-access-log", "disable-ipv6", "disable-ipv6-dns",
	"disable-proxy-intercept-errors", "disable-stream-access-log", "enable-access-log-for-default-backend",
	"enable-aio-write", "enable-auth-access-log", "enable-brotli", "enable-modsecurity",
	"enable-multi-accept", "enable-ocsp", "enable-opentelemetry", "enable-opentracing",
	"enable-owasp-modsecurity-crs", "enable-real-ip", "enable-syslog", "enable-underscores-in-headers",
	"error-log-level", "error-log-path", "force-ssl-redirect", "forwarded-for-header", "generate-request-id",
	"geoip2-autoreload-in-minutes",
	"global-allowed-response-headers", "global-auth-always-set-cookie", "global-auth-cache-duration",
	"global-auth-cache-key", "global-auth-method", "global-auth-request-redirect",
	"global-auth-response-headers", "global-auth-signin", "global-auth-signin-redirect-param",
	"global-auth-snippet", "global-auth-url", "global-rate-limit-memcached-connect-timeout",
	"global-rate-limit-memcached-host", "global-rate-limit-memcached-max-idle-timeout",
	"global-rate-limit-memcached-pool-size", "global-rate-limit-memcached-port",
	"global-rate-limit-status-code", "gzip-disable", "gzip-level", "gzip-min-length", "gzip-types",
	"hide-headers", "hsts", "hsts-include-subdomains", "hsts-max-age", "hsts-preload", "http-access-log-path",
	"http-redirect-code", "http-snippet", "http2-max-concurrent-streams", "http2-max-field-size",
	"http2-max-header-size", "http2-max-requests", "ignore-invalid-headers", "jaeger-baggage-header",
	"jaeger-collector-host", "jaeger-collector-port", "jaeger-debug-header", "jaeger-endpoint",
	"jaeger-propagation-format", "jaeger-sampler-host", "jaeger-sampler-param", "jaeger-sampler-port",
	"jaeger-sampler-type", "jaeger-service-name", "jaeger-trace-baggage-header-prefix",
	"jaeger-trace-context-header-name", "keep-alive", "keep-alive-requests", "large-client-header-buffers",
	"limit-conn-status-code", "limit-conn-zone-variable", "limit-rate", "limit-rate-after",
	"limit-req-status-code", "load-balance", "location-snippet", "log-format-escape-json",
	"log-format-escape-none", "log-format-stream", "log-format-upstream", "lua-shared-dicts", "main-snippet",
	"map-hash-bucket-size", "max-worker-connections", "max-worker-open-files", "modsecurity-snippet",
	"nginx-status-ipv4-whitelist", "nginx-status-ipv6-whitelist", "no-auth-locations",
	"no-tls-redirect-locations", "opentelemetry-config", "opentelemetry-operation-name",
	"opentelemetry-trust-incoming-span", "opentracing-location-operation-name", "opentracing-operation-name",
	"opentracing-trust-incoming-span", "otel-max-export-batch-size", "otel-max-queuesize", "otel-sampler",
	"otel-sampler-parent-based", "otel-sampler-ratio", "otel-schedule-delay-millis", "otel-service-name",
	"otlp-collector-host", "otlp-collector-port", "plugins", "preserve-trailing-slash",
	"proxy-add-original-uri-header", "proxy-body-size", "proxy-buffer-size", "proxy-buffering",
	"proxy-buffers-number", "proxy-busy-buffers-size", "proxy-connect-timeout", "proxy-cookie-domain",
	"proxy-cookie-path", "proxy-headers-hash-bucket-size", "proxy-headers-hash-max-size",
	"proxy-http-version", "proxy-max-temp-file-size", "proxy-next-upstream", "proxy-next-upstream-timeout",
	"proxy-next-upstream-tries", "proxy-protocol-header-timeout", "proxy-read-timeout", "proxy-real-ip-cidr",
	"proxy-redirect-from", "proxy-redirect-to", "proxy-request-buffering", "proxy-send-timeout",
	"proxy-set-headers", "proxy-ssl-location-only", "proxy-stream-next-upstream",
	"proxy-stream-next-upstream-timeout", "proxy-stream-next-upstream-tries", "proxy-stream-responses",
	"proxy-stream-timeout", "relative-redirects", "retry-non-idempotent", "reuse-port",
	"server-name-hash-bucket-size", "server-name-hash-max-size", "server-snippet", "server-tokens",
	"service-upstream", "skip-access-log-urls", "ssl-buffer-size", "ssl-ciphers", "ssl-dh-param",
	"ssl-early-data", "ssl-ecdh-curve", "ssl-protocols", "ssl-redirect", "ssl-reject-handshake",
	"ssl-session-cache", "ssl-session-cache-size", "ssl-session-ticket-key", "ssl-session-tickets",
	"ssl-session-timeout", "stream-access-log-path", "stream-snippet", "strict-validate-path-type",
	"syslog-host", "syslog-port", "upstream-hash-by", "upstream-hash-by-subset",
	"upstream-hash-by-subset-size", "upstream-keepalive-connections", "upstream-keepalive-requests",
	"upstream-keepalive-time", "upstream-keepalive-timeout", "use-forwarded-headers", "use-geoip",
	"use-geoip2", "use-gzip", "use-http2", "use-port-in-redirects", "use-proxy-protocol",
	"variables-hash-bucket-size", "variables-hash-max-size", "whitelist-source-range", "worker-cpu-affinity",
	"worker-processes", "worker-shutdown-timeout", "zipkin-collector-host", "zipkin-collector-port",
	"zipkin-sample-rate", "zipkin-service-name",
}

// inSorted says whether name is in the sorted list.
func inSorted(list []string, name string) bool {
	i := sort.SearchStrings(list, name)
	return i < len(list) && list[i] == name
}

// lookupRemovedAnnotation returns the entry of name, or nil.
func lookupRemovedAnnotation(name string) *unsupportedAnnotation {
	i := sort.Search(len(removedAnnotations), func(i int) bool { return removedAnnotations[i].Name >= name })
	if i < len(removedAnnotations) && removedAnnotations[i].Name == name {
		return &removedAnnotations[i]
	}
	return nil
}

// knownAnnotationNames are the names a did-you-mean picks from: ours and
// ingress-nginx's, sorted, without duplicates. It is never modified.
var knownAnnotationNames = knownAnnotations()

func knownAnnotations() []string {
	names := append([]string(nil), ingressNginxAnnotations...)
	for _, s := range annotationSpecs {
		names = append(names, s.Name)
	}
	for _, u := range unsupportedAnnotations {
		names = append(names, u.Name)
	}
	return sortedUnique(names)
}

// knownConfigKeyNames are the ConfigMap keys a did-you-mean picks from:
// ours and ingress-nginx's, sorted, without duplicates. It is never
// modified.
var knownConfigKeyNames = knownConfigKeys()

func knownConfigKeys() []string {
	keys := append([]string(nil), ingressNginxConfigKeys...)
	for _, s := range configKeySpecs {
		keys = append(keys, s.Key)
	}
	return sortedUnique(keys)
}

func sortedUnique(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, n := range list {
		if i == 0 || n != list[i-1] {
			out = append(out, n)
		}
	}
	return out
}
