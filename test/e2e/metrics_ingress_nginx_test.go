package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
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
	fc := startFilesController(t, map[string]string{
		"class.yaml":    "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":  serviceYAML("web", web),
		"secret.yaml":   shop,
		"ing/shop.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web") + "  tls:\n  - hosts: [shop.example.com]\n    secretName: shop-tls\n",
		"ing/a.yaml":    filesIngress("a", "a.example.com", nil, "/", "web"),
	})
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
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; i < n; i++ {
		req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(fc.httpPort)+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "a.example.com"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
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
