package annotations

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Cases of the ConfigMap keys of configmap_{block,logging,modules,policy,
// realip,redirect,tls,tuning}.go; TestConfigMapGoodValues and
// TestConfigMapBadValues run them with the others.

var goodGlobalConfigCases = []configCase{
	{"access-log-params", "buffer=16k, gzip, flush=1m", func(g *model.Global) { g.Logging.AccessLogParams = []string{"buffer=16k", "gzip", "flush=1m"} }},
	{"debug-connections", "127.0.0.1,10.0.0.0/8", func(g *model.Global) { g.Tuning.DebugConnections = []string{"127.0.0.1/32", "10.0.0.0/8"} }},
	{"access-log-path", "/dev/stdout", func(g *model.Global) { g.Logging.AccessLogPath = "/dev/stdout" }},
	{"disable-access-log", "true", func(g *model.Global) { g.Logging.DisableAccessLog = true }},
	{"disable-http-access-log", "true", func(g *model.Global) { g.Logging.DisableHTTPAccessLog = true }},
	{"enable-access-log-for-default-backend", "true", func(g *model.Global) { g.Logging.DefaultBackend = true }},
	{"enable-syslog", "true", func(g *model.Global) { g.Logging.Syslog = true }},
	{"error-log-level", "warn", func(g *model.Global) { g.Logging.ErrorLogLevel = "warn" }},
	{"error-log-level", "DEBUG", func(g *model.Global) { g.Logging.ErrorLogLevel = "debug" }},
	{"error-log-path", "/dev/stderr", func(g *model.Global) { g.Logging.ErrorLogPath = "/dev/stderr" }},
	{"http-access-log-path", "logs/http.log", func(g *model.Global) { g.Logging.HTTPAccessLogPath = "logs/http.log" }},
	{"log-format-escape-json", "true", func(g *model.Global) { g.Logging.EscapeJSON = true }},
	{"log-format-escape-none", "true", func(g *model.Global) { g.Logging.EscapeNone = true }},
	{"log-format-upstream", `{"time": "$time_iso8601", "ns": "${namespace}", "ua": "$http_user_agent"}`, func(g *model.Global) {
		g.Logging.FormatUpstream = `{"time": "$time_iso8601", "ns": "${namespace}", "ua": "$http_user_agent"}`
	}},
	{"log-format-upstream", "custom format with only status: $status", func(g *model.Global) { g.Logging.FormatUpstream = "custom format with only status: $status" }},
	{"skip-access-log-urls", "/healthz, /metrics", func(g *model.Global) { g.Logging.SkipURLs = []string{"/healthz", "/metrics"} }},
	{"syslog-host", "10.0.0.1", func(g *model.Global) { g.Logging.SyslogHost = "10.0.0.1" }},
	{"syslog-port", "5140", func(g *model.Global) { g.Logging.SyslogPort = 5140 }},

	{"compute-full-forwarded-for", "true", func(g *model.Global) { g.RealIP.ComputeFullForwardedFor = true }},
	{"enable-real-ip", "true", func(g *model.Global) { g.RealIP.EnableRealIP = true }},
	{"forwarded-for-header", "CF-Connecting-IP", func(g *model.Global) { g.RealIP.ForwardedForHeader = "CF-Connecting-IP" }},
	{"generate-request-id", "false", func(g *model.Global) { g.RealIP.GenerateRequestID = false }},
	{"proxy-real-ip-cidr", "10.0.0.0/8, 192.168.1.1,2001:db8::/32", func(g *model.Global) {
		g.RealIP.ProxyRealIPCIDR = []string{"10.0.0.0/8", "192.168.1.1/32", "2001:db8::/32"}
	}},
	{"use-proxy-protocol", "true", func(g *model.Global) { g.RealIP.UseProxyProtocol = true }},

	{"enable-ocsp", "false", func(*model.Global) {}},
	{"enable-ocsp", "true", func(g *model.Global) { g.TLS.EnableOCSP = true }},
	{"ssl-buffer-size", "16k", func(g *model.Global) { g.TLS.BufferSize = "16k" }},
	{"ssl-ciphers", "HIGH:!aNULL:!MD5", func(g *model.Global) { g.TLS.Ciphers = "HIGH:!aNULL:!MD5" }},
	{"ssl-ciphers", "ECDHE-RSA-AES128-GCM-SHA256:EECDH+AESGCM:@STRENGTH", func(g *model.Global) { g.TLS.Ciphers = "ECDHE-RSA-AES128-GCM-SHA256:EECDH+AESGCM:@STRENGTH" }},
	{"ssl-early-data", "true", func(g *model.Global) { g.TLS.EarlyData = true }},
	{"ssl-ecdh-curve", "X25519:prime256v1:secp384r1", func(g *model.Global) { g.TLS.ECDHCurve = "X25519:prime256v1:secp384r1" }},
	{"ssl-protocols", "TLSv1.3 TLSv1.2", func(g *model.Global) { g.TLS.Protocols = []string{"TLSv1.3", "TLSv1.2"} }},
	{"ssl-protocols", "TLSv1.3", func(g *model.Global) { g.TLS.Protocols = []string{"TLSv1.3"} }},
	{"ssl-reject-handshake", "true", func(g *model.Global) { g.TLS.RejectHandshake = true }},
	{"ssl-session-cache", "false", func(g *model.Global) { g.TLS.SessionCache = false }},
	{"ssl-session-cache-size", "64k", func(g *model.Global) { g.TLS.SessionCacheSize = "64k" }},
	{"ssl-session-tickets", "true", func(g *model.Global) { g.TLS.SessionTickets = true }},
	{"ssl-session-timeout", "1h", func(g *model.Global) { g.TLS.SessionTimeout = "1h" }},
	{"ssl-dh-param", "ingress-nginx/lb-dhparam", func(g *model.Global) {
		g.TLS.DHParamSecret = model.ObjectRef{Kind: "Secret", Namespace: "ingress-nginx", Name: "lb-dhparam"}
	}},
	{"ssl-dh-param", "lb-dhparam", func(g *model.Global) { g.TLS.DHParamSecret = model.ObjectRef{Kind: "Secret", Name: "lb-dhparam"} }},
	{"ssl-session-ticket-key", testTicketKey80, func(g *model.Global) { g.TLS.SessionTicketKey = mustBase64(testTicketKey80) }},
	{"ssl-session-ticket-key", testTicketKey48, func(g *model.Global) { g.TLS.SessionTicketKey = mustBase64(testTicketKey48) }},

	{"allow-backend-server-header", "true", func(g *model.Global) { g.Block.AllowBackendServerHeader = true }},
	{"block-cidrs", "192.0.2.0/24, 198.51.100.7", func(g *model.Global) { g.Block.CIDRs = []string{"192.0.2.0/24", "198.51.100.7/32"} }},
	{"block-referers", "~*spam\\.example, http://bad.example/", func(g *model.Global) { g.Block.Referers = []string{"~*spam\\.example", "http://bad.example/"} }},
	{"block-user-agents", "GPTBot,~*GPTBot*,Mozilla/5.0 (compatible; x;y)", func(g *model.Global) {
		g.Block.UserAgents = []string{"GPTBot", "~*GPTBot*", "Mozilla/5.0 (compatible; x;y)"}
	}},
	{"hide-headers", "Server,X-Powered-By", func(g *model.Global) { g.Block.HideHeaders = []string{"Server", "X-Powered-By"} }},

	{"default-type", "application/octet-stream", func(g *model.Global) { g.Tuning.DefaultType = "application/octet-stream" }},
	{"enable-multi-accept", "false", func(g *model.Global) { g.Tuning.MultiAccept = false }},
	{"http2-max-concurrent-streams", "256", func(g *model.Global) { g.Tuning.HTTP2MaxConcurrentStreams = 256 }},
	{"map-hash-bucket-size", "128", func(g *model.Global) { g.Tuning.MapHashBucketSize = 128 }},
	{"max-worker-connections", "0", func(g *model.Global) { g.Tuning.MaxWorkerConnections = 0 }},
	{"max-worker-open-files", "100000", func(g *model.Global) { g.Tuning.MaxWorkerOpenFiles = 100000 }},
	{"reuse-port", "false", func(g *model.Global) { g.Tuning.ReusePort = false }},
	{"disable-ipv6", "true", func(g *model.Global) { g.Tuning.DisableIPv6 = true }},
	{"server-name-hash-bucket-size", "256", func(g *model.Global) { g.Tuning.ServerNameHashBucketSize = 256 }},
	{"server-name-hash-max-size", "4096", func(g *model.Global) { g.Tuning.ServerNameHashMaxSize = 4096 }},
	{"upstream-keepalive-requests", "100", func(g *model.Global) { g.Tuning.UpstreamKeepaliveRequests = 100 }},
	{"upstream-keepalive-time", "30m", func(g *model.Global) { g.Tuning.UpstreamKeepaliveTime = 1800 }},
	{"upstream-keepalive-timeout", "5", func(g *model.Global) { g.Tuning.UpstreamKeepaliveTimeout = 5 }},
	{"use-http2", "false", func(g *model.Global) { g.Tuning.UseHTTP2 = false }},
	{"variables-hash-bucket-size", "512", func(g *model.Global) { g.Tuning.VariablesHashBucketSize = 512 }},
	{"variables-hash-max-size", "4096", func(g *model.Global) { g.Tuning.VariablesHashMaxSize = 4096 }},
	{"worker-cpu-affinity", "auto", func(g *model.Global) { g.Tuning.WorkerCPUAffinity = "auto" }},
	{"worker-cpu-affinity", "0001  0010", func(g *model.Global) { g.Tuning.WorkerCPUAffinity = "0001 0010" }},
	{"worker-shutdown-timeout", "10s", func(g *model.Global) { g.Tuning.WorkerShutdownTimeout = 10 }},

	{"force-ssl-redirect", "true", func(g *model.Global) { g.Redirects.ForceSSLRedirect = true }},
	{"http-redirect-code", "301", func(g *model.Global) { g.Redirects.HTTPRedirectCode = 301 }},
	{"no-tls-redirect-locations", "/.well-known/acme-challenge,/insecure", func(g *model.Global) {
		g.Redirects.NoTLSRedirectLocations = []string{"/.well-known/acme-challenge", "/insecure"}
	}},

	{"brotli-level", "11", func(g *model.Global) { g.Brotli.Level = 11 }},
	{"brotli-min-length", "1000", func(g *model.Global) { g.Brotli.MinLength = 1000 }},
	{"brotli-types", "text/html text/css", func(g *model.Global) { g.Brotli.Types = []string{"text/html", "text/css"} }},
	{"enable-brotli", "true", func(g *model.Global) { g.Brotli.Enable = true }},
	{"enable-modsecurity", "true", func(g *model.Global) { g.ModSecurity.Enable = true }},
	{"enable-opentelemetry", "false", func(*model.Global) {}},
	{"enable-opentracing", "false", func(*model.Global) {}},
	{"enable-owasp-modsecurity-crs", "true", func(g *model.Global) { g.ModSecurity.OWASPCoreRules = true }},
	{"gzip-min-length", "1024", func(g *model.Global) { g.GzipMinLength = 1024 }},
	{"use-geoip", "false", func(*model.Global) {}},
	{"use-geoip2", "false", func(*model.Global) {}},
	{"use-geoip2", "true", func(g *model.Global) { g.GeoIP2.Enable = true }},
	{"geoip2-autoreload-in-minutes", "60", func(g *model.Global) { g.GeoIP2.AutoReloadMinutes = 60 }},

	{"annotation-value-word-blocklist", "load_module,lua_package,_by_lua,location,root,proxy_pass,serviceaccount,{,},'", func(g *model.Global) {
		g.Policy.WordBlocklist = []string{"load_module", "lua_package", "_by_lua", "location", "root", "proxy_pass", "serviceaccount", "{", "}", "'"}
	}},
	{"annotations-risk-level", "Critical", func(*model.Global) {}},
	{"annotations-risk-level", "medium", func(g *model.Global) { g.Policy.RiskLevel = "Medium" }},
}

var badGlobalConfigCases = []struct{ key, value string }{
	{"access-log-params", "flush=1m"}, {"access-log-params", "buffer=1g"}, {"access-log-params", "gzip=10"},
	{"access-log-params", "if=$x"}, {"access-log-params", "buffer=4k buffer=8k"}, {"debug-connections", "localhost"},
	{"access-log-path", "../etc/passwd"}, {"access-log-path", "logs/a b"}, {"access-log-path", "logs/"},
	{"disable-access-log", "yes"}, {"disable-http-access-log", "1x"}, {"enable-access-log-for-default-backend", "on"},
	{"enable-syslog", "on"}, {"error-log-level", "verbose"}, {"error-log-path", "/var/log/$host"},
	{"http-access-log-path", "a;b"}, {"log-format-escape-json", "yes"}, {"log-format-escape-none", "no"},
	{"log-format-upstream", "$remote_addr $document_root"}, {"log-format-upstream", "$request_body_file"},
	{"log-format-upstream", "a\nb"}, {"log-format-upstream", "cost $"}, {"log-format-upstream", "${status"},
	{"skip-access-log-urls", "healthz"}, {"skip-access-log-urls", "/a b"}, {"syslog-host", "syslog.example.com"},
	{"syslog-port", "0"},

	{"compute-full-forwarded-for", "on"}, {"enable-real-ip", "yes"}, {"forwarded-for-header", "X_Forwarded;For"},
	{"forwarded-for-header", "X-Forwarded-For:"}, {"generate-request-id", "off"}, {"proxy-real-ip-cidr", "10.0.0.0/33"},
	{"proxy-real-ip-cidr", "example.com"}, {"use-proxy-protocol", "v2"},

	{"enable-ocsp", "yes"}, {"ssl-buffer-size", "32k"}, {"ssl-buffer-size", "0"},
	{"ssl-ciphers", "!HIGH"}, {"ssl-ciphers", "FOO-BAR"}, {"ssl-ciphers", "HIGH:!ECDHE:!AES"}, {"ssl-ciphers", "HIGH;"},
	{"ssl-ciphers", "DHE-RSA-AES128-GCM-SHA256:!DHE"}, {"ssl-ciphers", "HIGH:@SECLEVEL=5"},
	{"ssl-dh-param", ""}, {"ssl-dh-param", "a/b/c"}, {"ssl-dh-param", "ns/x;y"}, {"ssl-dh-param", "/etc/passwd"}, {"ssl-early-data", "on"}, {"ssl-ecdh-curve", "secp999"}, {"ssl-ecdh-curve", "X25519:"},
	{"ssl-protocols", "TLSv1.4"}, {"ssl-protocols", "TLSv1.2 TLSv1.2"}, {"ssl-reject-handshake", "on"},
	{"ssl-session-cache", "on"}, {"ssl-session-cache-size", "1k"}, {"ssl-session-cache-size", "2g"}, {"ssl-session-cache-size", "1g"},
	{"ssl-session-ticket-key", ""}, {"ssl-session-ticket-key", "ingress-nginx/x"}, {"ssl-session-ticket-key", testTicketKey80[:60]},
	{"ssl-session-ticket-key", testTicketKey80 + "AAAA"}, {"ssl-session-ticket-key", testTicketKey80[:100] + ";\n}" + testTicketKey80[104:]},
	{"ssl-session-ticket-key", "$ssl_session_id"}, {"ssl-session-ticket-key", testTicketKey80[:106] + "=="},
	{"ssl-session-tickets", "on"}, {"ssl-session-timeout", "10 m"},

	{"allow-backend-server-header", "on"}, {"block-cidrs", "10.0.0.0/8,nope"}, {"block-referers", "~*(?<x>a)"},
	{"block-referers", "~"}, {"block-user-agents", "~*[a"}, {"block-user-agents", "a\tb"}, {"hide-headers", "X Powered"},
	{"hide-headers", "X:A"},

	{"default-type", "*"}, {"default-type", "text"}, {"enable-multi-accept", "on"}, {"http2-max-concurrent-streams", "0"},
	{"http2-max-field-size", "16 k"}, {"http2-max-header-size", "big"}, {"http2-max-requests", "-1"},
	{"map-hash-bucket-size", "16"}, {"max-worker-connections", "-1"}, {"max-worker-open-files", "x"},
	{"reuse-port", "on"}, {"disable-ipv6", "yes"}, {"server-name-hash-bucket-size", "16"}, {"server-name-hash-max-size", "0"},
	{"upstream-keepalive-requests", "0"}, {"upstream-keepalive-time", "1d"}, {"upstream-keepalive-timeout", "0"},
	{"use-http2", "on"}, {"variables-hash-bucket-size", "32"}, {"variables-hash-max-size", "0"},
	{"worker-cpu-affinity", "auto 01 10"}, {"worker-cpu-affinity", "0002"}, {"worker-shutdown-timeout", "forever"},

	{"force-ssl-redirect", "on"}, {"http-redirect-code", "303"}, {"no-tls-redirect-locations", "well-known"},

	{"brotli-level", "12"}, {"brotli-min-length", "-1"}, {"brotli-types", "text"}, {"enable-brotli", "on"},
	{"enable-modsecurity", "on"}, {"enable-opentelemetry", "on"}, {"enable-opentracing", "on"},
	{"enable-owasp-modsecurity-crs", "on"}, {"gzip-min-length", "x"}, {"use-geoip", "on"}, {"use-geoip2", "on"},
	{"geoip2-autoreload-in-minutes", "-1"}, {"geoip2-autoreload-in-minutes", "5m"}, {"geoip2-autoreload-in-minutes", "527041"},

	{"annotation-value-word-blocklist", "a,\x01"}, {"annotations-risk-level", "Extreme"},
}

// alwaysProblemConfigKeys are keys whose every value is a Problem (not
// supported, or obsolete): they have no good value case.
var alwaysProblemConfigKeys = map[string]bool{
	"http2-max-field-size": true, "http2-max-header-size": true, "http2-max-requests": true,
}

// quotedConfigKeys are the keys whose values may hold quotes, ";", braces,
// "$" or spaces: each is written as one quoted token by the writer (a log
// format, exact header values), which TestGlobalConfigInjection checks.
var quotedConfigKeys = map[string]bool{
	"annotation-value-word-blocklist": true, "block-referers": true, "block-user-agents": true,
	"log-format-upstream": true, "worker-cpu-affinity": true, "ssl-protocols": true,
}

// TestGlobalConfigNotSupported: "true" of a module we lack is a Problem
// saying "not supported" and naming the module; "false" is none.
func TestGlobalConfigNotSupported(t *testing.T) {
	for key, module := range map[string]string{
		"enable-opentelemetry": "OpenTelemetry module", "enable-opentracing": "OpenTracing",
	} {
		g, problems := ParseConfigMap(testConfigMap, map[string]string{key: "true"})
		if len(problems) != 1 || !strings.Contains(problems[0].Reason, "not supported by kubectl-ingress: ") ||
			!strings.Contains(problems[0].Reason, module) || !reflect.DeepEqual(g, model.DefaultGlobal()) {
			t.Errorf("%s: %v", key, problems)
		}
	}
	_, problems := ParseConfigMap(testConfigMap, map[string]string{"http2-max-field-size": "16k"})
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "obsolete since nginx 1.19.7") || strings.Contains(problems[0].Reason, "not supported") {
		t.Errorf("http2-max-field-size: %v", problems)
	}
}

// TestGlobalConfigInjection: the keys of quotedConfigKeys take quotes and
// separators as text, refuse control characters, and give back exactly
// the text (the writer quotes it: the golden configmap-injection and the
// sweep run nginx -t on it).
func TestGlobalConfigInjection(t *testing.T) {
	for key := range quotedConfigKeys {
		for _, bad := range []string{"x\ny", "x\ry", "x\x00y"} {
			if key == "ssl-protocols" || key == "worker-cpu-affinity" {
				continue
			}
			g, problems := ParseConfigMap(testConfigMap, map[string]string{key: bad})
			if len(problems) != 1 || !reflect.DeepEqual(g, model.DefaultGlobal()) {
				t.Errorf("%s=%q: accepted", key, bad)
			}
		}
	}
	v := `{"a":"$status";} '\x" $http_x_y`
	g, problems := ParseConfigMap(testConfigMap, map[string]string{"log-format-upstream": v})
	if len(problems) != 0 || g.Logging.FormatUpstream != v {
		t.Errorf("log-format-upstream %q: %v %q", v, problems, g.Logging.FormatUpstream)
	}
	for _, v := range []string{"$host$request_uri$uri", "${status}${remote_addr}"} {
		if _, problems := ParseConfigMap(testConfigMap, map[string]string{"log-format-upstream": v}); len(problems) != 0 {
			t.Errorf("%q: %v", v, problems)
		}
	}
	for _, v := range []string{"$lua_ctx", "$document_root", "$request_body_file", "$1", "${a;b}", "$realpath_root"} {
		if _, problems := ParseConfigMap(testConfigMap, map[string]string{"log-format-upstream": v}); len(problems) != 1 {
			t.Errorf("%q: accepted", v)
		}
	}
}

func TestCheckPolicy(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "x"}
	annots := map[string]string{
		annotationPrefix + "auth-url":              "http://auth/location",
		annotationPrefix + "proxy-body-size":       "8m",
		annotationPrefix + "ssl-redirect":          "false",
		"kubernetes.io/ingress.class":              "location",
		annotationPrefix + "configuration-snippet": "x",
	}
	if ps := CheckPolicy(ing, annots, model.DefaultGlobal().Policy); ps != nil {
		t.Errorf("default policy: %v", ps)
	}
	ps := CheckPolicy(ing, annots, model.Policy{RiskLevel: "Medium"})
	if len(ps) != 2 || !strings.Contains(ps[0].Field, "auth-url") || !strings.Contains(ps[0].Reason, "its risk (High)") ||
		!strings.Contains(ps[1].Field, "configuration-snippet") || !strings.Contains(ps[1].Reason, "(Critical)") {
		t.Errorf("Medium: %v", ps)
	}
	ps = CheckPolicy(ing, annots, model.Policy{RiskLevel: "Critical", WordBlocklist: []string{"location", "}"}})
	if len(ps) != 1 || !strings.Contains(ps[0].Field, "auth-url") || !strings.Contains(ps[0].Reason, `"location"`) ||
		!strings.Contains(ps[0].Reason, "left out") {
		t.Errorf("blocklist: %v", ps)
	}
	if ps := CheckPolicy(ing, annots, model.Policy{RiskLevel: "Low"}); len(ps) != 3 {
		t.Errorf("Low: %v", ps)
	}
}

func TestGlobalCipherList(t *testing.T) {
	for _, v := range []string{model.DefaultSSLCiphers, "HIGH:!aNULL:!MD5", "ALL:!EXPORT:!LOW", "EECDH+AESGCM:EDH+AESGCM", "ECDHE-ECDSA-CHACHA20-POLY1305"} {
		if _, err := valueGlobalCipherList(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	for _, v := range []string{"", "TLS_AES_128_GCM_SHA256", "aNULL", "ECDHE-RSA-AES128-GCM-SHA256:!ECDHE-RSA-AES128-GCM-SHA256", "HIGH:-HIGH", "RC4-SHA"} {
		if _, err := valueGlobalCipherList(v); err == nil {
			t.Errorf("%q: accepted", v)
		}
	}
}
