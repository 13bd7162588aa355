package nginxconf

import (
	"reflect"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fuzzAnnotations are the annotations whose values can reach nginx.conf.
var fuzzAnnotations = []string{
	"rewrite-target", "app-root", "x-forwarded-prefix", "upstream-vhost", "permanent-redirect",
	"temporal-redirect", "proxy-body-size", "proxy-buffer-size", "proxy-read-timeout",
	"cors-allow-origin", "cors-allow-methods", "cors-allow-headers", "cors-expose-headers",
	"allowlist-source-range", "denylist-source-range", "server-alias", "backend-protocol",
	"limit-rps", "configuration-snippet", "use-regex",
}

// FuzzNGINXConf builds an Ingress from arbitrary host, path and annotation
// strings and checks that the nginx.conf either holds exactly the
// directives the writer meant (nginx's tokenizer sees the same directives,
// arguments and blocks) or that the writer refused it, in which case Build
// must have reported a Problem for the value.
func FuzzNGINXConf(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.host, s.path, s.ann, s.value)
	}
	f.Fuzz(func(t *testing.T, host, path string, annIndex uint8, value string) {
		fuzzOne(t, host, path, annIndex, value)
	})
}

// fuzzCase is one input of FuzzNGINXConf: the annotation fuzzAnnotations[ann]
// set to value. testdata/fuzz/FuzzNGINXConf holds more (nginx's limits);
// nginxcheck_test.go feeds them all to a real nginx -t.
type fuzzCase struct {
	host, path string
	ann        uint8
	value      string
}

var fuzzSeeds = []fuzzCase{
	{"shop.example.com", "/", 0, "/$1"},
	{"a.example.com", "/x;}", 1, "/app"},
	{"b.example.com", "/y\" { return 200; }", 2, "/p\nq"},
	{"c.example.com\nx", "/", 3, "evil.com; }"},
	{"*.example.com", "/(.*)", 4, "https://x.example.com/$request_uri"},
	{"d.example.com", "/{", 9, "https://a.com, https://*.b.org"},
	{"e.example.com", "/\\", 14, "10.0.0.0/8, ;deny"},
	{"f.example.com", "/a'b", 18, "return 200;"},
	{"g.example.com", "/ok", 19, "true"},
	{"h.example.com", "/#comment", 15, "alias.example.com"},
}

// fuzzOne builds an Ingress with annotation fuzzAnnotations[annIndex] set to
// value and checks the nginx.conf against nginx's tokenizer.
func fuzzOne(t *testing.T, host, path string, annIndex uint8, value string) {
	name := fuzzAnnotations[int(annIndex)%len(fuzzAnnotations)]
	snap := fuzzSnapshot(host, path, name, value)
	cfg, problems := render.Build(snap, render.DefaultOptions())
	var trace []confEvent
	conf, err := writeNGINXConf(&confWriter{trace: &trace}, cfg, DefaultConfOptions())
	if err != nil {
		if len(problems) == 0 {
			t.Fatalf("the writer refused a value Build accepted without a Problem: %v", err)
		}
		return
	}
	got, err := tokenizeConf(string(conf))
	if err != nil {
		t.Fatalf("nginx would not parse the config: %v\n%s", err, conf)
	}
	if !reflect.DeepEqual(got, trace) {
		t.Fatalf("nginx would see other directives than the writer meant\n%s", firstEventDiff(trace, got))
	}
}

// FuzzQuote checks that nginx's parser gives back exactly the quoted value.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b`, `a\b`, `\"`, "x;y{z}", "$var", `\t`, "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		q, err := quote(v)
		if err != nil {
			return
		}
		events, err := tokenizeConf("d " + q + ";")
		if err != nil {
			t.Fatalf("quote(%q) = %s does not parse: %v", v, q, err)
		}
		if len(events) != 1 || len(events[0].tokens) != 2 || unquoteToken(events[0].tokens[1]) != v {
			t.Fatalf("quote(%q) = %s parses as %v", v, q, events)
		}
	})
}

func fuzzSnapshot(host, path, annotation, value string) render.Snapshot {
	prefix := networkingv1.PathTypePrefix
	class := "nginx"
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{
			Name: "fuzz", Namespace: "default",
			Annotations: map[string]string{annotations.Prefix + annotation: value, annotations.Prefix + "enable-cors": "true", annotations.Prefix + "limit-connections": "3"},
		},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: path, PathType: &prefix,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80},
						}},
					}},
				}},
			}},
		},
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "default"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	return render.Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{svc}}
}

func firstEventDiff(want, got []confEvent) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g confEvent
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if !reflect.DeepEqual(w, g) {
			return "directive " + itoa(i) + ":\n  meant: " + describeEvent(w) + "\n  parsed: " + describeEvent(g)
		}
	}
	return ""
}

func describeEvent(e confEvent) string {
	switch {
	case e.end:
		return "}"
	case e.block:
		return joinTokens(e.tokens) + " {"
	default:
		return joinTokens(e.tokens) + ";"
	}
}

func joinTokens(ts []string) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }
