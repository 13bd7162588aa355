package snippet

import (
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestTranslateGeoIP2Variables: the $geoip2_* variables of use-geoip2 are
// in the snippet allowlist (ingress-nginx users pass them upstream or in
// headers); a $geoip2_ name no database defines is refused.
func TestTranslateGeoIP2Variables(t *testing.T) {
	s, refused := Translate(ConfigurationSnippet, "proxy_set_header X-Country $geoip2_city_country_code;\nadd_header X-ASN \"$geoip2_asn $geoip2_org\";")
	if len(refused) != 0 {
		t.Fatalf("refused: %v", refused)
	}
	want := []model.Header{{Name: "X-Country", Value: "$geoip2_city_country_code", Vars: true}}
	if !reflect.DeepEqual(s.ProxySetHeaders, want) || len(s.AddHeaders) != 1 || s.AddHeaders[0].Value != "$geoip2_asn $geoip2_org" {
		t.Errorf("got %+v %+v", s.ProxySetHeaders, s.AddHeaders)
	}
	if _, refused := Translate(ConfigurationSnippet, "proxy_set_header X-Geo $geoip2_nonesuch;"); len(refused) != 1 {
		t.Errorf("$geoip2_nonesuch: refused %v", refused)
	}
}
