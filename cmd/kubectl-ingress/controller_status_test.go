package main

import (
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func TestControllerStatusFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--publish-service", "ns/svc", "--publish-status-address", "192.0.2.1"}, "mutually exclusive"},
		{[]string{"--publish-service", "/svc"}, "--publish-service must be namespace/name"},
		{[]string{"--publish-status-address", "192.0.2.1,bad_host"}, `"bad_host" is neither an IP address nor a DNS name`},
		{[]string{"--status-update-interval", "0"}, "--status-update-interval must be positive"},
		{[]string{"--election-ttl", "0s"}, "--election-ttl must be positive"},
		{[]string{"--from-files", dir, "--publish-status-address", "192.0.2.1"}, "apply in a cluster only"},
	}
	for _, tc := range cases {
		code, _, errOut := runCmd(t, "", append([]string{"controller"}, tc.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestControllerStatusDutiesOnlyInClusterMode(t *testing.T) {
	cs, err := controller.NewClusterSource(controller.ClusterSourceConfig{Client: fake.NewClientset()})
	if err != nil {
		t.Fatal(err)
	}
	files, err := controller.NewFileSource(t.TempDir(), controller.FileSourceOptions{DefaultNamespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("POD_NAME", "ingress-0")
	t.Setenv("POD_NAMESPACE", "")

	f := NewStatusFlags()
	f.PublishStatusAddress = "192.0.2.1"
	if d, err := f.duties(files, render.DefaultOptions()); d != nil || err != nil {
		t.Errorf("files source: duties %v, error %v; want none (no API server: no election, no status)", d, err)
	}
	if _, err := f.duties(cs, render.DefaultOptions()); err == nil || !strings.Contains(err.Error(), "POD_NAMESPACE") {
		t.Errorf("cluster without POD_NAMESPACE: error %v, want one naming POD_NAMESPACE", err)
	}
	off := f
	off.UpdateStatus = false
	if d, err := off.duties(cs, render.DefaultOptions()); d != nil || err != nil {
		t.Errorf("--update-status=false: duties %v, error %v; want none", d, err)
	}
	f.ElectionNamespace = "ingress"
	d, err := f.duties(cs, render.DefaultOptions())
	if err != nil || d == nil {
		t.Fatalf("cluster with --election-namespace: duties %v, error %v", d, err)
	}
	if d.d.Elector.Identity() != "ingress-0" || !d.d.UpdateStatusOnShutdown || len(d.observers()) != 1 {
		t.Errorf("identity %q, clear on shutdown %v, observers %d; want ingress-0, true, 1", d.d.Elector.Identity(), d.d.UpdateStatusOnShutdown, len(d.observers()))
	}
}
