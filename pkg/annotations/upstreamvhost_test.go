package annotations

import (
	"strings"
	"testing"
)

func TestUpstreamVhostVariables(t *testing.T) {
	tests := []struct {
		value   string
		want    string // the setting; "" when refused
		resolve string // ResolveUpstreamVhost for web, shop, 8080
		errHas  string
	}{
		{value: "$service_name.$namespace.svc.cluster.local:8084", want: "$service_name.$namespace.svc.cluster.local:8084", resolve: "web.shop.svc.cluster.local:8084"},
		{value: "$service_name.$namespace.svc.cluster.local:$service_port", want: "$service_name.$namespace.svc.cluster.local:$service_port", resolve: "web.shop.svc.cluster.local:8080"},
		{value: "API.$namespace.example.com", want: "api.$namespace.example.com", resolve: "api.shop.example.com"},
		{value: "Internal.example.com:8443", want: "internal.example.com:8443", resolve: "internal.example.com:8443"},
		{value: "$host", errHas: `"$host": the only variables allowed are $namespace, $service_name, $service_port`},
		{value: "$http_host", errHas: `"$http_host"`},
		{value: "$service_namex.example.com", errHas: `"$service_namex"`},
		{value: "${service_name}.example.com", errHas: `"${"`},
		{value: "example.com:$", errHas: `"$"`},
		{value: "$Service_Name.example.com", errHas: `"$Service_Name"`},
		{value: "$service_name.$namespace;proxy_pass http://evil", errHas: "DNS name"},
		{value: "$service_name.$namespace.svc:99999", errHas: "DNS name"},
		{value: "$service_name:$service_port:1", errHas: "DNS name"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, problems := ParseIngress(testIngress, annots("upstream-vhost", tt.value))
			if got.Location.UpstreamVhost != tt.want {
				t.Errorf("setting %q, want %q", got.Location.UpstreamVhost, tt.want)
			}
			if tt.errHas == "" {
				if len(problems) != 0 {
					t.Errorf("problems %v", problems)
				}
				if r := ResolveUpstreamVhost(got.Location.UpstreamVhost, "web", "shop", "8080"); r != tt.resolve {
					t.Errorf("resolved %q, want %q", r, tt.resolve)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0].Reason, tt.errHas) {
				t.Errorf("problems %v, want one containing %q", problems, tt.errHas)
			}
		})
	}
}
