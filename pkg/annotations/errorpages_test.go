package annotations

import (
	"reflect"
	"strings"
	"testing"
)

func TestValueStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		v    string
		min  int
		want []int
	}{
		{"404", 400, []int{404}},
		{"503,404,503", 400, []int{404, 503}},
		{" 500 , 502,400,599", 400, []int{400, 500, 502, 599}},
		{"304,300", 300, []int{300, 304}},
	} {
		got, err := valueStatusCodes(tc.v, tc.min)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q (from %d): got %v %v, want %v", tc.v, tc.min, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		v   string
		min int
	}{
		{"", 400}, {",", 400}, {"404,", 400}, {",404", 400}, {"404,,503", 400},
		{"399", 400}, {"302", 400}, {"600", 400}, {"299", 300}, {"1000", 300},
		{"40", 400}, {"0404", 300}, {"+404", 400}, {"-404", 400}, {"4e2", 400}, {"0x1f4", 400},
		{"404 503", 400}, {"404;", 400}, {"404;return 200", 400}, {"404}", 400}, {"{404", 400},
		{"$status", 400}, {"${status}", 400}, {"404\n503", 400}, {"404\x00", 400}, {"४०४", 400},
		{"\"404\"", 400}, {"'404'", 400}, {"404 = @x", 400}, {"404,499", 400}, {"499", 300},
		{strings.Repeat("404,", 300) + "404", 400},
	} {
		if got, err := valueStatusCodes(tc.v, tc.min); err == nil {
			t.Errorf("%q (from %d): accepted as %v", tc.v, tc.min, got)
		} else if !strings.Contains(err.Error(), "must") {
			t.Errorf("%q: error %q does not say what is accepted", tc.v, err)
		}
	}
}

func TestErrorPageAnnotations(t *testing.T) {
	got, problems := ParseIngress(testIngress, annots("custom-http-errors", "503,404", "disable-proxy-intercept-errors", "true"))
	if len(problems) != 0 || !reflect.DeepEqual(got.ErrorPages, ErrorPageAnnotations{Codes: []int{404, 503}, DisableIntercept: true}) {
		t.Errorf("got %+v %v", got.ErrorPages, problems)
	}
	// An invalid list leaves the Ingress without a list of its own (the
	// ConfigMap's applies) and says so.
	got, problems = ParseIngress(testIngress, annots("custom-http-errors", "404,600"))
	if got.ErrorPages.Codes != nil || len(problems) != 1 || !strings.Contains(problems[0].Reason, "using the default (ConfigMap custom-http-errors)") {
		t.Errorf("got %+v %v", got.ErrorPages, problems)
	}
	// Both are ours now: neither is "not supported".
	for _, name := range []string{"custom-http-errors", "disable-proxy-intercept-errors"} {
		if lookupUnsupportedAnnotation(name) != nil || lookupAnnotationSpec(name) == nil {
			t.Errorf("%s: not in the table of supported annotations", name)
		}
	}
}

func TestErrorPagesConfigMap(t *testing.T) {
	g, problems := ParseConfigMap(testConfigMap, map[string]string{"custom-http-errors": "404,401,403,500,503"})
	if len(problems) != 0 || !reflect.DeepEqual(g.CustomHTTPErrors, []int{401, 403, 404, 500, 503}) {
		t.Errorf("got %v %v", g.CustomHTTPErrors, problems)
	}
	g, problems = ParseConfigMap(testConfigMap, map[string]string{"custom-http-errors": "404,demo"})
	if g.CustomHTTPErrors != nil || len(problems) != 1 || problems[0].Field != "data[custom-http-errors]" {
		t.Errorf("got %v %v", g.CustomHTTPErrors, problems)
	}
}
