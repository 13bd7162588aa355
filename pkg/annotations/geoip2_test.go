package annotations

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestGeoIP2Variables: use-geoip2's variables may be read where users read
// them with ingress-nginx (the access log format, add-headers and
// proxy-set-headers values, snippet values); a $geoip2_ name that no
// database defines stays refused.
func TestGeoIP2Variables(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{`$remote_addr $geoip2_city_country_code "$geoip2_city" $geoip2_asn ${geoip2_org}`, true},
		{"$geoip2_country_code $geoip2_is_anonymous $geoip2_connection_type $geoip2_isp", true},
		{"$geoip2_region_geoname_id-$geoip2_subregion_name", true},
		{"$geoip2_bogus", false},
		{"$geoip2_", false},
		{"$geoip_city", false}, // the legacy module's names: nothing defines them
	} {
		_, err := valueLogFormat(tc.value)
		if (err == nil) != tc.ok {
			t.Errorf("log format %q: %v", tc.value, err)
		}
		if err := valueAddedHeader(tc.value, true); (err == nil) != tc.ok {
			t.Errorf("header value %q: %v", tc.value, err)
		}
		for _, phase := range []SnippetVarPhase{SnippetRequestPhase, SnippetResponsePhase} {
			if err := CheckSnippetValue(tc.value, phase); (err == nil) != tc.ok {
				t.Errorf("snippet value %q (phase %d): %v", tc.value, phase, err)
			}
		}
	}
	for _, name := range model.GeoIP2VariableNames() {
		if !logFormatVars.allows(name) || !headerVars.allows(name) {
			t.Errorf("$%s is not allowed", name)
		}
	}
}

// TestGeoIP2ConfigKeys: use-geoip2 "true" and geoip2-autoreload-in-minutes
// are typed settings, with no Problem.
func TestGeoIP2ConfigKeys(t *testing.T) {
	g, problems := ParseConfigMap(testConfigMap, map[string]string{
		"use-geoip2": "true", "geoip2-autoreload-in-minutes": "5",
		"log-format-upstream": "$remote_addr $geoip2_city_country_code $geoip2_asn",
	})
	if len(problems) != 0 || !g.GeoIP2.Enable || g.GeoIP2.AutoReloadMinutes != 5 || g.GeoIP2.Databases != nil ||
		!strings.Contains(g.Logging.FormatUpstream, "$geoip2_asn") {
		t.Fatalf("got %+v %v", g.GeoIP2, problems)
	}
}
