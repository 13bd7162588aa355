package main

import (
	"slices"
	"testing"
)

// An nginx built with ngx_http_geoip2_module compiled in (OpenResty-based
// images, ingress-nginx's own) gets no load_module for it.
func TestParseNginxVGeoIP2Builtin(t *testing.T) {
	o := parseNginxV("nginx version: openresty/1.25.3.1\nconfigure arguments: --prefix=/usr/local/openresty/nginx --add-module=../ngx_lua-0.10.26 --add-module=/tmp/build/ngx_http_geoip2_module-3.4 --with-stream\n")
	if !slices.Contains(o.Builtin, "ngx_http_geoip2_module.so") {
		t.Errorf("ngx_http_geoip2_module compiled in: %+v", o)
	}
	if o := parseNginxV("nginx version: nginx/1.22.1\nconfigure arguments: --prefix=/usr/share/nginx --modules-path=/usr/lib/nginx/modules --with-stream=dynamic\n"); slices.Contains(o.Builtin, "ngx_http_geoip2_module.so") {
		t.Errorf("Debian's nginx has GeoIP2 as a dynamic module: %+v", o)
	}
}
