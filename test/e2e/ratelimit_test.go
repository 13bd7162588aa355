package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
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

// rateLimitManifests are Ingresses with each kind of limit: limit-rps,
// limit-rpm, both (the request must pass both buckets), limit-connections,
// and the ConfigMap's limit-req-status-code 429.
func rateLimitManifests(web, hold *backend) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ingress-nginx-controller, namespace: ingress-nginx}\n" +
		"data: {limit-req-status-code: \"429\"}\n---\n" +
		serviceOf("web", web) + serviceOf("hold", hold) +
		ingressOf("rps", "rps.test", "web", "2026-01-01T00:00:00Z", map[string]string{"limit-rps": "1", "limit-burst-multiplier": "2"}) +
		ingressOf("rpm", "rpm.test", "web", "2026-01-01T00:00:01Z", map[string]string{"limit-rpm": "2", "limit-burst-multiplier": "1"}) +
		ingressOf("both", "both.test", "web", "2026-01-01T00:00:02Z", map[string]string{"limit-rps": "5", "limit-rpm": "3", "limit-burst-multiplier": "1"}) +
		ingressOf("conn", "conn.test", "hold", "2026-01-01T00:00:03Z", map[string]string{"limit-connections": "2"})
}

// holdBackend answers once release is closed, telling arrived of each
// request it holds.
func holdBackend(t *testing.T) (b *backend, arrived chan struct{}, release chan struct{}) {
	arrived, release = make(chan struct{}, 16), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, "held")
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	return &backend{name: "hold", port: srv.Listener.Addr().(*net.TCPAddr).Port, srv: srv}, arrived, release
}

// TestRateAndConnectionLimits holds the Lua router's limiter (lua/limit.lua)
// to nginx's limit_req and limit_conn: the same Ingresses in both routing
// modes, the same bursts, the same answers. A quick burst of 10 requests
// passes burst+1 of them (nginx leaves a client's first request's bucket
// empty, then adds one per request), plus what the rate drained while the
// burst ran; the others get limit-req-status-code. limit-connections
// refuses the request beyond the limit with 503 while the others are in
// progress, and lets one in again once they ended.
func TestRateAndConnectionLimits(t *testing.T) {
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			web := startBackend(t, "web", 0)
			hold, arrived, release := holdBackend(t)
			n := startNginxWith(t, rateLimitManifests(web, hold), nginxOptions{routing: mode})
			if mode == nginxconf.RoutingLua {
				if bytes.Contains(n.conf, []byte("limit_req")) || bytes.Contains(n.conf, []byte("limit_conn")) || len(n.routes) < 4 {
					t.Fatalf("the limited hosts are not Lua-routed (%d host entries):\n%s", len(n.routes), n.conf)
				}
			}
			for _, tc := range []struct {
				host  string
				burst int
				rate  float64 // requests a second
			}{{"rps.test", 2, 1}, {"rpm.test", 2, 2.0 / 60}, {"both.test", 3, 3.0 / 60}} {
				start := time.Now()
				passed := 0
				for range 10 {
					switch status, _ := n.get(t, tc.host, "/"); status {
					case http.StatusOK:
						passed++
					case http.StatusTooManyRequests:
					default:
						t.Fatalf("%s: status %d, want 200 or limit-req-status-code 429", tc.host, status)
					}
				}
				most := tc.burst + 1 + int(time.Since(start).Seconds()*tc.rate+1)
				if passed < tc.burst+1 || passed > most {
					t.Errorf("%s: %d of 10 quick requests passed, want %d to %d (burst %d)", tc.host, passed, tc.burst+1, most, tc.burst)
				}
			}

			// limit-connections 2: two requests held by the backend, a third refused
			held := make(chan int, 2)
			for range 2 {
				go func() {
					resp, err := plainClient().Do(hostRequest(t, n, "conn.test"))
					if err != nil {
						held <- 0
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					held <- resp.StatusCode
				}()
			}
			for range 2 {
				select {
				case <-arrived:
				case <-time.After(10 * time.Second):
					t.Fatal("the backend did not get the two held requests")
				}
			}
			if status, _ := n.get(t, "conn.test", "/"); status != http.StatusServiceUnavailable {
				t.Errorf("a third request with two in progress: status %d, want 503 (limit-connections 2)", status)
			}
			close(release)
			for range 2 {
				if status := <-held; status != http.StatusOK {
					t.Errorf("a held request ended with status %d, want 200", status)
				}
			}
			// the counts end in the log phase, just after the answers
			deadline := time.Now().Add(5 * time.Second)
			for {
				status, _ := n.get(t, "conn.test", "/")
				if status == http.StatusOK {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the held requests ended: status %d, want 200 (their count never ended)", status)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func plainClient() *http.Client {
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
}

func hostRequest(t *testing.T, n *liveNginx, host string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+"/", nil)
	if err != nil {
		t.Error(err)
	}
	req.Host = host
	return req
}
