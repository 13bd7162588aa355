package controller

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// bigModel is a model whose backends payload is about mb MB.
func bigModel(mb int) *model.Config {
	c := &model.Config{}
	b := model.Backend{Name: "ns-big-80"}
	for i := range mb * 1024 * 1024 / 40 {
		b.Endpoints = append(b.Endpoints, model.Endpoint{Address: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), Port: 8080})
	}
	c.Backends = append(c.Backends, b)
	return c
}

func TestConfOptionsSizeTheDicts(t *testing.T) {
	c := &Controller{cfg: Config{Conf: nginxconf.DefaultConfOptions()}}
	conf := func(cfg *model.Config) []byte {
		t.Helper()
		data, err := nginxconf.NGINXConf(cfg, c.confOptions(cfg))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	small := conf(&model.Config{})
	if got := luaapi.DictSizesOf(small); got != luaapi.DefaultDictSizes() {
		t.Errorf("a small config: dicts %+v, want the defaults %+v (render's and luaapi's must agree)", got, luaapi.DefaultDictSizes())
	}
	if !strings.Contains(string(small), "client_max_body_size 64m;") {
		t.Error("a small config: the status server's body limit is not 64m")
	}

	big := bigModel(40) // 80 MB and more to hold two of it
	grown := conf(big)
	if got := luaapi.DictSizesOf(grown).ConfigurationData; got != 128<<20 {
		t.Errorf("40 MB of backends: configuration_data %d MiB, want 128", got>>20)
	}
	if !strings.Contains(string(grown), "client_max_body_size 128m;") {
		t.Error("40 MB of backends: the status server's body limit is not 128m")
	}

	// Running with 128m, the payload shrinks: the dict stays (no reload).
	c.state.running.NGINXConf = grown
	if got := luaapi.DictSizesOf(conf(bigModel(20))).ConfigurationData; got != 128<<20 {
		t.Errorf("20 MB while 128m runs: configuration_data %d MiB, want 128 kept", got>>20)
	}

	// Sizes set by the caller are kept.
	c.cfg.Conf.LuaDicts = nginxconf.LuaDicts{ConfigurationData: 256 << 20}
	if got := luaapi.DictSizesOf(conf(&model.Config{})); got.ConfigurationData != 256<<20 || got.CertificateData != 32<<20 {
		t.Errorf("configured sizes: %+v", got)
	}
}
