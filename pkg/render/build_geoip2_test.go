package render

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestGeoIP2Databases: use-geoip2 gets the databases found, in the order
// asked; each missing one is a Problem on use-geoip2 naming its file; no
// database is looked at without use-geoip2.
func TestGeoIP2Databases(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"}}
	for _, tc := range []struct {
		name     string
		data     map[string]string
		dbs      GeoIP2Databases
		want     []string
		problems []string
	}{
		{name: "off", data: map[string]string{"use-geoip2": "false"}, dbs: GeoIP2Databases{Dir: "/d", Editions: []string{"GeoLite2-City"}}},
		{name: "all found", data: map[string]string{"use-geoip2": "true"},
			dbs:  GeoIP2Databases{Dir: "/d", Editions: []string{"GeoLite2-City", "GeoLite2-ASN"}, Found: []string{"GeoLite2-ASN", "GeoLite2-City"}},
			want: []string{"GeoLite2-City", "GeoLite2-ASN"}},
		{name: "one missing", data: map[string]string{"use-geoip2": "true"},
			dbs:      GeoIP2Databases{Dir: "/d", Editions: []string{"GeoLite2-City", "GeoLite2-ASN"}, Found: []string{"GeoLite2-ASN"}},
			want:     []string{"GeoLite2-ASN"},
			problems: []string{"data[use-geoip2]: the GeoIP2 database /d/GeoLite2-City.mmdb is missing: its variables are empty (the controller downloads"}},
		{name: "none found (defaults)", data: map[string]string{"use-geoip2": "true"}, dbs: DefaultGeoIP2Databases(),
			problems: []string{
				"/etc/ingress-controller/geoip/GeoLite2-ASN.mmdb is missing: its variables are empty, and with no database GeoIP2 is off",
				"/etc/ingress-controller/geoip/GeoLite2-City.mmdb is missing",
			}},
		{name: "none asked", data: map[string]string{"use-geoip2": "true"}, dbs: GeoIP2Databases{Dir: "/d"},
			problems: []string{"--maxmind-edition-ids is empty"}},
	} {
		cm.Data = tc.data
		o := DefaultOptions()
		o.GeoIP2 = tc.dbs
		c, problems := Build(Snapshot{ConfigMaps: []*corev1.ConfigMap{cm}}, o)
		if !reflect.DeepEqual(c.Global.GeoIP2.Databases, tc.want) {
			t.Errorf("%s: databases %q, want %q", tc.name, c.Global.GeoIP2.Databases, tc.want)
		}
		if len(problems) != len(tc.problems) {
			t.Errorf("%s: problems %v, want %d", tc.name, problems, len(tc.problems))
			continue
		}
		for i, p := range model.SortProblems(problems) {
			if p.Object.Kind != "ConfigMap" || !strings.Contains(p.String(), tc.problems[i]) {
				t.Errorf("%s: problem %q, want %q", tc.name, p, tc.problems[i])
			}
		}
	}
}
