package main

import (
	"slices"
	"testing"
)

// An nginx built with the ModSecurity connector compiled in (as
// OpenResty-based images add it) gets no load_module for it.
func TestParseNginxVModSecurityBuiltin(t *testing.T) {
	o := parseNginxV("nginx version: openresty/1.25.3.1\nconfigure arguments: --prefix=/usr/local/openresty/nginx --add-module=../ngx_lua-0.10.26 --add-module=/build/ModSecurity-nginx-1.0.3 --with-stream\n")
	if !slices.Contains(o.Builtin, "ngx_http_modsecurity_module.so") {
		t.Errorf("ModSecurity-nginx compiled in: %+v", o)
	}
}
