package e2e

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// ingressNginxConst are the constant labels of the controller metrics
// under ingress-nginx's names in these tests: no POD_NAMESPACE or
// POD_NAME, the default --controller-class.
const ingressNginxConst = `controller_class="k8s.io/ingress-nginx",controller_namespace="",controller_pod=""`

func inSeries(name string) string {
	return "nginx_ingress_controller_" + name + "{" + ingressNginxConst + "}"
}

// configHashOf is what nginx_ingress_controller_config_hash shows for an
// nginx.conf: the first 13 hex digits of its md5.
func configHashOf(t *testing.T, conf []byte) float64 {
	t.Helper()
	v, err := strconv.ParseUint(nginx.Checksum(conf)[:13], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return float64(v)
}

// TestIngressNginxControllerMetrics scrapes a controller on files with a
// real nginx under ingress-nginx's metric names: the reload metrics after
// the start, a reload and a failed reload; the certificate expiry per
// host; nginx's stub_status gauges and /proc figures, plausible and
// moving with real traffic.
func TestIngressNginxControllerMetrics(t *testing.T) {
	web := namedBackend(t, "web")
	shop, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":    "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":  serviceYAML("web", web),
		"secret.yaml":   shop,
		"ing/shop.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web") + "  tls:\n  - hosts: [shop.example.com]\n    secretName: shop-tls\n",
		"ing/a.yaml":    filesIngress("a", "a.example.com", nil, "/", "web"),
	}, classicControllerOptions())
	fc.eventuallyServes(t, 20*time.Second, "a.example.com", "/", 200, "web")
	before := fc.settle(t)
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()

	// After the start: one successful reload (the start), the hash of the
	// nginx.conf on disk.
	text := scrape(t, srv.URL)
	if got := metricValue(t, text, inSeries("success")); got != float64(before.Reloads) || got < 1 {
		t.Errorf("success = %v, want the %d reloads (and start)", got, before.Reloads)
	}
	if got := metricValue(t, text, inSeries("errors")); got != 0 {
		t.Errorf("errors = %v, want 0", got)
	}
	if got := metricValue(t, text, inSeries("config_last_reload_successful")); got != 1 {
		t.Errorf("config_last_reload_successful = %v, want 1", got)
	}
	started := metricValue(t, text, inSeries("config_last_reload_successful_timestamp_seconds"))
	if now := float64(time.Now().Unix()); started < now-120 || started > now+1 {
		t.Errorf("config_last_reload_successful_timestamp_seconds = %v, want about %v", started, now)
	}
	conf, err := os.ReadFile(fc.inst.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := metricValue(t, text, inSeries("config_hash")), configHashOf(t, conf); got != want || got == 0 {
		t.Errorf("config_hash = %v, want %v (md5 of nginx.conf)", got, want)
	}
	expiry := `nginx_ingress_controller_ssl_expire_time_seconds{class="k8s.io/ingress-nginx",host="shop.example.com",namespace=""}`
	if got, want := metricValue(t, text, expiry), float64(notAfter(t, shopCrt).Unix()); got != want {
		t.Errorf("%s = %v, want %v", expiry, got, want)
	}
	if strings.Contains(text, `nginx_ingress_controller_ssl_expire_time_seconds{class="k8s.io/ingress-nginx",host="a.example.com"`) {
		t.Error("an expiry for a host without TLS")
	}

	// nginx's own gauges move with N requests.
	status := func(text string) (requests, accepted, handled, active float64) {
		return metricValue(t, text, inSeries("nginx_process_requests_total")),
			metricValue(t, text, `nginx_ingress_controller_nginx_process_connections_total{`+ingressNginxConst+`,state="accepted"}`),
			metricValue(t, text, `nginx_ingress_controller_nginx_process_connections_total{`+ingressNginxConst+`,state="handled"}`),
			metricValue(t, text, `nginx_ingress_controller_nginx_process_connections{`+ingressNginxConst+`,state="active"}`)
	}
	req0, acc0, _, _ := status(text)
	const n = 25
	// A new connection per request, so that accepted counts them too.
	fresh := &http.Transport{DisableKeepAlives: true}
	for i := 0; i < n; i++ {
		if status, body := fc.getVia(fresh, "a.example.com", "/"); status != 200 {
			t.Fatalf("request %d: %d %s", i, status, body)
		}
	}
	text = scrape(t, srv.URL)
	req1, acc1, handled1, active1 := status(text)
	// The stub_status GET of the scrape is one more request of its own.
	if req1-req0 < n+1 || acc1-acc0 < n {
		t.Errorf("requests %v → %v, accepted %v → %v after %d requests on %d connections: want at least %d and %d more", req0, req1, acc0, acc1, n, n, n+1, n)
	}
	if handled1 > acc1 || handled1 < 1 {
		t.Errorf("handled %v, accepted %v", handled1, acc1)
	}
	if active1 < 1 { // the scrape's own connection
		t.Errorf("active connections %v, want at least 1", active1)
	}
	for _, state := range []string{"reading", "writing", "waiting"} {
		s := `nginx_ingress_controller_nginx_process_connections{` + ingressNginxConst + `,state="` + state + `"}`
		if v := metricValue(t, text, s); v < 0 || v > active1 {
			t.Errorf("%s = %v (active %v)", s, v, active1)
		}
	}
	workers := fc.workerPids(t)
	if got := metricValue(t, text, inSeries("nginx_process_num_procs")); got < float64(1+len(workers)) {
		t.Errorf("nginx_process_num_procs = %v, want the master and %d workers at least", got, len(workers))
	}
	for _, name := range []string{"nginx_process_resident_memory_bytes", "nginx_process_virtual_memory_bytes"} {
		if got := metricValue(t, text, inSeries(name)); got < 1<<20 {
			t.Errorf("%s = %v, want over a MiB", name, got)
		}
	}
	if got := metricValue(t, text, inSeries("nginx_process_cpu_seconds_total")); got < 0 {
		t.Errorf("nginx_process_cpu_seconds_total absent")
	}
	if got := metricValue(t, text, inSeries("nginx_process_oldest_start_time_seconds")); got < started-120 || got > float64(time.Now().Unix())+1 {
		t.Errorf("nginx_process_oldest_start_time_seconds = %v, the start was about %v", got, started)
	}
	for _, name := range []string{"nginx_process_read_bytes_total", "nginx_process_write_bytes_total"} {
		if metricValue(t, text, inSeries(name)) < 0 {
			t.Errorf("%s absent", name)
		}
	}

	// A reload (a new path) counts, moves the timestamp and the hash.
	fc.write(t, "ing/a.yaml", filesIngress("a", "a.example.com", nil, "/", "web", "/new", "web"))
	waitFor(t, 20*time.Second, "the reload of a new path", func() bool {
		return metricValue(t, scrape(t, srv.URL), inSeries("success")) == float64(before.Reloads+1)
	})
	fc.settle(t)
	text = scrape(t, srv.URL)
	conf, err = os.ReadFile(fc.inst.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := metricValue(t, text, inSeries("config_hash")), configHashOf(t, conf); got != want {
		t.Errorf("config_hash after the reload = %v, want %v", got, want)
	}
	if got := metricValue(t, text, inSeries("config_last_reload_successful_timestamp_seconds")); got < started {
		t.Errorf("timestamp went back: %v < %v", got, started)
	}

	// A reload nginx -t refuses: errors counts it, the last reload was
	// not successful, the hash is 0 (as ingress-nginx); the old config
	// keeps serving.
	repair := breakNginxTest(t, fc.inst)
	fc.write(t, "ing/a.yaml", filesIngress("a", "a.example.com", nil, "/", "web", "/other", "web"))
	waitFor(t, 20*time.Second, "a failed reload on /metrics", func() bool {
		return metricValue(t, scrape(t, srv.URL), inSeries("errors")) >= 1
	})
	text = scrape(t, srv.URL)
	if got := metricValue(t, text, inSeries("config_last_reload_successful")); got != 0 {
		t.Errorf("config_last_reload_successful after a failed reload = %v, want 0", got)
	}
	if got := metricValue(t, text, inSeries("config_hash")); got != 0 {
		t.Errorf("config_hash after a failed reload = %v, want 0", got)
	}
	if code, _ := fc.get("a.example.com", "/new"); code != 200 {
		t.Errorf("the old config does not serve after the failed reload: %d", code)
	}
	repair()
	// The next good reload sets it back.
	fc.write(t, "ing/a.yaml", filesIngress("a", "a.example.com", nil, "/", "web", "/third", "web"))
	waitFor(t, 20*time.Second, "a good reload after the repair", func() bool {
		return metricValue(t, scrape(t, srv.URL), inSeries("config_last_reload_successful")) == 1
	})
	fc.eventuallyServes(t, 20*time.Second, "a.example.com", "/third", 200, "web")
	fc.settle(t)
	text = scrape(t, srv.URL)
	conf, err = os.ReadFile(fc.inst.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := metricValue(t, text, inSeries("config_hash")), configHashOf(t, conf); got != want {
		t.Errorf("config_hash after the repair = %v, want %v", got, want)
	}
	// kubectl_ingress_* counts the same reloads.
	if a, b := metricValue(t, text, "kubectl_ingress_reloads_total"), metricValue(t, text, inSeries("success")); a != b {
		t.Errorf("kubectl_ingress_reloads_total %v, nginx_ingress_controller_success %v", a, b)
	}
	if a, b := metricValue(t, text, "kubectl_ingress_reload_errors_total"), metricValue(t, text, inSeries("errors")); a != b {
		t.Errorf("kubectl_ingress_reload_errors_total %v, nginx_ingress_controller_errors %v", a, b)
	}
	t.Logf("reloads %v, errors %v", metricValue(t, text, inSeries("success")), metricValue(t, text, inSeries("errors")))
}

// startRequestMetricsController is startFilesController with the request
// metrics on (ingress-nginx's defaults but for o).
func startRequestMetricsController(t testing.TB, files map[string]string, o controller.RequestMetricsOptions) *filesController {
	t.Helper()
	nginxtest.Require(t)
	fc := &filesController{dir: filepath.Join(t.TempDir(), "manifests")}
	co := fc.prepare(t)
	for name, content := range files {
		fc.write(t, name, content)
	}
	src, err := controller.NewFileSource(fc.dir, controller.FileSourceOptions{Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := fc.logContext()
	fc.run(t, ctx, cancel, controller.Config{Source: src, Problems: controller.NewLogReporter(), Build: render.DefaultOptions(), Conf: co, RequestMetrics: &o}, 20*time.Second)
	return fc
}

// sendRequests makes n requests with method to host/path on new connections and
// checks their status.
func sendRequests(t *testing.T, fc *filesController, n int, method, host, path string, status int) {
	t.Helper()
	sendRequestsWith(t, fc, n, method, host, path, status, nil)
}

func sendRequestsWith(t *testing.T, fc *filesController, n int, method, host, path string, status int, header http.Header) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; i < n; i++ {
		req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(fc.httpPort)+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Fatalf("%s %s%s: %d, want %d", method, host, path, resp.StatusCode, status)
		}
	}
}

// TestIngressNginxRequestMetrics sends known requests through a real
// nginx and reads ingress-nginx's request metrics: the counts per label
// set are exact (200 and 404 from the backend, 503 without endpoints, a
// POST), histograms count the same requests, a request without an
// upstream has no upstream histogram, and requests to hosts no Ingress
// defines are not counted (--metrics-per-undefined-host=false).
func TestIngressNginxRequestMetrics(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "web "+r.URL.Path)
	}))
	defer backend.Close()
	port := backend.Listener.Addr().(*net.TCPAddr).Port
	fc := startRequestMetricsController(t, map[string]string{
		"class.yaml":      "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":    serviceYAML("web", port),
		"svc/empty.yaml":  serviceYAML("empty", 0),
		"ing/a.yaml":      filesIngress("a", "a.example.com", nil, "/", "web"),
		"ing/b.yaml":      filesIngress("b", "b.example.com", nil, "/", "empty"),
		"svc/canary.yaml": serviceYAML("canary", namedBackend(t, "canary")),
		"ing/a-canary.yaml": filesIngress("a-canary", "a.example.com", map[string]string{
			"canary":           "true",
			"canary-by-header": "X-Canary",
		}, "/", "canary"),
	}, controller.DefaultRequestMetricsOptions())
	fc.eventuallyServes(t, 20*time.Second, "a.example.com", "/", 200, "web")
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()
	// What eventuallyServes sent is counted too: wait until it shows,
	// then count from there.
	aGet := func(status string) string {
		return `nginx_ingress_controller_requests{canary="",` + ingressNginxConst + `,host="a.example.com",ingress="a",method="GET",namespace="e2e",path="/",service="web",status="` + status + `"}`
	}
	waitFor(t, 10*time.Second, "the first requests on /metrics", func() bool {
		return metricValue(t, scrape(t, srv.URL), aGet("200")) >= 1
	})
	base := metricValue(t, scrape(t, srv.URL), aGet("200"))

	sendRequests(t, fc, 5, http.MethodGet, "a.example.com", "/", 200)
	sendRequests(t, fc, 3, http.MethodGet, "a.example.com", "/missing", 404)
	sendRequests(t, fc, 1, http.MethodPost, "a.example.com", "/", 200)
	sendRequests(t, fc, 2, "PROPFIND", "a.example.com", "/", 200)
	sendRequests(t, fc, 2, http.MethodGet, "b.example.com", "/", 503)
	sendRequests(t, fc, 4, http.MethodGet, "unknown.example.com", "/", 404)
	sendRequestsWith(t, fc, 6, http.MethodGet, "a.example.com", "/canary-path", 200, http.Header{"X-Canary": {"always"}})

	bGet := `nginx_ingress_controller_requests{canary="",` + ingressNginxConst + `,host="b.example.com",ingress="b",method="GET",namespace="e2e",path="/",service="empty",status="503"}`
	aPost := `nginx_ingress_controller_requests{canary="",` + ingressNginxConst + `,host="a.example.com",ingress="a",method="POST",namespace="e2e",path="/",service="web",status="200"}`
	var text string
	deadline := time.Now().Add(10 * time.Second)
	for {
		text = scrape(t, srv.URL)
		if metricValue(t, text, aGet("200")) == base+5 && metricValue(t, text, bGet) == 2 &&
			metricValue(t, text, aGet("404")) == 3 && metricValue(t, text, aPost) == 1 &&
			metricValue(t, text, strings.Replace(aPost, `method="POST"`, `method="OTHER"`, 1)) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for the requests on /metrics (base %v):\n%s", base, requestLines(text))
		}
		time.Sleep(50 * time.Millisecond)
	}
	hist := func(name, series string) string {
		return strings.Replace(series, "nginx_ingress_controller_requests{", "nginx_ingress_controller_"+name+"{", 1)
	}
	for _, c := range []struct {
		series string
		want   float64
	}{
		{hist("request_duration_seconds_count", aGet("200")), base + 5},
		{hist("response_duration_seconds_count", aGet("200")), base + 5},
		{hist("response_size_count", aGet("404")), 3},
		{hist("request_size_count", aPost), 1},
		{hist("bytes_sent_count", bGet), 2},
		{hist("request_duration_seconds_count", bGet), 2},
		// No upstream answered the 503: no upstream time.
		{hist("response_duration_seconds_count", bGet), -1},
		{hist("connect_duration_seconds_count", bGet), -1},
	} {
		if got := metricValue(t, text, c.series); got != c.want {
			t.Errorf("%s = %v, want %v", c.series, got, c.want)
		}
	}
	// The +Inf bucket is the count; the sizes are plausible.
	inf := strings.Replace(hist("response_size_bucket", aGet("404")), `status="404"}`, `status="404",le="+Inf"}`, 1)
	if got := metricValue(t, text, inf); got != 3 {
		t.Errorf("%s = %v, want 3", inf, got)
	}
	if sum := metricValue(t, text, hist("response_size_sum", aGet("404"))); sum < 3*50 {
		t.Errorf("response_size_sum of three 404s = %v, want at least 150 bytes", sum)
	}
	// The canary's requests: the primary's Ingress, Service and path, the
	// canary label naming the alternative backend (ingress-nginx's
	// $proxy_alternative_upstream_name).
	canaryLines := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "nginx_ingress_controller_requests{") && !strings.HasPrefix(l, `nginx_ingress_controller_requests{canary="",`) {
			canaryLines++
			want := `,host="a.example.com",ingress="a",method="GET",namespace="e2e",path="/",service="web",status="200"} 6`
			if !strings.Contains(l, want) || !strings.Contains(l, "canary") {
				t.Errorf("canary series %s, want …%s", l, want)
			}
		}
	}
	if canaryLines != 1 {
		t.Errorf("%d canary series, want 1", canaryLines)
	}
	if strings.Contains(text, "unknown.example.com") || strings.Contains(text, `host="_"`) {
		t.Error("requests to an undefined host are counted")
	}
	if strings.Contains(text, `nginx_ingress_controller_requests{canary="",`+ingressNginxConst+`,host="",`) {
		t.Error("the status server's requests are counted")
	}
	t.Log(requestLines(text))
}

// requestLines are the nginx_ingress_controller_requests lines of a scrape.
func requestLines(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "nginx_ingress_controller_requests{") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
