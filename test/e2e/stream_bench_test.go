package e2e

import (
	"context"
	"strconv"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// BenchmarkStreamConnect measures one TCP connection through a stream
// server (connect, one line each way, close) while the stream payload
// holds the service and entries-1 passthrough hosts: njs 0.7 reads a file
// for every new connection (lua/STREAM.md), only the one of its own
// server, so the cost should not grow with the payload.
//
//	go test ./test/e2e -run '^$' -bench BenchmarkStreamConnect -benchtime 2000x
func BenchmarkStreamConnect(b *testing.B) {
	echo := tcpEcho(b, "echo")
	port := freePort(b)
	fc, _ := startStreamController(b, map[string]string{
		"svc/tcp.yaml": streamServiceYAML("tcp-echo", "TCP", echo),
		"cm/tcp.yaml":  servicesConfigMapYAML("tcp-services", map[string]string{strconv.Itoa(port): "e2e/tcp-echo:7000"}),
	}, func(o *render.Options, _ *nginxconf.ConfOptions) { o.TCPServicesConfigMap = "e2e/tcp-services" })
	fc.settle(b)
	for _, entries := range []int{1, 100, 1000, 10000} {
		b.Run("entries="+strconv.Itoa(entries), func(b *testing.B) {
			p := luaapi.Stream{Services: map[string][]string{"tcp/" + strconv.Itoa(port): {"127.0.0.1:" + strconv.Itoa(echo)}}, Passthrough: map[string][]string{}}
			for i := 1; i < entries; i++ {
				p.Passthrough["host-"+strconv.Itoa(i)+".example.com"] = []string{"10.0.0.1:443", "10.0.0.2:443"}
			}
			files, err := p.Files()
			if err != nil {
				b.Fatal(err)
			}
			if err := fc.inst.WriteStream(context.Background(), files); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := tcpAsk(port, "x"); got != "echo:x" {
					b.Fatalf("answer %q", got)
				}
			}
		})
	}
}
