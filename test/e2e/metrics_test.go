package e2e

import (
	"bufio"
	"crypto/x509"
	"encoding/pem"
	"fmt"
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

// TestControllerMetricsScrape scrapes /metrics of a controller on files
// with a real nginx: the certificate expiry of each TLS host equals its
// certificate's NotAfter, the hosts gauge counts the hosts, every Lua
// POST was timed, and config_info names the checksum of the nginx.conf on
// disk. A certificate rotation (no reload) moves the expiry.
func TestControllerMetricsScrape(t *testing.T) {
	web := namedBackend(t, "web")
	shop, shopCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	ing := filesIngress("shop", "shop.example.com", nil, "/", "web") + "  tls:\n  - hosts: [shop.example.com]\n    secretName: shop-tls\n"
	fc := startFilesController(t, map[string]string{
		"class.yaml":     "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":   serviceYAML("web", web),
		"secret.yaml":    shop,
		"ing/shop.yaml":  ing,
		"ing/plain.yaml": filesIngress("plain", "plain.example.com", nil, "/", "web"),
	})
	fc.eventuallyServes(t, 20*time.Second, "plain.example.com", "/", 200, "web")
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()

	text := scrape(t, srv.URL)
	series := `kubectl_ingress_ssl_expire_time_seconds{host="shop.example.com",namespace="e2e",secret_name="shop-tls"}`
	if got, want := metricValue(t, text, series), float64(notAfter(t, shopCrt).Unix()); got != want {
		t.Errorf("%s = %v, want the certificate's NotAfter %v", series, got, want)
	}
	if strings.Contains(text, `kubectl_ingress_ssl_expire_time_seconds{host="plain.example.com"`) {
		t.Error("an expiry for a host without TLS")
	}
	if got := metricValue(t, text, "kubectl_ingress_hosts"); got != 2 {
		t.Errorf("hosts = %v, want 2", got)
	}
	for _, ep := range []string{"backends", "servers"} {
		s := fmt.Sprintf(`kubectl_ingress_lua_push_duration_seconds_count{endpoint=%q,result="success"}`, ep)
		if got := metricValue(t, text, s); got < 1 {
			t.Errorf("%s = %v, want at least 1", s, got)
		}
	}
	conf, err := os.ReadFile(fc.inst.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf(`kubectl_ingress_config_info{checksum=%q}`, nginx.Checksum(conf)); metricValue(t, text, s) != 1 {
		t.Errorf("%s is not 1", s)
	}
	if code := get(t, srv.URL+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without --profiling: %d, want 404", code)
	}

	// Rotate the certificate: Lua gets it without a reload, and the
	// metric follows.
	before := fc.settle(t)
	rotated, rotatedCrt := tlsSecretYAML(t, "shop-tls", "shop.example.com")
	for i := 0; i < 30 && notAfter(t, rotatedCrt).Unix() == notAfter(t, shopCrt).Unix(); i++ {
		time.Sleep(100 * time.Millisecond) // expiries differ by a second at least
		rotated, rotatedCrt = tlsSecretYAML(t, "shop-tls", "shop.example.com")
	}
	fc.write(t, "secret.yaml", rotated)
	waitFor(t, 20*time.Second, "the rotated certificate's expiry", func() bool {
		return metricValue(t, scrape(t, srv.URL), series) == float64(notAfter(t, rotatedCrt).Unix())
	})
	if after := fc.settle(t); after.Reloads != before.Reloads {
		t.Errorf("reloads %d → %d for a certificate rotation", before.Reloads, after.Reloads)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// metricValue finds the sample of series (name and labels as the text
// format writes them, labels sorted) in a scrape; -1 when absent.
func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), series+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			t.Fatalf("%s: %v", series, err)
		}
		return v
	}
	return -1
}

func notAfter(t *testing.T, crt []byte) time.Time {
	t.Helper()
	block, _ := pem.Decode(crt)
	if block == nil {
		t.Fatal("no PEM certificate")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.NotAfter
}
