package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// benchMetricsIngresses is the Ingress count of BenchmarkRequestMetricsScrape.
const benchMetricsIngresses = 1000

// BenchmarkRequestMetricsScrape is issue 16's figure: the time of one
// scrape of the controller's /metrics, and its series, at 1,000 Ingresses
// with traffic on all of them (through a real nginx: a GET and a POST to
// each host, so two label sets per Ingress). Run:
//
//	go test ./test/e2e -run '^$' -bench BenchmarkRequestMetricsScrape -benchtime 20x
func BenchmarkRequestMetricsScrape(b *testing.B) {
	web := namedBackend(b, "web")
	files := map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml": serviceYAML("web", web),
	}
	host := func(i int) string { return fmt.Sprintf("h%04d.example.com", i) }
	for i := range benchMetricsIngresses {
		files[fmt.Sprintf("ing/h%04d.yaml", i)] = filesIngress(fmt.Sprintf("h%04d", i), host(i), nil, "/", "web")
	}
	fc := startRequestMetricsController(b, files, controller.DefaultRequestMetricsOptions())
	fc.eventuallyServes(b, 60*time.Second, host(benchMetricsIngresses-1), "/", 200, "web")
	client := &http.Client{Timeout: 10 * time.Second}
	send := func(method, h string) int {
		req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(fc.httpPort)+"/", nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Host = h
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range benchMetricsIngresses {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			if code := send(method, host(i)); code != 200 {
				b.Fatalf("%s %s: %d", method, host(i), code)
			}
		}
	}
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()
	scrapeOnce := func() string {
		resp, err := client.Get(srv.URL + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("scrape: %d %v", resp.StatusCode, err)
		}
		return string(body)
	}
	// The workers flush every second: wait until every host shows.
	deadline := time.Now().Add(30 * time.Second)
	var text string
	for {
		text = scrapeOnce()
		if strings.Count(text, "\nnginx_ingress_controller_requests{") >= 2*benchMetricsIngresses {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d request series after 30 s, want %d", strings.Count(text, "\nnginx_ingress_controller_requests{"), 2*benchMetricsIngresses)
		}
		time.Sleep(200 * time.Millisecond)
	}
	series := 0
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			series++
		}
	}
	// The share of nginx's answer: GET /monitor/requests of the status
	// server, which every scrape reads.
	start := time.Now()
	resp, err := client.Get("http://" + fc.statusAddr + nginxconf.MonitorPath)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	monitorTook := time.Since(start)
	b.ResetTimer()
	for range b.N {
		scrapeOnce()
	}
	b.StopTimer()
	b.ReportMetric(float64(monitorTook.Milliseconds()), "ms/monitor-GET")
	b.ReportMetric(float64(len(raw))/(1<<20), "MiB/monitor-GET")
	b.ReportMetric(float64(series), "series")
	b.ReportMetric(float64(len(text))/(1<<20), "MiB/scrape")
}
