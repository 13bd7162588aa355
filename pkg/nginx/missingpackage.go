package nginx

import "strings"

// A config that loads an optional module (brotli, ModSecurity, GeoIP2) or reads
// the OWASP Core Rule Set fails nginx -t when Debian's package is not
// installed; nginx's message names only a path. MissingPackage names the
// package, so that the failure says what to install.

// packageFiles maps a path that nginx fails to open to the Debian package
// that installs it. A module file counts only in a dlopen() failure;
// the Core Rule Set's directories in ModSecurity's "Not able to open
// file".
var packageFiles = []struct{ file, pkg string }{
	{"ndk_http_module.so", "libnginx-mod-http-ndk"},
	{"ngx_http_lua_module.so", "libnginx-mod-http-lua"},
	{"ngx_http_headers_more_filter_module.so", "libnginx-mod-http-headers-more-filter"},
	{"ngx_http_brotli_filter_module.so", "libnginx-mod-http-brotli-filter"},
	{"ngx_http_modsecurity_module.so", "libnginx-mod-http-modsecurity"},
	{"ngx_http_geoip2_module.so", "libnginx-mod-http-geoip2"},
	{"ngx_stream_module.so", "libnginx-mod-stream"},
	{"ngx_stream_js_module.so", "libnginx-mod-stream-js"},
	{"/etc/modsecurity/crs/", "modsecurity-crs"},
	{"/usr/share/modsecurity-crs/", "modsecurity-crs"},
}

// MissingPackage returns the Debian package whose absence nginx's error
// message shows, or "".
func MissingPackage(message string) string {
	for _, p := range packageFiles {
		if !strings.Contains(message, p.file) {
			continue
		}
		if strings.HasSuffix(p.file, ".so") && strings.Contains(message, "dlopen()") && strings.Contains(message, "No such file") {
			return p.pkg
		}
		if strings.HasSuffix(p.file, "/") && strings.Contains(message, "Not able to open file") {
			return p.pkg
		}
	}
	return ""
}

// withMissingPackage adds to the message of a failed nginx -t the Debian
// package that is missing, when the message shows one.
func withMissingPackage(message string) string {
	if p := MissingPackage(message); p != "" {
		return message + " (Debian's package " + p + " is not installed: apt-get install " + p + ")"
	}
	return message
}
