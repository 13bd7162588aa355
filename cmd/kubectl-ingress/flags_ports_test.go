package main

import (
	"slices"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestReservedPorts: TCP and UDP services may not take the ports of
// nginx (HTTP, HTTPS, status, passthrough) nor those of the controller
// process (health, metrics, webhook).
func TestReservedPorts(t *testing.T) {
	flags := NewRenderFlags()
	render := flags.BuildOptions().ReservedPorts
	for _, p := range []int{80, 443, 10246, 10254} {
		if !slices.Contains(render, p) {
			t.Errorf("render reserves %v, want %d among them", render, p)
		}
	}
	o := NewControllerOptions(genericiooptions.IOStreams{})
	o.HealthAddr, o.MetricsAddr, o.Webhook.Address = ":10254", "127.0.0.1:9090", ":8443"
	o.Render.EnableSSLPassthrough = true
	if err := o.Complete(nil); err != nil {
		t.Fatal(err)
	}
	got := o.Render.BuildOptions().ReservedPorts
	for _, p := range []int{80, 443, 10246, 10254, 9090, 8443, 442, 441} {
		if !slices.Contains(got, p) {
			t.Errorf("the controller reserves %v, want %d among them", got, p)
		}
	}
	o.HealthAddr, o.MetricsAddr, o.Webhook.Address = "", "", ""
	if err := o.Complete(nil); err != nil {
		t.Fatal(err)
	}
	if got := o.Render.BuildOptions().ReservedPorts; slices.Contains(got, 10254) || slices.Contains(got, 8443) {
		t.Errorf("without health, metrics and webhook the controller reserves %v", got)
	}
}
