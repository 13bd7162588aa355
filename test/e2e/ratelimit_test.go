package e2e

import (
	"net/http"
	"testing"
)

// TestLimitWhitelist sends bursts through two Ingresses limited to 1
// request per second (burst 1): the one whose limit-whitelist holds the
// client (127.0.0.1) answers every request, the other refuses most with
// 503, as ingress-nginx does.
func TestLimitWhitelist(t *testing.T) {
	be := startBackend(t, "web", 0)
	limit := map[string]string{"limit-rps": "1", "limit-burst-multiplier": "1"}
	exempt := map[string]string{"limit-rps": "1", "limit-burst-multiplier": "1", "limit-whitelist": "10.0.0.0/8, 127.0.0.0/8"}
	other := map[string]string{"limit-rps": "1", "limit-burst-multiplier": "1", "limit-whitelist": "10.0.0.0/8"}
	n := startNginx(t, serviceOf("web", be)+
		ingressOf("limited", "limited.test", "web", "2026-01-01T00:00:00Z", limit)+
		ingressOf("exempt", "exempt.test", "web", "2026-01-01T00:00:01Z", exempt)+
		ingressOf("other", "other.test", "web", "2026-01-01T00:00:02Z", other))
	const requests = 20
	for _, tc := range []struct {
		host       string
		wantExempt bool
	}{{"exempt.test", true}, {"limited.test", false}, {"other.test", false}} {
		ok, refused := 0, 0
		for range requests {
			status, _ := n.get(t, tc.host, "/")
			switch status {
			case http.StatusOK:
				ok++
			case http.StatusServiceUnavailable:
				refused++
			default:
				t.Fatalf("%s: status %d", tc.host, status)
			}
		}
		if tc.wantExempt && ok != requests {
			t.Errorf("%s: %d of %d requests refused, want none (the client is exempt)", tc.host, refused, requests)
		}
		if !tc.wantExempt && refused == 0 {
			t.Errorf("%s: no request of %d refused at 1 r/s, want most", tc.host, requests)
		}
	}
}
