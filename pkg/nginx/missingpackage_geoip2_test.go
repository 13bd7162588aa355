package nginx

import "testing"

// The GeoIP2 module of use-geoip2, missing: Debian's package is named.
func TestMissingPackageGeoIP2(t *testing.T) {
	msg := `dlopen() "/usr/lib/nginx/modules/ngx_http_geoip2_module.so" failed (/usr/lib/nginx/modules/ngx_http_geoip2_module.so: cannot open shared object file: No such file or directory)`
	if got := MissingPackage(msg); got != "libnginx-mod-http-geoip2" {
		t.Errorf("MissingPackage = %q", got)
	}
	// A database that nginx cannot open is no missing package.
	if got := MissingPackage(`MMDB_open("/etc/ingress-controller/geoip/GeoLite2-City.mmdb") failed - Error opening the specified MaxMind DB file`); got != "" {
		t.Errorf("MissingPackage of a missing database = %q", got)
	}
}
