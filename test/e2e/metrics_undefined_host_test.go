package e2e

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// TestIngressNginxRequestMetricsUndefinedHostsCollapse: with
// --metrics-per-undefined-host, requests to hosts no Ingress defines are
// counted, all under the one host label controller.UndefinedHost, so that
// clients choosing Host headers cannot grow the series; the hosts
// themselves never reach /metrics.
func TestIngressNginxRequestMetricsUndefinedHostsCollapse(t *testing.T) {
	o := controller.DefaultRequestMetricsOptions()
	o.PerUndefinedHost = true
	fc := startRequestMetricsController(t, map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml": serviceYAML("web", namedBackend(t, "web")),
		"ing/a.yaml":   filesIngress("a", "a.example.com", nil, "/", "web"),
	}, o)
	fc.eventuallyServes(t, 20*time.Second, "a.example.com", "/", 200, "web")
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()

	unknown := []string{"u1.example.org", "u2.example.org", "deep.u3.example.org"}
	for _, host := range unknown {
		sendRequests(t, fc, 3, http.MethodGet, host, "/x", http.StatusNotFound)
	}
	want := float64(3 * len(unknown))
	var text string
	waitFor(t, 10*time.Second, "9 requests under the undefined host", func() bool {
		text = scrape(t, srv.URL)
		return undefinedHostRequests(t, text) == want
	})
	for _, host := range unknown {
		if strings.Contains(text, host) {
			t.Errorf("the undefined host %s reached /metrics:\n%s", host, requestLines(text))
		}
	}
	// Every series of the undefined host says no Ingress served it.
	for _, l := range strings.Split(requestLines(text), "\n") {
		if strings.Contains(l, `host="`+controller.UndefinedHost+`"`) && !strings.Contains(l, `ingress=""`) {
			t.Errorf("an undefined host's series names an Ingress: %s", l)
		}
	}
}

// undefinedHostRequests sums nginx_ingress_controller_requests over the
// series of host controller.UndefinedHost.
func undefinedHostRequests(t *testing.T, text string) float64 {
	t.Helper()
	sum := 0.0
	for _, l := range strings.Split(requestLines(text), "\n") {
		if !strings.Contains(l, `host="`+controller.UndefinedHost+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("series %q: %v", l, err)
		}
		sum += v
	}
	return sum
}
