package luaapi

import (
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestStreamFiles(t *testing.T) {
	c := &model.Config{
		Backends: []model.Backend{{Name: "sec-vault-443", Endpoints: []model.Endpoint{{Address: "fd00::1", Port: 8443}, {Address: "10.0.0.1", Port: 8443}}}},
		Stream: model.Stream{
			Services: []model.StreamService{
				{Protocol: model.ProtocolTCP, Port: 5432, Endpoints: []model.Endpoint{{Address: "10.0.0.2", Port: 5432}}},
				{Protocol: model.ProtocolUDP, Port: 53, Endpoints: []model.Endpoint{}},
			},
			Passthrough: true,
			PassthroughHosts: []model.PassthroughHost{
				{Hostname: "*.vault.example.com", Backend: "sec-vault-443"},
				{Hostname: "gone.example.com", Backend: "no-such-backend"},
			},
		},
	}
	files, err := StreamFiles(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"tcp-5432.json":                `["10.0.0.2:5432"]`,
		"udp-53.json":                  `[]`,
		"sni-*.vault.example.com.json": `["[fd00::1]:8443","10.0.0.1:8443"]`,
		"sni-gone.example.com.json":    `[]`,
	}
	got := map[string]string{}
	for k, v := range files {
		got[k] = string(v)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
	if files, err := StreamFiles(&model.Config{}); files != nil || err != nil {
		t.Errorf("no stream servers: %v, %v; want nil", files, err)
	}
}
