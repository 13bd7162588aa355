package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// BenchmarkNewIngressLatency is issue 14's figure for a new host: with
// BENCH_INGRESSES Ingresses served (default 1,000), a new Ingress with a
// new host is written BENCH_TRIES times (default 100), one after the other,
// and each time the time from the file's rename to nginx's first 200 for
// the host is taken (polled every 2 ms), in both routing modes; p50, p99,
// max and the reloads of the tries are reported. Run:
//
//	go test ./test/e2e -run '^$' -bench BenchmarkNewIngressLatency -benchtime 1x -timeout 30m
func BenchmarkNewIngressLatency(b *testing.B) {
	ingresses := envInt(b, "BENCH_INGRESSES", 1000)
	tries := envInt(b, "BENCH_TRIES", 100)
	for _, routing := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		b.Run(routing, func(b *testing.B) {
			web := namedBackend(b, "web")
			files := map[string]string{
				"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
				"svc/web.yaml": serviceYAML("web", web),
			}
			for i := range ingresses {
				files[fmt.Sprintf("ing/h%05d.yaml", i)] = filesIngress(fmt.Sprintf("h%05d", i), fmt.Sprintf("h%05d.example.com", i), nil, "/", "web")
			}
			fc := startFilesControllerWith(b, files, controllerOptions{debounce: 20 * time.Millisecond, routing: routing})
			fc.eventuallyServes(b, 5*time.Minute, fmt.Sprintf("h%05d.example.com", ingresses-1), "/", 200, "web")
			client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			serves := func(host string) bool {
				req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(fc.httpPort)+"/", nil)
				req.Host = host
				resp, err := client.Do(req)
				if err != nil {
					return false
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode == 200 && strings.HasPrefix(string(body), "web")
			}
			for range b.N {
				before := fc.settle(b)
				var took []time.Duration
				for i := range tries {
					host := fmt.Sprintf("new%03d.example.com", i)
					start := time.Now()
					fc.write(b, fmt.Sprintf("ing/new%03d.yaml", i), filesIngress(fmt.Sprintf("new%03d", i), host, nil, "/", "web"))
					for !serves(host) {
						if time.Since(start) > 2*time.Minute {
							b.Fatalf("%s not served after 2 minutes", host)
						}
						time.Sleep(2 * time.Millisecond)
					}
					took = append(took, time.Since(start))
				}
				after := fc.settle(b)
				slices.Sort(took)
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
				p := func(q float64) time.Duration { return took[min(len(took)-1, int(q*float64(len(took))))] }
				b.ReportMetric(ms(p(0.5)), "p50_ms")
				b.ReportMetric(ms(p(0.99)), "p99_ms")
				b.ReportMetric(ms(took[len(took)-1]), "max_ms")
				b.ReportMetric(float64(after.Reloads-before.Reloads), "reloads")
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
