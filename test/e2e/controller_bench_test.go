package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// Benchmarks of the files controller with a real nginx (hack/bench-controller.sh
// runs them): the source's default debounce and the command's default
// --sync-rate-limit, as `kubectl ingress controller --from-files` runs.

// benchBackends starts n loopback backends answering their index.
func benchBackends(b *testing.B, n int) []int {
	b.Helper()
	ports := make([]int, n)
	for i := range ports {
		name := fmt.Sprintf("b%d", i)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %s", name, r.URL.Path)
		}))
		b.Cleanup(srv.Close)
		ports[i] = srv.Listener.Addr().(*net.TCPAddr).Port
	}
	return ports
}

const benchClass = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n"

// BenchmarkFilesControllerEndpointEdit measures, per EndpointSlice file
// edit, the time until the first request answered by the new endpoint
// (polling every millisecond), and reports p50/p99 and the reloads (0 is
// the target).
func BenchmarkFilesControllerEndpointEdit(b *testing.B) {
	ports := benchBackends(b, 2)
	fc := startFilesControllerWith(b, map[string]string{
		"class.yaml":   benchClass,
		"web.yaml":     serviceYAML("web", ports[0]),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web"),
	}, controllerOptions{})
	fc.eventuallyServes(b, 10*time.Second, "shop.example.com", "/", 200, "b0 /")
	before := fc.settle(b)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := (i + 1) % 2
		want := fmt.Sprintf("b%d /", next)
		start := time.Now()
		fc.write(b, "web.yaml", serviceYAML("web", ports[next]))
		for {
			if code, body := fc.get("shop.example.com", "/"); code == 200 && strings.HasPrefix(body, want) {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatalf("edit %d not served after 10 s", i)
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	after := fc.settle(b)
	slices.Sort(lat)
	b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
	b.ReportMetric(float64(after.Reloads-before.Reloads), "reloads")
}

// BenchmarkFilesController1000EndpointChanges writes 1,000 EndpointSlice
// edits as fast as it can (a burst: the source's debounce and the loop's
// one key coalesce them), waits for the last one to serve, and reports
// the reloads (target 0) and syncs they cost. Run
// BenchmarkFilesControllerEndpointEdit with -benchtime 1000x for 1,000
// changes applied one by one.
func BenchmarkFilesController1000EndpointChanges(b *testing.B) {
	ports := benchBackends(b, 2)
	fc := startFilesControllerWith(b, map[string]string{
		"class.yaml":   benchClass,
		"web.yaml":     serviceYAML("web", ports[0]),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web"),
	}, controllerOptions{})
	fc.eventuallyServes(b, 10*time.Second, "shop.example.com", "/", 200, "b0 /")
	before := fc.settle(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// 1,000 edits that end on the other backend than they started.
		first := i % 2
		for j := 1; j <= 1000; j++ {
			fc.write(b, "web.yaml", serviceYAML("web", ports[(first+j+1)%2]))
		}
		fc.eventuallyServes(b, 10*time.Second, "shop.example.com", "/", 200, fmt.Sprintf("b%d /", (first+1)%2))
	}
	b.StopTimer()
	after := fc.settle(b)
	b.ReportMetric(float64(after.Reloads-before.Reloads)/float64(b.N), "reloads/op")
	b.ReportMetric(float64(after.Syncs-before.Syncs)/float64(b.N), "syncs/op")
	b.ReportMetric(float64(after.DynamicUpdates-before.DynamicUpdates)/float64(b.N), "dynamic-updates/op")
}

// BenchmarkFilesControllerRollingUpdate edits 100 Ingress files one after
// the other, 10 ms apart (about what `kubectl apply` of 100 objects
// takes), each edit needing a reload on its own (a new path), and reports
// the reloads it cost (target: a handful) and the time until the last
// edit serves.
func BenchmarkFilesControllerRollingUpdate(b *testing.B) {
	ports := benchBackends(b, 1)
	files := map[string]string{"class.yaml": benchClass, "web.yaml": serviceYAML("web", ports[0])}
	for k := range 100 {
		files[fmt.Sprintf("ing/%03d.yaml", k)] = filesIngress(fmt.Sprintf("app%d", k), fmt.Sprintf("app%d.example.com", k), nil, "/v0", "web")
	}
	fc := startFilesControllerWith(b, files, controllerOptions{})
	fc.eventuallyServes(b, 10*time.Second, "app99.example.com", "/v0", 200, "b0 /v0")
	before := fc.settle(b)
	var total time.Duration
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		start := time.Now()
		path := fmt.Sprintf("/v%d", i)
		for k := range 100 {
			fc.write(b, fmt.Sprintf("ing/%03d.yaml", k), filesIngress(fmt.Sprintf("app%d", k), fmt.Sprintf("app%d.example.com", k), nil, path, "web"))
			time.Sleep(10 * time.Millisecond)
		}
		fc.eventuallyServes(b, 10*time.Second, "app99.example.com", path, 200, "b0 "+path)
		total += time.Since(start)
	}
	b.StopTimer()
	after := fc.settle(b)
	b.ReportMetric(float64(after.Reloads-before.Reloads)/float64(b.N), "reloads/op")
	b.ReportMetric(ms(total)/float64(b.N), "ms-to-last/op")
	b.Logf("controller log:\n%s", grepLines(fc.logs.String(), "Applied", "Plan"))
}

func grepLines(text string, words ...string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
