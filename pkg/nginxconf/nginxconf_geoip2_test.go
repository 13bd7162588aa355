package nginxconf

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/geoip2test"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestGeoIP2Lines: the module and one block per database found, with
// ingress-nginx's variables, auto_reload and source; nothing without
// use-geoip2 or without a database; empty fallbacks for the variables a
// config reads that no block defines.
func TestGeoIP2Lines(t *testing.T) {
	for _, tc := range []struct {
		name       string
		g          model.GeoIP2
		format     string
		want, none []string
	}{
		{name: "off", g: model.GeoIP2{Databases: []string{"GeoLite2-City"}}, none: []string{"geoip2", "load_module \"/usr/lib/nginx/modules/ngx_http_geoip2_module.so\""}},
		{name: "no database", g: model.GeoIP2{Enable: true}, none: []string{"geoip2"}},
		{name: "city and asn", g: model.GeoIP2{Enable: true, Databases: []string{"GeoLite2-City", "GeoLite2-ASN"}},
			want: []string{
				"load_module \"/usr/lib/nginx/modules/ngx_http_geoip2_module.so\";",
				"\tgeoip2 \"/etc/ingress-controller/geoip/GeoLite2-City.mmdb\" {\n\t\t$geoip2_city_country_code source=$remote_addr country iso_code;\n",
				"$geoip2_region_name source=$remote_addr subdivisions 0 names en;",
				"\tgeoip2 \"/etc/ingress-controller/geoip/GeoLite2-ASN.mmdb\" {\n\t\t$geoip2_asn source=$remote_addr autonomous_system_number;\n\t\t$geoip2_org source=$remote_addr autonomous_system_organization;\n\t}\n",
			},
			none: []string{"auto_reload", "map \"\" $geoip2_"}},
		{name: "auto reload, no source for connection type", g: model.GeoIP2{Enable: true, AutoReloadMinutes: 5, Databases: []string{"GeoIP2-Anonymous-IP", "GeoIP2-Connection-Type", "GeoIP2-Domain"}},
			want: []string{
				"geoip2 \"/etc/ingress-controller/geoip/GeoIP2-Anonymous-IP.mmdb\" {\n\t\tauto_reload 5m;\n",
				"$geoip2_is_anonymous_vpn source=$remote_addr default=0 is_anonymous_vpn;",
				"geoip2 \"/etc/ingress-controller/geoip/GeoIP2-Connection-Type.mmdb\" {\n\t\t$geoip2_connection_type connection_type;\n\t}\n",
			},
			none: []string{"GeoIP2-Domain"}},
		{name: "fallbacks for a missing database", g: model.GeoIP2{Enable: true, Databases: []string{"GeoLite2-ASN"}},
			format: "$remote_addr $geoip2_city_country_code ${geoip2_city} $geoip2_asn $geoip2_city_x",
			want:   []string{"map \"\" $geoip2_city_country_code {\n\t\tdefault \"\";\n\t}\n", "map \"\" $geoip2_city {"},
			none:   []string{"map \"\" $geoip2_asn", "map \"\" $geoip2_region_name", "geoip2_city_x {"}},
		{name: "fallbacks with use-geoip2 off", format: "$geoip2_org",
			want: []string{"map \"\" $geoip2_org {"}, none: []string{"load_module \"/usr/lib/nginx/modules/ngx_http_geoip2_module.so\""}},
	} {
		c := &model.Config{Global: model.DefaultGlobal()}
		c.Global.GeoIP2 = tc.g
		if tc.format != "" {
			c.Global.Logging.FormatUpstream = tc.format
		}
		b, err := NGINXConf(c, DefaultConfOptions())
		if err != nil {
			t.Fatal(err)
		}
		conf := string(b)
		for _, w := range tc.want {
			if !strings.Contains(conf, w) {
				t.Errorf("%s: no %q in:\n%s", tc.name, w, conf)
			}
		}
		for _, n := range tc.none {
			if strings.Contains(conf, n) {
				t.Errorf("%s: %q in the config", tc.name, n)
			}
		}
	}
}

// TestGeoIP2NginxAccepts: a real nginx -t accepts the blocks of every
// edition (databases generated here), with auto_reload, a log format and
// a header reading their variables, variables defined by two databases
// (ASN and ISP), and the fallbacks of the variables of missing databases.
func TestGeoIP2NginxAccepts(t *testing.T) {
	in := nginxtest.Tester(t)
	dir := t.TempDir()
	editions := []string{"GeoLite2-City", "GeoLite2-ASN", "GeoIP2-ISP", "GeoIP2-Anonymous-IP", "GeoIP2-Connection-Type", "GeoLite2-Country"}
	for _, e := range editions {
		if err := geoip2test.Write(filepath.Join(dir, e+".mmdb"), e, geoip2test.Record{CIDR: "127.0.0.0/8", Data: geoip2test.City("NO", "Norway", "Oslo")}); err != nil {
			t.Fatal(err)
		}
	}
	o := DefaultConfOptions()
	o.GeoIP2Dir = dir
	for _, tc := range []struct {
		name string
		dbs  []string
	}{
		{"all", editions},
		{"none found", nil},
		{"city only", []string{"GeoLite2-City"}},
	} {
		c := &model.Config{Global: model.DefaultGlobal()}
		c.Global.GeoIP2 = model.GeoIP2{Enable: true, AutoReloadMinutes: maxAutoReloadForTest, Databases: tc.dbs}
		c.Global.Logging.FormatUpstream = "$remote_addr $geoip2_city_country_code $geoip2_asn $geoip2_isp $geoip2_is_anon $geoip2_connection_type $geoip2_country_code"
		c.Global.BackendHeaders = []model.Header{{Name: "X-Geo", Value: "$geoip2_city/$geoip2_org", Vars: true}}
		conf, err := NGINXConf(c, o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(conf), `proxy_set_header "X-Geo" "$geoip2_city/$geoip2_org";`) {
			t.Fatalf("%s: the header is not written:\n%s", tc.name, conf)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = in.Test(ctx, conf)
		cancel()
		if err != nil {
			t.Errorf("%s: nginx -t: %v\n%s", tc.name, err, conf)
		}
	}
}

// maxAutoReloadForTest is geoip2-autoreload-in-minutes' largest value (a
// year), which nginx must accept.
const maxAutoReloadForTest = 366 * 24 * 60

// TestGeoIP2VariablesRead: the variables read, plain or braced, and not
// the text that only looks like one.
func TestGeoIP2VariablesRead(t *testing.T) {
	got := geoIP2VariablesRead([]byte(`a $geoip2_asn ${geoip2_city} x_geoip2_org "$geoip2_region_name" {geoip2_isp} ${geoip2_isp $geoip2_city_country_code`))
	want := map[string]bool{"geoip2_asn": true, "geoip2_city": true, "geoip2_region_name": true, "geoip2_city_country_code": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
