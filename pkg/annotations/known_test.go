package annotations

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestKnownNameListsSorted(t *testing.T) {
	for name, list := range map[string][]string{"ingressNginxAnnotations": ingressNginxAnnotations, "ingressNginxConfigKeys": ingressNginxConfigKeys} {
		if !sort.StringsAreSorted(list) {
			t.Errorf("%s is not sorted", name)
		}
		for i := 1; i < len(list); i++ {
			if list[i] == list[i-1] {
				t.Errorf("%s: %s twice", name, list[i])
			}
		}
	}
	if !sort.SliceIsSorted(removedAnnotations, func(i, j int) bool { return removedAnnotations[i].Name < removedAnnotations[j].Name }) {
		t.Error("removedAnnotations is not sorted")
	}
}

// Every annotation we implement or refuse by name is one of
// ingress-nginx's; a removed one is neither.
func TestKnownAnnotationsCoverTables(t *testing.T) {
	for _, s := range annotationSpecs {
		if !inSorted(ingressNginxAnnotations, s.Name) {
			t.Errorf("supported annotation %s is missing from ingressNginxAnnotations", s.Name)
		}
	}
	for _, u := range unsupportedAnnotations {
		if !inSorted(ingressNginxAnnotations, u.Name) {
			t.Errorf("unsupported annotation %s is missing from ingressNginxAnnotations", u.Name)
		}
	}
	for _, r := range removedAnnotations {
		if inSorted(ingressNginxAnnotations, r.Name) || lookupAnnotationSpec(r.Name) != nil || lookupUnsupportedAnnotation(r.Name) != nil {
			t.Errorf("removed annotation %s is in another table", r.Name)
		}
	}
	for _, s := range configKeySpecs {
		if !inSorted(ingressNginxConfigKeys, s.Key) {
			t.Errorf("supported ConfigMap key %s is missing from ingressNginxConfigKeys", s.Key)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"proxy-body-size", "proxy-buffer-size", "ssl-redirect", "force-ssl-redirect", "ssl-passthrough", "affinity", "app-root", "canary"}
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"proxy-bodysize", []string{"proxy-body-size"}},
		{"proxy-body-sise", []string{"proxy-body-size"}},
		{"Proxy-Body-Size", []string{"proxy-body-size"}},
		{"ssl-redirects", []string{"ssl-redirect"}},
		{"afinity", []string{"affinity"}},
		{"app-rot", []string{"app-root"}},
		{"canry", []string{"canary"}},
		{"proxy-buffr-siz", []string{"proxy-buffer-size"}},
		{"proxy-bufer-size", []string{"proxy-buffer-size"}},
		{"proxy-size", nil},   // too far from all
		{"body-size", nil},    // a part is not a typo
		{"abc", nil},          // too short to guess
		{"ssl-passthru", nil}, // 3 edits
		{"zzz-unheard-of", nil},
	} {
		if got := suggest(c.in, known); !reflect.DeepEqual(got, c.want) {
			t.Errorf("suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// At most two, the closest first.
	got := suggest("limit-rpx", []string{"limit-rat", "limit-rps", "limit-rpm", "limit-rp"})
	if want := []string{"limit-rps", "limit-rpm"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"same", "same", 0},
	} {
		if got := editDistance(c.a, c.b, 10); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := editDistance("kitten", "sitting", 1); got <= 1 {
		t.Errorf("limited distance %d, want above 1", got)
	}
}

func TestAnnotationDidYouMean(t *testing.T) {
	for in, want := range map[string]string{
		"enable-cor":           "(did you mean enable-cors?)",
		"proxy-read-timout":    "(did you mean proxy-read-timeout?)",
		"enable-global-auths":  "(did you mean enable-global-auth?)",
		"ssl-redirects":        "(did you mean ssl-redirect?)",
		"nothing-like-it-here": "(check the spelling)",
	} {
		_, problems := ParseIngress(testIngress, annots(in, "x"))
		if len(problems) != 1 || !strings.HasPrefix(problems[0].Reason, "unknown annotation: ") || !strings.Contains(problems[0].Reason, want) {
			t.Errorf("%s: got %v, want %q", in, problems, want)
		}
	}
}

// A value with which ingress-nginx behaves as we do without the
// annotation is no Problem; any other value of it still is.
func TestAnnotationNoOpValues(t *testing.T) {
	for _, c := range []struct {
		name, value string
		problem     bool
	}{
		{"enable-opentelemetry", "false", false},
		{"enable-opentracing", "false", false},
		{"enable-influxdb", "false", false},
		{"http2-push-preload", "false", false},
		{"disable-proxy-intercept-errors", "false", false},
		{"opentelemetry-trust-incoming-span", "true", false},
		{"opentelemetry-trust-incoming-span", "false", true},
		{"session-cookie-partitioned", "false", false},
		{"influxdb-host", "false", true}, // no NoOp value
	} {
		got, problems := ParseIngress(testIngress, annots(c.name, c.value))
		if (len(problems) > 0) != c.problem {
			t.Errorf("%s: %q: problems %v, want a problem: %v", c.name, c.value, problems, c.problem)
		}
		if len(problems) > 0 && !strings.Contains(problems[0].Reason, "not supported") {
			t.Errorf("%s: %q: %s", c.name, c.value, problems[0].Reason)
		}
		if !reflect.DeepEqual(got, defaultAnnotations()) {
			t.Errorf("%s: %q changed the settings: %+v", c.name, c.value, got)
		}
	}
}

func TestConfigMapUnknownAndNoOp(t *testing.T) {
	_, problems := ParseConfigMap(testConfigMap, map[string]string{
		"allow-snippet-annotations": "false",
		"proxy-body-sise":           "1m",
		"hostname-lookup":           "on",
		"lua-shared-dicts":          "certificate_data: 20",
		"use-gzipp":                 "true",
	})
	want := []model.Problem{
		{Object: testConfigMap, Field: "data[hostname-lookup]", Reason: "unknown key: neither kubectl-ingress nor ingress-nginx has it (check the spelling); the key is ignored"},
		{Object: testConfigMap, Field: "data[lua-shared-dicts]", Reason: "not supported by kubectl-ingress; the key is ignored"},
		{Object: testConfigMap, Field: "data[proxy-body-sise]", Reason: "unknown key: neither kubectl-ingress nor ingress-nginx has it (did you mean proxy-body-size?); the key is ignored"},
		{Object: testConfigMap, Field: "data[use-gzipp]", Reason: "unknown key: neither kubectl-ingress nor ingress-nginx has it (did you mean use-gzip?); the key is ignored"},
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("got %v\nwant %v", problems, want)
	}
}
