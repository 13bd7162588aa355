package nginxconf

import (
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Sweep values of the ConfigMap keys of the global settings
// (nginxconf_global.go): the edges of each range and the values that the
// writer must raise, quote or escape, so that TestNGINXAcceptsSweep shows
// that none makes nginx -t fail.

// sweepNoValueKeys are keys whose every value is a Problem (not supported
// or obsolete): the sweep, which refuses any Problem, has none of them.
var sweepNoValueKeys = map[string]bool{
	"http2-max-field-size": true, "http2-max-header-size": true, "http2-max-requests": true,
}

// withGlobalSweep adds the sweep values of the global settings to m.
func withGlobalSweep(m map[string][]string) map[string][]string {
	longURL := "/" + strings.Repeat("a", 1500)
	longUA := "Mozilla/5.0 (compatible; " + strings.Repeat("b", 990) + ")"
	for k, v := range map[string][]string{
		"access-log-params":                     {"buffer=16k, gzip, flush=1m", "gzip=9", "buffer=64m flush=1"},
		"debug-connections":                     {"127.0.0.1", "10.0.0.0/8,2001:db8::/32"},
		"access-log-path":                       {"logs/access.log", "/dev/null", "/var/log/nginx/access.log", "logs/a-b_c.log"},
		"disable-access-log":                    {"false", "true", "false"},
		"disable-http-access-log":               {"false", "false", "true"},
		"enable-access-log-for-default-backend": {"false", "true"},
		"enable-syslog":                         {"false", "true"},
		"error-log-level":                       {"notice", "debug", "info", "warn", "error", "crit", "alert", "emerg"},
		"error-log-path":                        {"logs/error.log", "/dev/stderr", "/var/log/nginx/error.log"},
		"http-access-log-path":                  {"logs/http.log", "/dev/stdout"},
		"log-format-escape-json":                {"false", "true"},
		"log-format-escape-none":                {"false", "false", "true"},
		"log-format-upstream": {model.DefaultLogFormatUpstream,
			`{"ns": "$namespace", "ing": "${ingress_name}", "svc": "$service_name:$service_port", "path": "$location_path", "alt": "$proxy_alternative_upstream_name"}`,
			`a "quoted" 'single' \back\\slash {brace} ;semi $status$body_bytes_sent`,
			"$http_user_agent $sent_http_content_type $cookie_session $arg_q $upstream_http_x_a $proxy_protocol_addr $realip_remote_addr $ssl_protocol"},
		"skip-access-log-urls":            {"/healthz", longURL + ",/metrics", "/a"},
		"syslog-host":                     {"127.0.0.1", "::1"},
		"syslog-port":                     {"514", "1", "65535"},
		"compute-full-forwarded-for":      {"false", "true"},
		"enable-real-ip":                  {"false", "true", "true"},
		"forwarded-for-header":            {"X-Forwarded-For", "CF-Connecting-IP", strings.Repeat("X", 64)},
		"generate-request-id":             {"true", "false"},
		"proxy-real-ip-cidr":              {"0.0.0.0/0", "10.0.0.0/8,192.168.0.1,2001:db8::/32"},
		"use-proxy-protocol":              {"false", "true", "true", "false"},
		"enable-ocsp":                     {"false", "true"},
		"ssl-buffer-size":                 {"4k", "1", "16k"},
		"ssl-ciphers":                     {model.DefaultSSLCiphers, "HIGH:!aNULL:!MD5", "ECDHE-ECDSA-CHACHA20-POLY1305:!aNULL:@SECLEVEL=0", "EECDH+AESGCM:!RC4:!DHE:@STRENGTH", "ALL:!EXPORT:!LOW:!MEDIUM:!SHA1"},
		"ssl-early-data":                  {"false", "true"},
		"ssl-ecdh-curve":                  {"auto", "X25519:X448:prime256v1:secp384r1:secp521r1", "P-256:P-384:P-521", "ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192"},
		"ssl-protocols":                   {"TLSv1.2 TLSv1.3", "SSLv2 SSLv3 TLSv1 TLSv1.1", "TLSv1.3"},
		"ssl-reject-handshake":            {"false", "true"},
		"ssl-session-cache":               {"true", "false"},
		"ssl-session-cache-size":          {"10m", "64k", "1024m"},
		"ssl-session-tickets":             {"false", "true"},
		"ssl-session-timeout":             {"10m", "1", strconv.Itoa(annotations.ValueMaxSeconds), "24h"},
		"allow-backend-server-header":     {"false", "true"},
		"block-cidrs":                     {"192.0.2.0/24", "10.0.0.1,2001:db8::/32"},
		"block-referers":                  {"~*spam", "http://bad.example/", `default,hostnames,include,volatile,\x,~a(b|c)$`},
		"block-user-agents":               {"GPTBot,~*GPTBot*,ChatGPT-User,~*ChatGPT-User*", longUA, `a "b" 'c' {d} ;e $f`},
		"hide-headers":                    {"Server,X-Powered-By", "X-A"},
		"default-type":                    {"text/html", "application/octet-stream"},
		"enable-multi-accept":             {"true", "false"},
		"http2-max-concurrent-streams":    {"128", "1", "65536"},
		"map-hash-bucket-size":            {"64", "32", "16384"},
		"max-worker-connections":          {"16384", "0", "1", "1048576"},
		"max-worker-open-files":           {"0", "1", "16777216"},
		"reuse-port":                      {"true", "false"},
		"server-name-hash-bucket-size":    {"32", "256", "16384"},
		"server-name-hash-max-size":       {"1024", "1", "1048576"},
		"upstream-keepalive-requests":     {"10000", "1", strconv.Itoa(annotations.MaxInt32)},
		"upstream-keepalive-time":         {"1h", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
		"upstream-keepalive-timeout":      {"60", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
		"use-http2":                       {"true", "false"},
		"variables-hash-bucket-size":      {"256", "64", "16384"},
		"variables-hash-max-size":         {"2048", "1", "1048576"},
		"worker-cpu-affinity":             {"auto", "0001 0010", "auto 1010"},
		"worker-shutdown-timeout":         {"240s", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
		"force-ssl-redirect":              {"false", "true"},
		"http-redirect-code":              {"308", "301", "302", "307"},
		"no-tls-redirect-locations":       {"/.well-known/acme-challenge", "/,/x"},
		"brotli-level":                    {"4", "1", "11"},
		"brotli-min-length":               {"20", "0", strconv.Itoa(annotations.MaxInt32)},
		"brotli-types":                    {"text/html", sweepMIMETypes(200)},
		"enable-brotli":                   {"false", "true"},
		"enable-modsecurity":              {"false", "true"},
		"enable-opentelemetry":            {"false"},
		"enable-opentracing":              {"false"},
		"enable-owasp-modsecurity-crs":    {"false", "true"},
		"gzip-min-length":                 {"256", "0", strconv.Itoa(annotations.MaxInt32)},
		"use-geoip":                       {"true", "false"},
		"use-geoip2":                      {"false"}, // "true" with databases: TestGeoIP2NginxAccepts
		"geoip2-autoreload-in-minutes":    {"0", "5", "527040"},
		"annotations-risk-level":          {"Critical"},
		"annotation-value-word-blocklist": {"kubectl_ingress_sweep_never_used"},
	} {
		m[k] = v
	}
	for k, v := range sweepTLSFileKeys {
		m[k] = v
	}
	return m
}
