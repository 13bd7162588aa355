package nginx

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMissingPackage(t *testing.T) {
	for _, tc := range []struct{ message, want string }{
		{`dlopen() "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so" failed (/usr/lib/nginx/modules/ngx_http_modsecurity_module.so: cannot open shared object file: No such file or directory)`, "libnginx-mod-http-modsecurity"},
		{`dlopen() "/m/ngx_http_brotli_filter_module.so" failed (/m/ngx_http_brotli_filter_module.so: cannot open shared object file: No such file or directory)`, "libnginx-mod-http-brotli-filter"},
		{`"modsecurity_rules" directive Rules error. File: <<reference missing or not informed>>. Line: 1. Column: 46. /usr/share/modsecurity-crs/rules/*.conf: Not able to open file.`, "modsecurity-crs"},
		{`"modsecurity_rules" directive Rules error. /etc/modsecurity/crs/crs-setup.conf: Not able to open file.`, "modsecurity-crs"},
		// A module that is there but does not fit this nginx is not a missing package.
		{`module "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so" version 1021001 instead of 1022001`, ""},
		{`unknown directive "modsecurity"`, ""},
	} {
		if got := MissingPackage(tc.message); got != tc.want {
			t.Errorf("MissingPackage(%q) = %q, want %q", tc.message, got, tc.want)
		}
	}
}

// TestTestNamesMissingPackage: a real nginx -t of a config that loads the
// ModSecurity module from a directory without it fails with a message
// naming Debian's package.
func TestTestNamesMissingPackage(t *testing.T) {
	requireNginx(t)
	in := New(t.TempDir(), Options{})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conf := "load_module " + filepath.Join(t.TempDir(), "ngx_http_modsecurity_module.so") + ";\nevents {}\n"
	err := in.Test(ctx, []byte(conf))
	var te *TestError
	if !errors.As(err, &te) || !strings.Contains(te.Message, "libnginx-mod-http-modsecurity is not installed") ||
		!strings.Contains(err.Error(), "libnginx-mod-http-modsecurity is not installed") {
		t.Fatalf("Test: %v", err)
	}
}
