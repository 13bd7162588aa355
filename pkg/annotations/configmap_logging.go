package annotations

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Logging: the access log's format, file and filters, the error log.

// loggingConfigKeys are the ConfigMap keys of this family, sorted by key.
var loggingConfigKeys = []configKeySpec{
	{Key: "access-log-params", Kind: kindAccessLogParams, NoDefault: true, Description: `Parameters of the access log file: "buffer=SIZE", "gzip" or "gzip=1".."gzip=9", "flush=TIME" (with a buffer), separated by commas or spaces.`,
		set: func(g *model.Global, v string) error {
			p, err := valueAccessLogParams(v)
			if err == nil {
				g.Logging.AccessLogParams = p
			}
			return err
		}},
	{Key: "access-log-path", Kind: kindFilePath, Default: "logs/access.log", Description: "File of the access log: \"/dev/stdout\", \"/dev/stderr\", \"/dev/null\" or logs/<file> under the nginx prefix (ingress-nginx's /var/log/nginx/access.log is /dev/stdout, as its image links it).",
		set: configString(valueLogPath, func(g *model.Global) *string { return &g.Logging.AccessLogPath })},
	{Key: "disable-access-log", Kind: kindBool, Default: "false", Description: "Turn the access log off.",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.DisableAccessLog })},
	{Key: "disable-http-access-log", Kind: kindBool, Default: "false", Description: "Turn the access log of HTTP requests off.",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.DisableHTTPAccessLog })},
	{Key: "enable-access-log-for-default-backend", Kind: kindBool, Default: "false", Description: "Log the requests that the default backend answers (no host or path matched).",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.DefaultBackend })},
	{Key: "enable-syslog", Kind: kindBool, Default: "false", Description: "Send the access log to syslog-host:syslog-port instead of the file.",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.Syslog })},
	{Key: "error-log-level", Kind: kindEnum, Default: "notice", Description: `Level of the error log: "debug", "info", "notice", "warn", "error", "crit", "alert" or "emerg".`,
		set: func(g *model.Global, v string) error {
			l, err := valueOneOf(v, true, "debug", "info", "notice", "warn", "error", "crit", "alert", "emerg")
			if err == nil {
				g.Logging.ErrorLogLevel = l
			}
			return err
		}},
	{Key: "error-log-path", Kind: kindFilePath, Default: "logs/error.log", Description: "File of the error log: \"/dev/stderr\", \"/dev/stdout\", \"/dev/null\" or logs/<file> under the nginx prefix (ingress-nginx's /var/log/nginx/error.log is /dev/stderr).",
		set: configString(valueLogPath, func(g *model.Global) *string { return &g.Logging.ErrorLogPath })},
	{Key: "http-access-log-path", Kind: kindFilePath, NoDefault: true, Description: "File of the access log of HTTP requests, instead of access-log-path.",
		set: configString(valueLogPath, func(g *model.Global) *string { return &g.Logging.HTTPAccessLogPath })},
	{Key: "log-format-escape-json", Kind: kindBool, Default: "false", Description: "Escape variable values in the access log as JSON strings.",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.EscapeJSON })},
	{Key: "log-format-escape-none", Kind: kindBool, Default: "false", Description: "Do not escape variable values in the access log (wins over log-format-escape-json).",
		set: configBool(func(g *model.Global) *bool { return &g.Logging.EscapeNone })},
	{Key: "log-format-upstream", Kind: kindLogFormat, Default: model.DefaultLogFormatUpstream, Description: "Format of the access log: text and nginx variables from an allowlist (the nginx variables of requests, answers, upstreams, TLS and the PROXY protocol, and ingress-nginx's $proxy_upstream_name, $req_id, $namespace, $ingress_name, $service_name, $service_port, $location_path, and use-geoip2's $geoip2_* variables).",
		set: configString(valueLogFormat, func(g *model.Global) *string { return &g.Logging.FormatUpstream })},
	{Key: "skip-access-log-urls", Kind: kindPathList, NoDefault: true, Description: "Request URIs (exact, comma separated) not written to the access log.",
		set: configStringList(64, func(v string) (string, error) { return valuePath(v, true) }, func(g *model.Global) *[]string { return &g.Logging.SkipURLs })},
	{Key: "syslog-host", Kind: kindIP, NoDefault: true, Description: "IP address of the syslog server of enable-syslog (nginx resolves names once, at start).",
		set: func(g *model.Global, v string) error {
			a, err := netip.ParseAddr(v)
			if err != nil || a.Zone() != "" {
				return errors.New("must be an IP address")
			}
			g.Logging.SyslogHost = a.String()
			return nil
		}},
	{Key: "syslog-port", Kind: kindInt, Default: "514", Description: "Port of the syslog server of enable-syslog.",
		set: configInt(1, 65535, func(g *model.Global) *int { return &g.Logging.SyslogPort })},
}

const (
	kindAccessLogParams valueKind = "access_log parameters"
	kindFilePath        valueKind = "file path"
	kindLogFormat       valueKind = "nginx log format"
	kindPathList        valueKind = "comma separated URL paths"
	kindIP              valueKind = "IP address"
)

// configString is the setter of a string key checked by check.
func configString(check func(string) (string, error), field func(*model.Global) *string) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		s, err := check(v)
		if err == nil {
			*field(g) = s
		}
		return err
	}
}

// logFormatVars are the variables a log format may use: nginx's own (core,
// upstream, proxy, realip, SSL, HTTP/2, gzip and PROXY protocol), the
// ingress-nginx ones that kubectl-ingress defines (with use-geoip2's
// $geoip2_* of model.GeoIP2VariableNames), and the families of header,
// cookie and argument variables. None has a side effect when read.
var logFormatVars = varList{
	names: sortedUnique(append([]string{
		"args", "binary_remote_addr", "body_bytes_sent", "bytes_sent", "connection", "connection_requests",
		"connection_time", "content_length", "content_type", "document_uri", "gzip_ratio", "host", "hostname",
		"http2", "https", "is_args", "msec", "nginx_version", "pid", "pipe", "proxy_add_x_forwarded_for",
		"proxy_host", "proxy_port", "proxy_protocol_addr", "proxy_protocol_port", "proxy_protocol_server_addr",
		"proxy_protocol_server_port", "query_string", "realip_remote_addr", "realip_remote_port", "remote_addr",
		"remote_port", "remote_user", "request", "request_completion", "request_id", "request_length",
		"request_method", "request_time", "request_uri", "scheme", "server_addr", "server_name", "server_port",
		"server_protocol", "ssl_cipher", "ssl_client_fingerprint", "ssl_client_i_dn", "ssl_client_s_dn",
		"ssl_client_serial", "ssl_client_verify", "ssl_early_data", "ssl_protocol", "ssl_server_name",
		"ssl_session_id", "ssl_session_reused", "status", "tcpinfo_rcv_space", "tcpinfo_rtt", "tcpinfo_rttvar",
		"tcpinfo_snd_cwnd", "time_iso8601", "time_local", "upstream_addr", "upstream_bytes_received",
		"upstream_bytes_sent", "upstream_cache_status", "upstream_connect_time", "upstream_header_time",
		"upstream_response_length", "upstream_response_time", "upstream_status", "uri",
		// ingress-nginx's, defined by kubectl-ingress's nginx.conf
		"best_http_host", "ingress_name", "location_path", "namespace", "pass_access_scheme", "pass_port",
		"pass_server_port", "proxy_alternative_upstream_name", "proxy_upstream_name", "req_id",
		"service_name", "service_port",
	}, model.GeoIP2VariableNames()...)),
	prefixes: []string{"arg_", "cookie_", "http_", "sent_http_", "sent_trailer_", "upstream_cookie_", "upstream_http_", "upstream_trailer_"},
}

// valueLogFormat checks a log format: printable text (quotes are escaped by
// the writer) whose every variable is in logFormatVars.
func valueLogFormat(v string) (string, error) {
	if err := valueNoControl(v); err != nil {
		return "", err
	}
	if err := checkVars(v, logFormatVars, true); err != nil {
		return "", fmt.Errorf("must use only the allowed variables: %v", err)
	}
	return v, nil
}

// valueAccessLogParams checks access-log-params: buffer=SIZE (up to 64m),
// gzip or gzip=1..9, flush=TIME (only with a buffer or gzip, which nginx
// requires), each once.
func valueAccessLogParams(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	buffered := false
	flush := false
	for _, p := range valueWords(v) {
		name, arg, hasArg := strings.Cut(p, "=")
		if seen[name] {
			return nil, fmt.Errorf("must name %s once", name)
		}
		seen[name] = true
		switch {
		case name == "buffer" && hasArg:
			n, err := valueSizeBytes(arg)
			if err != nil || n < 1 || n > 64<<20 || strings.ContainsAny(arg, "gG") {
				return nil, fmt.Errorf(`must have a buffer size from 1 to 64m (found %s)`, ValueQuote(p))
			}
			buffered = true
		case name == "gzip" && !hasArg:
			buffered = true
		case name == "gzip":
			if _, err := valueInt(arg, 1, 9); err != nil {
				return nil, fmt.Errorf("must have a gzip level from 1 to 9 (found %s)", ValueQuote(p))
			}
			buffered = true
		case name == "flush" && hasArg:
			if _, err := valueSeconds(arg); err != nil {
				return nil, fmt.Errorf(`must have a flush time such as "1m" or "30s" (found %s)`, ValueQuote(p))
			}
			flush = true
		default:
			return nil, fmt.Errorf(`must be "buffer=SIZE", "gzip", "gzip=LEVEL" or "flush=TIME" (found %s)`, ValueQuote(p))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("must name a parameter")
	}
	if flush && !buffered {
		return nil, errors.New("must have buffer= or gzip with flush= (nginx needs a buffer to flush)")
	}
	return out, nil
}
