package luaapi

import (
	"fmt"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestDictsFor: the rule of the controller, render and diff is SizeDicts
// of what FromModel's payloads need, against the running sizes.
func TestDictsFor(t *testing.T) {
	small := &model.Config{Backends: []model.Backend{{Name: "ns-a-80", Endpoints: []model.Endpoint{{Address: "10.0.0.1", Port: 80}}}}}
	if got, err := DictsFor(small, DictSizes{}); err != nil || got != DefaultDictSizes() {
		t.Errorf("a small config at the first start: %+v, %v; want the defaults", got, err)
	}
	running := DictSizes{ConfigurationData: 128 << 20, CertificateData: 32 << 20, CertificateServers: 8 << 20}
	if got, err := DictsFor(small, running); err != nil || got != running {
		t.Errorf("a small config while 128m runs: %+v, %v; want the running sizes kept", got, err)
	}

	big := &model.Config{}
	b := model.Backend{Name: "ns-big-80"}
	for i := range 40 << 20 / 40 { // about 40 MB of backends
		b.Endpoints = append(b.Endpoints, model.Endpoint{Address: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), Port: 8080})
	}
	big.Backends = append(big.Backends, b)
	need, err := Needs(FromModel(big))
	if err != nil {
		t.Fatal(err)
	}
	got, err := DictsFor(big, DictSizes{})
	if err != nil || got != SizeDicts(need, DictSizes{}) || got.ConfigurationData != 128<<20 {
		t.Errorf("40 MB of backends: %+v, %v; want SizeDicts of Needs, configuration_data 128m", got, err)
	}
}
