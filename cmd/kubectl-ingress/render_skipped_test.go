package main

import (
	"strings"
	"testing"
)

const skippedInput = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ours}
spec:
  ingressClassName: nginx
  rules:
  - host: ours.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: theirs}
spec:
  ingressClassName: traefik
  rules:
  - host: theirs.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
---
apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: old}
spec:
  backend: {serviceName: web, servicePort: 80}
`

// Input left out is reported as problems that start with "skipped:",
// counted apart in the summary line, and --fail-on-problems acts on it.
func TestRenderReportsSkippedInput(t *testing.T) {
	code, _, errOut := runCmd(t, skippedInput, "render", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`ingress default/theirs: spec.ingressClassName: skipped: class "traefik" has no IngressClass in the input and is not --ingress-class "nginx"`,
		`ingress default/old: apiVersion: skipped: extensions/v1beta1 is an API version this controller does not read`,
		"; skipped 1 Ingress of another class, 1 Ingress of an old API version; 2 problem(s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := runCmd(t, skippedInput, "render", "-f", "-", "--fail-on-problems"); code != 2 {
		t.Errorf("--fail-on-problems with skipped input: exit %d, want 2\n%s", code, errOut)
	}

	// A --configmap given and absent is reported; the default one is not.
	code, _, errOut = runCmd(t, skippedInput, "render", "-f", "-", "--configmap", "ops/nginx", "--fail-on-problems")
	if code != 2 || !strings.Contains(errOut, "configmap ops/nginx: skipped: the --configmap is not in the input") ||
		!strings.Contains(errOut, ", 1 absent ConfigMap; 3 problem(s)") {
		t.Errorf("--configmap absent: exit %d:\n%s", code, errOut)
	}

	// Only our Ingress: nothing skipped, exit 0 with --fail-on-problems.
	ours := strings.Split(skippedInput, "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: theirs}")[0]
	code, _, errOut = runCmd(t, ours, "render", "-f", "-", "--fail-on-problems")
	if code != 0 || strings.Contains(errOut, "skipped") {
		t.Errorf("no skipped input: exit %d:\n%s", code, errOut)
	}
}
