package annotations

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Headers from ConfigMaps: the custom-headers annotation (response headers
// of the Ingress's locations), and the controller ConfigMap's add-headers
// (response headers of every answer), proxy-set-headers (request headers
// sent to every backend) and global-allowed-response-headers (the names a
// custom-headers ConfigMap may set), as in ingress-nginx. The annotation
// and keys name a ConfigMap; render finds it and checks its data with
// ParseHeaders.
//
// Names are ingress-nginx's header names (letters, digits, "-" and "_").
// Values are visible ASCII and spaces. In custom-headers a "$" is a literal
// dollar sign, as ingress-nginx escapes it there; in add-headers and
// proxy-set-headers values may use the nginx variables of headerVars and
// nothing else.

// headerVars are the variables add-headers and proxy-set-headers values
// may hold (and snippet values, see snippetVars), use-geoip2's $geoip2_*
// among them.
var headerVars = varList{
	names: sortedUnique(append([]string{
		"args", "best_http_host", "binary_remote_addr", "connection", "content_length", "content_type",
		"host", "hostname", "is_args", "msec", "nginx_version", "pass_access_scheme", "pass_port",
		"pass_server_port", "proxy_add_x_forwarded_for", "proxy_upstream_name", "query_string",
		"realip_remote_addr", "remote_addr", "remote_port", "req_id", "request_id", "request_method",
		"request_time", "request_uri", "scheme", "server_addr", "server_name", "server_port",
		"server_protocol", "ssl_cipher", "ssl_client_escaped_cert", "ssl_client_fingerprint",
		"ssl_client_i_dn", "ssl_client_s_dn", "ssl_client_serial", "ssl_client_verify",
		"ssl_protocol", "ssl_server_name", "time_iso8601", "time_local", "uri",
	}, model.GeoIP2VariableNames()...)),
	prefixes: []string{"arg_", "cookie_", "http_", "sent_http_", "upstream_http_"},
}

// maxHeaders bounds the headers of one ConfigMap.
const maxHeaders = 100

// valueAddedHeaderName checks a header name as ingress-nginx does.
func valueAddedHeaderName(v string) error {
	if v == "" || len(v) > 256 {
		return errors.New("must be a header name of 1 to 256 characters")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("must be a header name (letters, digits, '-' and '_'; found %q)", c)
		}
	}
	return nil
}

// valueAddedHeader checks the value of an added header: visible ASCII and
// spaces; with vars its variables must be in headerVars.
func valueAddedHeader(v string, vars bool) error {
	if len(v) > valueMaxLen {
		return fmt.Errorf("is longer than %d bytes", valueMaxLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c >= 0x7f {
			return fmt.Errorf("must be visible ASCII and spaces (found %q at byte %d)", c, i)
		}
	}
	if vars {
		return checkVars(v, headerVars, true)
	}
	return nil
}

// ParseHeaders checks the data of a headers ConfigMap and returns its
// headers sorted by name. With vars, values may use the variables of
// headerVars (add-headers, proxy-set-headers); without, a "$" is literal
// (custom-headers). The error names the first bad entry.
func ParseHeaders(data map[string]string, vars bool) ([]model.Header, error) {
	if len(data) > maxHeaders {
		return nil, fmt.Errorf("holds %d headers, more than %d", len(data), maxHeaders)
	}
	names := slices.Sorted(maps.Keys(data))
	out := make([]model.Header, 0, len(names))
	for _, k := range names {
		if err := valueAddedHeaderName(k); err != nil {
			return nil, fmt.Errorf("key %s %v", ValueQuote(k), err)
		}
		v := strings.TrimSpace(data[k])
		if err := valueAddedHeader(v, vars); err != nil {
			return nil, fmt.Errorf("value of %s %v", k, err)
		}
		out = append(out, model.Header{Name: k, Value: v, Vars: vars})
	}
	return out, nil
}

// valueConfigMapRef checks a ConfigMap reference: "name" or
// "namespace/name", each an RFC 1123 subdomain (DNS labels for the
// namespace).
func valueConfigMapRef(v string) (string, error) {
	ns, name, hasNS := strings.Cut(v, "/")
	if !hasNS {
		ns, name = "", v
	}
	if hasNS && (ns == "" || len(ns) > 63 || !valueIsDNSName(ns) || strings.Contains(ns, ".")) {
		return "", errors.New(`must be "name" or "namespace/name" of a ConfigMap`)
	}
	if name == "" || len(name) > 253 || !valueIsDNSName(name) || strings.ToLower(name) != name || strings.ToLower(ns) != ns {
		return "", errors.New(`must be "name" or "namespace/name" of a ConfigMap (lower case DNS names)`)
	}
	return v, nil
}

// headersAnnotations are the annotations of this family, sorted by name.
var headersAnnotations = []annotationSpec{
	{Name: "custom-headers", Kind: kindConfigMapRef, Description: `ConfigMap ("name" in the Ingress namespace, or "namespace/name") whose data are response headers added to every answer of the Ingress's paths, replacing a backend's header of the same name; each name must be listed in the ConfigMap key global-allowed-response-headers, and a "$" in a value is literal. A missing or refused ConfigMap makes the paths answer 503, as in ingress-nginx.`,
		set: annString(valueConfigMapRef, func(s *annotationState) *string { return &s.out.CustomHeaders })},
}

// headersConfigKeys are the ConfigMap keys of this family, sorted by key.
var headersConfigKeys = []configKeySpec{
	{Key: "add-headers", Kind: kindConfigMapRef, NoDefault: true, Description: `ConfigMap ("namespace/name") whose data are response headers added to every answer, replacing a backend's header of the same name; values may use nginx variables ($host, $remote_addr, $http_*, …).`,
		set: func(g *model.Global, v string) error {
			r, err := valueConfigMapRef(v)
			if err == nil {
				g.AddHeaders = r
			}
			return err
		}},
	{Key: "global-allowed-response-headers", Kind: kindHeaderNames, NoDefault: true, Description: "Comma separated header names that custom-headers ConfigMaps may set (none by default).",
		set: func(g *model.Global, v string) error {
			list := valueList(v)
			for _, h := range list {
				if err := valueAddedHeaderName(h); err != nil {
					return fmt.Errorf("entry %s %v", ValueQuote(h), err)
				}
			}
			g.AllowedResponseHeaders = list
			return nil
		}},
	{Key: "proxy-add-original-uri-header", Kind: kindBool, Default: "false", Description: `"true" sends backends the request's URI as the client sent it ($request_uri) in X-Original-URI (the requests for error pages and for the default backend get it always).`,
		set: configBool(func(g *model.Global) *bool { return &g.ProxyAddOriginalURIHeader })},
	{Key: "proxy-set-headers", Kind: kindConfigMapRef, NoDefault: true, Description: `ConfigMap ("namespace/name") whose data are request headers sent to every backend; values may use nginx variables ($host, $remote_addr, $http_*, …).`,
		set: func(g *model.Global, v string) error {
			r, err := valueConfigMapRef(v)
			if err == nil {
				g.ProxySetHeaders = r
			}
			return err
		}},
}

// AllowedResponseHeader reports whether a custom-headers ConfigMap may set
// name: ingress-nginx compares the names exactly as written.
func AllowedResponseHeader(g *model.Global, name string) bool {
	for _, a := range g.AllowedResponseHeaders {
		if a == name {
			return true
		}
	}
	return false
}

// The kinds of the values of this file.
const (
	kindConfigMapRef valueKind = `ConfigMap "name" or "namespace/name"`
	kindHeaderNames  valueKind = "comma separated header names"
)

// configMapRefAnnotations are the annotations that name a ConfigMap whose
// data render reads; configMapRefKeys the controller ConfigMap's keys.
var (
	configMapRefAnnotations = []string{"auth-proxy-set-headers", "custom-headers", "fastcgi-params-configmap"}
	configMapRefKeys        = []string{"add-headers", "global-auth-proxy-set-headers", "proxy-set-headers"}
)

// ReferencedConfigMaps returns "namespace/name" of each ConfigMap that the
// annotations of an Ingress in namespace name (a value without namespace
// is in namespace), for a source that fetches only what is referenced.
// Invalid values are left out (ParseIngress reports them).
func ReferencedConfigMaps(namespace string, ann map[string]string) []string {
	var out []string
	for _, n := range configMapRefAnnotations {
		if v, ok := ann[annotationPrefix+n]; ok {
			out = appendConfigMapRef(out, namespace, strings.TrimSpace(v))
		}
	}
	return out
}

// ReferencedByControllerConfigMap is ReferencedConfigMaps for the data of
// the controller ConfigMap in namespace.
func ReferencedByControllerConfigMap(namespace string, data map[string]string) []string {
	var out []string
	for _, k := range configMapRefKeys {
		if v, ok := data[k]; ok {
			out = appendConfigMapRef(out, namespace, strings.TrimSpace(v))
		}
	}
	return out
}

func appendConfigMapRef(out []string, namespace, v string) []string {
	if _, err := valueConfigMapRef(v); err != nil {
		return out
	}
	if !strings.Contains(v, "/") {
		v = namespace + "/" + v
	}
	return append(out, v)
}
