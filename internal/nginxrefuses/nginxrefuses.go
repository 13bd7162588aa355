// Package nginxrefuses gives the quarantine tests (the controller on
// files and on envtest, the Strict webhook, the quarantine benchmark)
// their culprit: an Ingress that render accepts (no Problem, the path
// served) and that a real nginx -t refuses on a line the writer wrote for
// it.
//
// All holds the real such inputs found so far. Each was a gap in render's
// validation, and render refuses each one now; they stay as regression
// guards (TestAllRefusedByRender), and Pick still returns the first one
// that render accepts and nginx refuses, should one come back. When none
// is left — the normal case — Pick returns Culprit, whose line comes from
// the writer's test seam (nginxconf.ConfOptions.TestRefusal): so every test
// of a culprit must write its nginx.conf with Conf (or Seam) applied, for
// the seam to be on. The seam is reachable by no flag, ConfigMap key or
// object; only tests set it.
//
// TenantInputs is the table of issue 11's tenant inputs (tenantinputs.go):
// every one a tenant can write as objects, with what must come of it (a
// Problem on which object and field, or served); Tenant lays them out as
// one tenant's Ingresses and ExternalName Services, as objects or YAML, for
// the tests of render, the controller and the webhook.
//
// It is a test helper: only _test.go files import it, never product code.
package nginxrefuses

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Input is what an Ingress holds for nginx -t to refuse it.
type Input struct {
	Name string
	// Annotations, without the nginx.ingress.kubernetes.io/ prefix.
	Annotations map[string]string
	// Path is the Ingress path ("/" when empty); with Regex it is an
	// ImplementationSpecific path under use-regex.
	Path  string
	Regex bool
}

// SeamPath is the path of Culprit: the path the writer's test seam
// (nginxconf.ConfOptions.TestRefusal, set by Seam) adds a refused line to.
const SeamPath = "/kubectl-ingress-test-refusal"

// Culprit is the input Pick returns when no input of All is left: a plain
// Prefix path SeamPath, which render accepts, and which nginx -t refuses
// (unknown directive nginxconf.TestRefusalDirective, on a line of that
// Ingress's location) when the nginx.conf was written with Seam applied.
// Without the seam it is a valid Ingress like any other.
var Culprit = Input{Name: "the writer's test seam: an unknown directive in the location of path " + SeamPath, Path: SeamPath}

// Seam returns o with the writer's test seam on for Culprit's path.
func Seam(o nginxconf.ConfOptions) nginxconf.ConfOptions {
	o.TestRefusal = SeamPath
	return o
}

// Conf is nginxconf.DefaultConfOptions with Seam applied.
func Conf() nginxconf.ConfOptions { return Seam(nginxconf.DefaultConfOptions()) }

// All are the real inputs, in order of preference. Each was refused by
// nginx 1.22.1 (PCRE2) while render accepted it; render refuses each one
// now (limit-connections above 65535 and proxy-buffer-size above 1024m
// since they are bounded as nginx bounds them, the regexes since they are
// validated as PCRE2 does), and they stay for the day it regresses.
var All = []Input{
	{Name: "limit-connections above nginx's 65535", Annotations: map[string]string{"limit-connections": "70000"}},
	{Name: "proxy-buffer-size above proxy_max_temp_file_size (1024m)", Annotations: map[string]string{"proxy-buffer-size": "2048m"}},
	{Name: "a regex PCRE2 compiles to more than 64K", Regex: true, Path: "/(?:[a-z]|[0-9]){1000}(?:[a-y]|[0-9]){1000}"},
	{Name: "a regex nested deeper than PCRE2's 250", Regex: true, Path: "/" + strings.Repeat("(?:", 260) + "a" + strings.Repeat(")", 260)},
	{Name: "a named capture named like an nginx variable", Regex: true, Path: "/(?P<uri>.*)"},
	{Name: "a character class range at a set", Regex: true, Path: `/[\d-z]`},
}

func (in Input) path() (string, networkingv1.PathType) {
	switch {
	case in.Path == "":
		return "/", networkingv1.PathTypePrefix
	case in.Regex:
		return in.Path, networkingv1.PathTypeImplementationSpecific
	}
	return in.Path, networkingv1.PathTypePrefix
}

// annotations are the full annotation keys and values.
func (in Input) annotations() map[string]string {
	ann := map[string]string{}
	for k, v := range in.Annotations {
		ann["nginx.ingress.kubernetes.io/"+k] = v
	}
	if in.Regex {
		ann["nginx.ingress.kubernetes.io/use-regex"] = "true"
	}
	return ann
}

// Ingress is an Ingress of class nginx ns/name for host, one path with in
// to port 80 of service.
func (in Input) Ingress(ns, name, host, service string) *networkingv1.Ingress {
	path, pt := in.path()
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: in.annotations()},
		Spec: networkingv1.IngressSpec{
			IngressClassName: new("nginx"),
			Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}},
				}}},
			}}}},
		},
	}
}

// YAML is the same Ingress as a manifest, created at created (RFC 3339).
func (in Input) YAML(ns, name, host, service, created string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: %s\n  creationTimestamp: %q\n  annotations:\n", name, ns, created)
	ann := in.annotations()
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s: %q\n", k, ann[k])
	}
	path, pt := in.path()
	fmt.Fprintf(&b, "spec:\n  ingressClassName: nginx\n  rules:\n  - host: %s\n    http:\n      paths:\n      - path: %q\n        pathType: %s\n        backend: {service: {name: %s, port: {number: 80}}}\n", host, path, pt, service)
	return b.String()
}

// Pick returns the first input of All that render accepts without a
// Problem and a real nginx -t refuses on a line (a gap of render's that
// came back), else Culprit after checking that nginx -t refuses it with
// the seam on; and logs which. The caller writes its nginx.conf with Seam
// (or Conf) either way. The test is skipped when nginx is not installed.
func Pick(t testing.TB) Input {
	t.Helper()
	in, err := pick(nginxtest.Tester(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nginxrefuses.Pick: %s", in.Name)
	return in
}

// Snapshot is the Snapshot of in alone: the Ingress probe/probe for
// probe.example.com to Service web, its class and the Service.
func (in Input) Snapshot() render.Snapshot {
	return render.Snapshot{
		Ingresses:      []*networkingv1.Ingress{in.Ingress("probe", "probe", "probe.example.com", "web")},
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Namespace: "probe", Name: "web"}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		}}},
	}
}

// verdict is what render and nginx -t make of an input.
type verdict struct {
	problems []string
	// refused is nginx -t's refusal on a line; err any other failure.
	refused *nginx.TestError
	err     error
}

func judge(tester *nginx.Instance, in Input, conf nginxconf.ConfOptions) verdict {
	cfg, problems := render.Build(in.Snapshot(), render.DefaultOptions())
	if len(problems) > 0 {
		var v verdict
		for _, p := range problems {
			v.problems = append(v.problems, p.String())
		}
		return v
	}
	text, err := nginxconf.NGINXConf(cfg, conf)
	if err != nil {
		return verdict{err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = tester.Test(ctx, text)
	var te *nginx.TestError
	if errors.As(err, &te) && te.Line > 0 {
		return verdict{refused: te}
	}
	return verdict{err: err}
}

func pick(tester *nginx.Instance) (Input, error) {
	for _, in := range All {
		if v := judge(tester, in, nginxconf.DefaultConfOptions()); v.refused != nil {
			return in, nil
		}
	}
	v := judge(tester, Culprit, Conf())
	switch {
	case v.refused == nil:
		return Input{}, fmt.Errorf("%s: render's Problems %v, nginx -t gives %v; want no Problem and a refusal on a line", Culprit.Name, v.problems, v.err)
	case !strings.Contains(v.refused.Message, nginxconf.TestRefusalDirective):
		return Input{}, fmt.Errorf("%s: nginx -t refuses %q, want the seam's directive", Culprit.Name, v.refused.Message)
	}
	return Culprit, nil
}
