package annotations

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// An annotation whose feature needs an nginx module Debian does not ship
// says which one (issue 12 item 5), in the "not supported" wording.
func TestAnnotationsNamingAMissingModule(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: "web"}
	for name, want := range map[string]string{
		"enable-opentelemetry":              "OpenTelemetry module, which Debian does not ship",
		"opentelemetry-operation-name":      "OpenTelemetry module, which Debian does not ship",
		"opentelemetry-trust-incoming-span": "OpenTelemetry module, which Debian does not ship",
		"enable-opentracing":                "OpenTracing module, which Debian does not ship",
		"enable-influxdb":                   "nginx-influxdb module, which Debian does not ship",
	} {
		value := "true"
		if name == "opentelemetry-trust-incoming-span" {
			value = "false"
		}
		_, problems := ParseIngress(ing, map[string]string{annotationPrefix + name: value})
		if len(problems) != 1 || !strings.Contains(problems[0].Reason, "not supported") || !strings.Contains(problems[0].Reason, want) {
			t.Errorf("%s: %q: got %v, want one Problem saying %q", name, value, problems, want)
		}
	}
}
