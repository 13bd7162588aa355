package snippet

import (
	"slices"
	"strings"
)

// Directives that are not allowlisted: why each is refused and what to use
// instead, for the Refusal's reason. A directive not named here gets the
// general reason.

// refusedHints are the reasons of directives met in real snippets, sorted
// by name.
var refusedHints = []struct{ name, reason string }{
	{"access_log", "writes the access log elsewhere; use the annotation enable-access-log or the ConfigMap's access-log-path"},
	{"alias", "serves files of the controller's filesystem; serve them from a backend"},
	{"auth_basic", "use the annotations auth-type: basic, auth-secret and auth-realm"},
	{"auth_basic_user_file", "reads a file of the controller's filesystem; use the annotations auth-type: basic and auth-secret"},
	{"auth_request", "use the annotation auth-url"},
	{"auth_request_set", "copies the external auth's answer into a variable; use the annotation auth-response-headers with auth-url"},
	{"default_type", "no typed equivalent: set Content-Type in the backend"},
	{"error_page", "use the annotation custom-http-errors (with default-backend)"},
	{"expires", `use add_header Cache-Control "max-age=…" (allowlisted)`},
	{"gzip", "use the ConfigMap keys use-gzip and gzip-types"},
	{"if", "evaluates conditions on variables, which typed settings cannot express; use canary-by-header or canary-by-cookie to route on a request, or a location of a server-snippet"},
	{"include", "reads a file of the controller's filesystem into nginx.conf"},
	{"internal", "no typed equivalent"},
	{"limit_conn", "use the annotation limit-connections"},
	{"limit_rate", "use the annotations limit-rate and limit-rate-after"},
	{"limit_req", "use the annotation limit-rps"},
	{"listen", "the controller owns the listening ports"},
	{"load_module", "loads code into nginx"},
	{"log_not_found", "no typed equivalent; the annotation enable-access-log turns the access log off"},
	{"more_set_input_headers", "use proxy_set_header (allowlisted)"},
	{"proxy_buffers", "use the annotation proxy-buffers-number"},
	{"proxy_cache", "no typed equivalent"},
	{"proxy_cookie_domain", "use the annotation proxy-cookie-domain"},
	{"proxy_cookie_path", "use the annotation proxy-cookie-path"},
	{"proxy_http_version", "use the annotation proxy-http-version"},
	{"proxy_max_temp_file_size", "use the annotation proxy-max-temp-file-size"},
	{"proxy_next_upstream", "use the annotation proxy-next-upstream"},
	{"proxy_next_upstream_timeout", "use the annotation proxy-next-upstream-timeout"},
	{"proxy_next_upstream_tries", "use the annotation proxy-next-upstream-tries"},
	{"proxy_pass", "the Ingress's backend is the proxy target; use upstream-vhost, backend-protocol or service-upstream to change how it is reached"},
	{"proxy_redirect", "use the annotations proxy-redirect-from and proxy-redirect-to"},
	{"root", "serves files of the controller's filesystem; serve them from a backend"},
	{"satisfy", "use the annotation satisfy"},
	{"server_name", "use the annotation server-alias"},
	{"set", "defines an nginx variable that other directives could read; no typed equivalent"},
	{"try_files", "serves files of the controller's filesystem; serve them from a backend"},
}

// refusedPrefixes are the reasons of families of directives.
var refusedPrefixes = []struct{ prefix, reason string }{
	{"js_", "runs njs code inside nginx"},
	{"lua_", "configures Lua code inside nginx"},
	{"modsecurity", "not supported by kubectl-ingress"},
	{"perl", "runs Perl code inside nginx"},
	{"proxy_ssl_", "use the annotations proxy-ssl-secret, proxy-ssl-verify, proxy-ssl-name and proxy-ssl-protocols"},
	{"ssl_", "TLS is typed: use the annotations ssl-ciphers, ssl-prefer-server-ciphers and auth-tls-*, or the ConfigMap's ssl-protocols"},
}

// refusedReason is why name is not translated.
func refusedReason(name string) string {
	if strings.Contains(name, "_by_lua") {
		return "runs Lua code inside nginx"
	}
	for _, h := range refusedHints {
		if h.name == name {
			return "not translated: " + h.reason
		}
	}
	for _, p := range refusedPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return "not translated: " + p.reason
		}
	}
	return "not in the snippet allowlist (see the Snippets section of docs/annotations.md); no typed equivalent"
}

// RefusedDoc is a directive that is refused with a reason of its own.
type RefusedDoc struct {
	// Name is a directive, or a family ("ssl_*", "*_by_lua*").
	Name   string
	Reason string
}

// RefusedDirectives returns the directives refused with a reason of their
// own, sorted by name; a new slice each call.
func RefusedDirectives() []RefusedDoc {
	out := []RefusedDoc{{Name: "*_by_lua*", Reason: refusedReason("content_by_lua")}}
	for _, h := range refusedHints {
		out = append(out, RefusedDoc{Name: h.name, Reason: h.reason})
	}
	for _, p := range refusedPrefixes {
		out = append(out, RefusedDoc{Name: p.prefix + "*", Reason: p.reason})
	}
	slices.SortFunc(out, func(a, b RefusedDoc) int {
		return strings.Compare(strings.TrimLeft(a.Name, "*"), strings.TrimLeft(b.Name, "*"))
	})
	return out
}
