package snippet

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// fuzzSeeds are snippets of the corpus and the CVE shapes.
var fuzzSeeds = []string{
	"add_header X-Frame-Options SAMEORIGIN;\nadd_header X-XSS-Protection \"1; mode=block\";",
	"more_set_headers \"Request-Id: $req_id\";",
	"proxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;\nproxy_hide_header l5d-remote-ip;",
	"proxy_set_header Accept-Encoding \"\";\nsub_filter '</head>' '<link rel=\"stylesheet\" href=\"https://x/y.css\"></head>';\nsub_filter_once on;",
	"server_tokens off;\nlocation ~ ^/(ping|ready|prometheus) {\n  deny all;\n  return 404;\n}",
	"location = /.well-known/carddav { return 301 $scheme://$host/remote.php/dav; }",
	"rewrite /api/(.*) /$1 break;",
	"return 200;\n}\nserver { listen 1; }",
	"add_header X \"a\\nInjected: 1\";",
	"add_header X \"a; include /etc/passwd\";",
	"add_header X ${evil}; # }",
	"access_by_lua_block { ngx.exit(403) }",
	"more_set_headers -s '404 500' -t text/html 'X-A: $sent_http_x';",
	"allow 10.0.0.0/8; deny all; client_max_body_size 0; proxy_read_timeout 5m;",
	"location ~* \"\\.(php|asp)$\" { deny all; }",
	"return https://example.com$request_uri;",
	"sub_filter_types text/css; chunked_transfer_encoding off; proxy_intercept_errors on;",
}

// allowedVar is an independent statement of the variables any translated
// value may read (the widest phase: response headers, rewrite captures and
// the service variables).
func allowedVar(name string) bool {
	for _, p := range []string{"arg_", "cookie_", "http_", "sent_http_", "upstream_http_"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	switch name {
	case "args", "best_http_host", "binary_remote_addr", "connection", "content_length", "content_type",
		"host", "hostname", "is_args", "msec", "nginx_version", "pass_access_scheme", "pass_port",
		"pass_server_port", "proxy_add_x_forwarded_for", "proxy_upstream_name", "query_string",
		"realip_remote_addr", "remote_addr", "remote_port", "req_id", "request_id", "request_method",
		"request_time", "request_uri", "scheme", "server_addr", "server_name", "server_port",
		"server_protocol", "ssl_cipher", "ssl_client_escaped_cert", "ssl_client_fingerprint",
		"ssl_client_i_dn", "ssl_client_s_dn", "ssl_client_serial", "ssl_client_verify",
		"ssl_protocol", "ssl_server_name", "time_iso8601", "time_local", "uri",
		"service_name", "namespace", "service_port", "1", "2", "3", "4", "5", "6", "7", "8", "9":
		return true
	}
	return false
}

// checkVarsOf fails when v reads a variable outside allowedVar.
func checkVarsOf(t *testing.T, where, v string) {
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		rest := v[i+1:]
		if strings.HasPrefix(rest, "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				t.Fatalf("%s %q: unclosed ${", where, v)
			}
			rest = rest[1:end]
		}
		j := 0
		for j < len(rest) && (rest[j] == '_' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= 'A' && rest[j] <= 'Z' || rest[j] >= '0' && rest[j] <= '9') {
			j++
		}
		if !allowedVar(rest[:j]) {
			t.Fatalf("%s %q reads $%s", where, v, rest[:j])
		}
	}
}

// walkStrings calls f with the path and value of every string in v.
func walkStrings(path string, v reflect.Value, f func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v.String())
	case reflect.Pointer:
		if !v.IsNil() {
			walkStrings(path, v.Elem(), f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			walkStrings(path+"."+v.Type().Field(i).Name, v.Field(i), f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkStrings(path, v.Index(i), f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkStrings(path+"[key]", k, f)
		}
	}
}

// FuzzTranslate: whatever Translate accepts holds no control character in
// any string, and every variable a value reads is allowlisted (regexes and
// paths hold "$" as an anchor, not a variable).
func FuzzTranslate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(ServerSnippet, s)
		f.Add(ConfigurationSnippet, s)
	}
	f.Fuzz(func(t *testing.T, annotation, text string) {
		s, refusals := Translate(annotation, text)
		if s != nil && len(refusals) > 0 {
			t.Fatalf("a Snippet and refusals: %v", refusals)
		}
		if s == nil {
			return
		}
		walkStrings("Snippet", reflect.ValueOf(s), func(path, v string) {
			for i := 0; i < len(v); i++ {
				if v[i] < 0x20 || v[i] == 0x7f {
					t.Fatalf("%s %q holds the control character %q", path, v, v[i])
				}
			}
			if strings.HasSuffix(path, ".Regex") || strings.HasSuffix(path, ".Path") {
				return
			}
			checkVarsOf(t, path, v)
		})
		checkLocations(t, s, 0)
	})
}

// checkLocations: nested locations only one level deep.
func checkLocations(t *testing.T, s *model.Snippet, depth int) {
	if depth > 1 || (depth == 1 && len(s.Locations) > 0) {
		t.Fatal("a location nested in a location")
	}
	for i := range s.Locations {
		checkLocations(t, &s.Locations[i].Body, depth+1)
	}
}
