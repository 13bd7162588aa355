package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const sharingFlag = "--allow-cross-namespace-host-sharing"

// olderTeamA and youngerTeamB share a host from two namespaces; team-b's
// regex would take team-a's /admin.
const olderTeamA = `apiVersion: v1
kind: Service
metadata: {name: admin, namespace: team-a}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: admin, namespace: team-a, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  ingressClassName: nginx
  rules:
  - host: shared.example.com
    http:
      paths:
      - {path: /admin, pathType: Prefix, backend: {service: {name: admin, port: {number: 80}}}}
`

const youngerTeamB = `apiVersion: v1
kind: Service
metadata: {name: takeover, namespace: team-b}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: takeover
  namespace: team-b
  creationTimestamp: "2026-02-01T00:00:00Z"
  annotations: {nginx.ingress.kubernetes.io/use-regex: "true"}
spec:
  ingressClassName: nginx
  rules:
  - host: shared.example.com
    http:
      paths:
      - {path: "/.*", pathType: ImplementationSpecific, backend: {service: {name: takeover, port: {number: 80}}}}
`

// TestSharingFlag: --allow-cross-namespace-host-sharing is one of the
// render flags of controller, render and diff, and reaches render.Options
// (the webhook of the controller builds with the same Options).
func TestSharingFlag(t *testing.T) {
	streams := genericiooptions.NewTestIOStreamsDiscard()
	for _, cmd := range []string{"controller", "render", "diff"} {
		c, _, err := NewCmdRoot(streams).Find([]string{cmd})
		if err != nil {
			t.Fatal(err)
		}
		f := c.Flags().Lookup(strings.TrimPrefix(sharingFlag, "--"))
		if f == nil || f.DefValue != "false" {
			t.Errorf("%s: flag %s missing or not false by default: %+v", cmd, sharingFlag, f)
		}
	}

	dir := t.TempDir()
	from, to := filepath.Join(dir, "from.yaml"), filepath.Join(dir, "to.yaml")
	if err := os.WriteFile(from, []byte(olderTeamA), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, []byte(olderTeamA+"---\n"+youngerTeamB), 0o644); err != nil {
		t.Fatal(err)
	}
	const problem = `ingress team-b/takeover: spec.rules[0].http.paths[0].path: host "shared.example.com" path "/.*" (ImplementationSpecific, regex) would take requests for path "/admin" (Prefix) of ingress team-a/admin (older)`

	code, out, errOut := runCmd(t, "", "render", "-f", to, "--routing=nginx") // the locations as nginx.conf text
	if code != 0 || !strings.Contains(errOut, problem) {
		t.Errorf("render: exit %d, want 0 and the Problem %q in:\n%s", code, problem, errOut)
	}
	if !strings.Contains(out, `location "/admin/"`) || strings.Contains(out, `"^/.*"`) {
		t.Errorf("render: team-a's /admin must stay a prefix and team-b's regex be left out:\n%s", out)
	}
	code, out, errOut = runCmd(t, "", "render", "-f", to, sharingFlag, "--routing=nginx")
	if code != 0 || strings.Contains(errOut, "would take requests") {
		t.Errorf("render %s: exit %d, want 0 and no Problem:\n%s", sharingFlag, code, errOut)
	}
	if !strings.Contains(out, `location ~* "^/admin"`) || !strings.Contains(out, `location ~* "^/.*"`) {
		t.Errorf("render %s: want every path of the host a regex, as ingress-nginx:\n%s", sharingFlag, out)
	}

	// diff --fail-on=problems exits 4 when the change introduces Problems.
	if code, _, errOut := runCmd(t, "", "diff", "--from", from, "--to", to, "--fail-on=problems", "--color=never"); code != 4 {
		t.Errorf("diff: exit %d, want 4 (a Problem introduced):\n%s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "", "diff", "--from", from, "--to", to, "--fail-on=problems", "--color=never", sharingFlag); code != 0 {
		t.Errorf("diff %s: exit %d, want 0:\n%s", sharingFlag, code, errOut)
	}
}
