package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// runCmd runs the kubectl-ingress command tree with args and returns the
// exit status and both streams, as a user would see them.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}
	cmd := NewCmdRoot(streams)
	cmd.SetArgs(args)
	return run(cmd), out.String(), errOut.String()
}

const badAnnotationIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: "lots"
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`

func TestRenderToStdoutNeverPrintsPrivateKeys(t *testing.T) {
	code, out, errOut := runCmd(t, "", "render", "-f", "../../examples")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, part := range []string{"#### nginx.conf", "#### backends.json", "#### servers.json", "#### routes.json", `"host": "shop.example.com"`} {
		if !strings.Contains(out, part) {
			t.Errorf("stdout lacks %q", part)
		}
	}
	if strings.Contains(out, "PRIVATE KEY") || strings.Contains(errOut, "PRIVATE KEY") {
		t.Error("a private key reached the output")
	}
	if !strings.Contains(errOut, "4 Ingress") || !strings.Contains(errOut, "skipped 1 object") {
		t.Errorf("stderr lacks the read summary: %s", errOut)
	}
}

func TestRenderProblemsAndExitCodes(t *testing.T) {
	code, _, errOut := runCmd(t, badAnnotationIngress, "render", "-f", "-", "-n", "team-a")
	if code != 0 {
		t.Fatalf("problems alone must not fail render: exit %d: %s", code, errOut)
	}
	wantLine := "ingress team-a/web: metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]: "
	if !strings.Contains(errOut, wantLine) {
		t.Errorf("stderr lacks a problem line starting %q:\n%s", wantLine, errOut)
	}
	if !strings.Contains(errOut, `service "team-a/web" not found`) {
		t.Errorf("stderr lacks the missing service problem:\n%s", errOut)
	}
	code, _, _ = runCmd(t, badAnnotationIngress, "render", "-f", "-", "--fail-on-problems")
	if code != 2 {
		t.Errorf("--fail-on-problems with problems: exit %d, want 2", code)
	}
}

func TestRenderInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\nkind: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"render"}, "no input"},
		{"missing file", []string{"render", "-f", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"malformed document", []string{"render", "-f", bad}, "bad.yaml: document 2"},
		{"bad port", []string{"render", "-f", "../../examples", "--http-port", "0"}, "--http-port"},
		{"status not loopback", []string{"render", "-f", "../../examples", "--status-address", "0.0.0.0:10246"}, "loopback"},
		{"bad configmap ref", []string{"render", "-f", "../../examples", "--configmap", "nonamespace"}, "namespace/name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", c.args...)
			if code != exitFailure {
				t.Errorf("exit %d, want 3", code)
			}
			if out != "" {
				t.Errorf("stdout must stay empty on error, got %q", out)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("stderr %q lacks %q", errOut, c.want)
			}
		})
	}
}

func TestRenderOutputDirAndValidate(t *testing.T) {
	nginxtest.Require(t)
	dir := t.TempDir()
	code, out, errOut := runCmd(t, "", "render", "-f", "../../examples", "--output-dir", dir, "--validate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("with --output-dir nothing goes to stdout, got %q", out)
	}
	if !strings.Contains(errOut, "nginx -t: the configuration is valid") {
		t.Errorf("stderr lacks the nginx -t verdict: %s", errOut)
	}
	for _, f := range []string{"nginx.conf", "backends.json", "servers.json", "problems.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestValidateReportsNginxMessage(t *testing.T) {
	nginxtest.Require(t)
	err := validateConf(t.Context(), "nginx", []byte("events {}\nhttp { server { listen 127.0.0.1:1; unknown_directive on; } }\n"))
	if err == nil || !strings.Contains(err.Error(), "unknown directive") {
		t.Fatalf("want nginx's own message about the unknown directive, got %v", err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		t.Errorf("a failed validate is a plain error (exit 3), got exit code %d", ee.code)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "kubectl-ingress dev") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}
