// Package nginxrefuses holds, in one place, the Ingress inputs that render
// accepts (no Problem, the path served) and that nginx -t refuses: the
// culprits of the quarantine tests (the controller on files and on
// envtest, the Strict webhook, the quarantine benchmark).
//
// Each input is a gap in render's validation, which render should close;
// when it does, Pick skips that input and the tests take the next one. Add
// new ones at the end of All.
//
// It is a test helper: only _test.go files import it, never product code.
package nginxrefuses

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
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

// All are the inputs, in order of preference. Each was refused by nginx
// 1.22.1 (PCRE2) when written here; the regex ones are refused by render
// since it validates regexes as PCRE2 does, and stay for the day it
// regresses.
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
// Problem and a real nginx -t refuses on a line, and logs which. The test
// is skipped when nginx is not installed; it fails when no input is left:
// then add one (or, if render refuses all that nginx refuses, the
// quarantine is tested by pkg/controller's tests alone).
func Pick(t testing.TB) Input {
	t.Helper()
	in, err := pick(t.TempDir())
	if errors.Is(err, errNoNginx) {
		t.Skip("nginx is not installed (make deps installs nginx with its Lua module)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return in
}

var errNoNginx = errors.New("nginx is not installed")

func pick(dir string) (Input, error) {
	tester := nginx.New(filepath.Join(dir, "nginx"), nginx.Options{})
	if err := tester.Layout(); err != nil {
		return Input{}, err
	}
	var why []string
	for _, in := range All {
		s := render.Snapshot{
			Ingresses:      []*networkingv1.Ingress{in.Ingress("probe", "probe", "probe.example.com", "web")},
			IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
			Services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Namespace: "probe", Name: "web"}, Spec: corev1.ServiceSpec{
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
			}}},
		}
		cfg, problems := render.Build(s, render.DefaultOptions())
		if len(problems) > 0 {
			why = append(why, fmt.Sprintf("%s: render refuses it (%s)", in.Name, problems[0]))
			continue
		}
		conf, err := render.NGINXConf(cfg, render.DefaultConfOptions())
		if err != nil {
			return Input{}, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = tester.Test(ctx, conf)
		cancel()
		var te *nginx.TestError
		switch {
		case errors.As(err, &te) && te.Line > 0:
			return in, nil
		case errors.Is(err, exec.ErrNotFound):
			return Input{}, errNoNginx
		}
		why = append(why, fmt.Sprintf("%s: nginx -t gives %v", in.Name, err))
	}
	return Input{}, fmt.Errorf("no input of nginxrefuses.All is left that render accepts and nginx -t refuses on a line:\n%s", strings.Join(why, "\n"))
}
