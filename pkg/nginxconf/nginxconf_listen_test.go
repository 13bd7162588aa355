package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// listenLines are the listen lines of conf, trimmed.
func listenLines(conf []byte) []string {
	var out []string
	for _, l := range strings.Split(string(conf), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "listen ") {
			out = append(out, l)
		}
	}
	return out
}

// TestIPv6Listeners: with ConfOptions.IPv6 every public listener (the
// default server's, a host's, a TCP service's, in both routing modes) has
// a twin on [::] with the same parameters, which nginx -t accepts; an
// explicit listen address, the ConfigMap's disable-ipv6 or no IPv6 leave
// IPv4 alone, and the status server stays on its loopback address.
func TestIPv6Listeners(t *testing.T) {
	nginxtest.Require(t)
	cfg := snippetConfig(t, map[string]string{"server-snippet": `add_header X-Classic "1";`})
	cfg.Stream.Services = []model.StreamService{{Port: 5432, Protocol: model.ProtocolTCP, ServicePort: "5432",
		Service: model.ObjectRef{Kind: "Service", Namespace: "ns", Name: "db"}, ConfigMap: model.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "tcp"}}}
	for _, routing := range []string{RoutingNginx, RoutingLua} {
		o := DefaultConfOptions()
		o.Routing, o.IPv6 = routing, true
		conf, err := NGINXConf(cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		lines := listenLines(conf)
		v4, v6 := 0, 0
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, `listen "[::]:`):
				v6++
				twin := strings.Replace(l, `"[::]:`, `"`, 1)
				if !strings.Contains(strings.Join(lines, "\n"), twin) {
					t.Errorf("%s: %s has no IPv4 twin %s", routing, l, twin)
				}
			case strings.HasPrefix(l, `listen "127.0.0.1:`):
			default:
				v4++
			}
		}
		// the default server (HTTP, HTTPS), a.example.com's (HTTP, HTTPS)
		// and the TCP service
		if v4 != 5 || v6 != 5 {
			t.Errorf("%s: %d IPv4 and %d IPv6 public listeners, want 5 and 5:\n%s", routing, v4, v6, strings.Join(lines, "\n"))
		}
		nginxAccepts(t, conf)
	}
	for name, edit := range map[string]func(*ConfOptions, *model.Config){
		"no IPv6":        func(*ConfOptions, *model.Config) {},
		"listen address": func(o *ConfOptions, _ *model.Config) { o.IPv6, o.ListenAddress = true, "10.0.0.1" },
		"disable-ipv6":   func(o *ConfOptions, c *model.Config) { o.IPv6, c.Global.Tuning.DisableIPv6 = true, true },
	} {
		c := *cfg
		o := DefaultConfOptions()
		edit(&o, &c)
		conf, err := NGINXConf(&c, o)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(conf), "[::]") {
			t.Errorf("%s: an IPv6 listener:\n%s", name, strings.Join(listenLines(conf), "\n"))
		}
	}
}
