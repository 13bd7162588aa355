package e2e

// The controller on the files source with --routing=lua: after the first
// config, creating, changing and deleting Ingresses (new hosts, paths with
// new backends, annotations the router applies, canaries) never reloads
// nginx: the master and worker pids stay, the reload counter stays at the
// first start's, and a client asking a host that nobody touches throughout
// never gets another answer than its backend's.

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

func TestFilesControllerLuaRoutingNeverReloads(t *testing.T) {
	alpha, beta, gamma := namedBackend(t, "alpha"), namedBackend(t, "beta"), namedBackend(t, "gamma")
	canary := namedBackend(t, "canary")
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":      "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/web.yaml":    serviceYAML("web", alpha),
		"svc/other.yaml":  serviceYAML("other", beta),
		"ing/stable.yaml": filesIngress("stable", "stable.example.com", nil, "/", "web"),
	}, controllerOptions{debounce: 20 * time.Millisecond, routing: nginxconf.RoutingLua})
	fc.eventuallyServes(t, 10*time.Second, "stable.example.com", "/", 200, "alpha /")
	start := fc.settle(t)
	if start.Reloads != 1 {
		t.Fatalf("reloads after the first config: %d, want 1 (the start)", start.Reloads)
	}
	master, workers := fc.inst.Pid(), fc.workerPids(t)

	// Constant traffic to the untouched host, a transport per client (see
	// TestFilesControllerInPlaceEdits).
	var stop atomic.Bool
	var requests atomic.Int64
	var mu sync.Mutex
	bad := map[string]int{}
	var wg sync.WaitGroup
	for range 2 {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		wg.Go(func() {
			for !stop.Load() {
				code, body := fc.getVia(tr, "stable.example.com", "/x")
				requests.Add(1)
				if code != 200 || !strings.HasPrefix(body, "alpha /x") {
					mu.Lock()
					bad[fmt.Sprintf("%d %.40q", code, body)]++
					mu.Unlock()
				}
			}
		})
	}

	steps := []struct {
		name  string
		apply func()
		check func(t *testing.T)
	}{
		{"a new host", func() {
			fc.write(t, "ing/shop.yaml", filesIngress("shop", "shop.example.com", nil, "/", "other"))
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
		}},
		{"a path with a new Service (a new backend)", func() {
			fc.write(t, "svc/third.yaml", serviceYAML("third", gamma))
			fc.write(t, "ing/shop.yaml", filesIngress("shop", "shop.example.com", nil, "/", "other", "/cart", "third"))
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/cart/1", 200, "gamma /cart/1")
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
		}},
		{"an annotation the router applies (rewrite-target)", func() {
			fc.write(t, "ing/shop.yaml", filesIngress("shop", "shop.example.com", map[string]string{"rewrite-target": "/rewritten"}, "/", "other", "/cart", "third"))
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/cart/1", 200, "gamma /rewritten")
		}},
		{"a canary by header", func() {
			fc.write(t, "svc/canary.yaml", serviceYAML("canary", canary))
			fc.write(t, "ing/shop-canary.yaml", strings.Replace(
				filesIngress("shop-canary", "shop.example.com", map[string]string{"canary": "true", "canary-by-header": "X-Canary"}, "/", "canary"),
				"00:00:00Z", "00:00:05Z", 1))
		}, func(t *testing.T) {
			waitFor(t, 10*time.Second, "the canary to answer X-Canary: always", func() bool {
				code, body := fc.getVia(http.DefaultTransport, "shop.example.com", "/", "X-Canary", "always")
				return code == 200 && strings.HasPrefix(body, "canary /")
			})
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "beta /")
		}},
		{"a permanent redirect", func() {
			fc.write(t, "ing/old.yaml", filesIngress("old", "old.example.com", map[string]string{"permanent-redirect": "https://new.example.com/"}, "/", "other"))
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "old.example.com", "/", 301, "")
		}},
		{"basic authentication with a rate limit (a new htpasswd file)", func() {
			fc.write(t, "secret/users.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: users, namespace: e2e}\n"+
				"data: {auth: "+base64.StdEncoding.EncodeToString([]byte("alice:"+shaHash("secret")+"\n"))+"}\n")
			fc.write(t, "ing/team.yaml", filesIngress("team", "team.example.com", map[string]string{
				"auth-type": "basic", "auth-secret": "users", "limit-rps": "100", "limit-connections": "10"}, "/", "other"))
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "team.example.com", "/", 401, "")
			basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:secret"))
			if code, body := fc.getVia(http.DefaultTransport, "team.example.com", "/", "Authorization", basic); code != 200 || !strings.HasPrefix(body, "beta /") {
				t.Errorf("alice on team.example.com: %d %q, want beta's 200", code, body)
			}
		}},
		{"the Ingresses deleted", func() {
			fc.remove(t, "ing/team.yaml")
			fc.remove(t, "ing/shop.yaml")
			fc.remove(t, "ing/shop-canary.yaml")
			fc.remove(t, "ing/old.yaml")
		}, func(t *testing.T) {
			fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 404, "")
			fc.eventuallyServes(t, 10*time.Second, "old.example.com", "/", 404, "")
			fc.eventuallyServes(t, 10*time.Second, "team.example.com", "/", 404, "")
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before := fc.settle(t)
			step.apply()
			step.check(t)
			after := fc.settle(t)
			if after.Reloads != start.Reloads || after.ReloadErrors != 0 {
				t.Errorf("reloads %d → %d (errors %d): want none", before.Reloads, after.Reloads, after.ReloadErrors)
			}
			if after.DynamicUpdates <= before.DynamicUpdates {
				t.Errorf("no dynamic update counted: %+v → %+v", before, after)
			}
		})
	}
	stop.Store(true)
	wg.Wait()
	if fc.inst.Pid() != master {
		t.Errorf("master pid %d → %d", master, fc.inst.Pid())
	}
	if now := fc.workerPids(t); !slices.Equal(now, workers) {
		t.Errorf("worker pids %v → %v: nginx reloaded", workers, now)
	}
	t.Logf("%d requests to the untouched host during %d changes", requests.Load(), len(steps))
	if len(bad) > 0 || requests.Load() == 0 {
		t.Errorf("answers other than alpha's on the untouched host: %v (of %d)", bad, requests.Load())
	}
}

// TestFilesControllerLuaErrorPages: custom-http-errors in Lua routing
// through the controller. A second host with a code set nginx.conf already
// has is dynamic (no reload) and its pages come from the default backend
// at once; a host with a new code set is one reload, and its route is
// posted only after the reload wrote its location: no request to it is
// answered 500 (ngx.exec to a missing location) meanwhile.
func TestFilesControllerLuaErrorPages(t *testing.T) {
	errs := startErrorPageBackend(t)
	app := statusBackend(t)
	pages := func(name, host, codes string) string {
		return filesIngress(name, host, map[string]string{"custom-http-errors": codes, "default-backend": "errors"}, "/", "app")
	}
	fc := startFilesControllerWith(t, map[string]string{
		"class.yaml":     "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"svc/app.yaml":   serviceYAML("app", app),
		"svc/errs.yaml":  serviceYAML("errors", errs.port),
		"ing/first.yaml": pages("first", "first.example.com", "404,503"),
	}, controllerOptions{debounce: 20 * time.Millisecond, routing: nginxconf.RoutingLua})
	fc.eventuallyServes(t, 10*time.Second, "first.example.com", "/status/404", 404, "{")
	start := fc.settle(t)

	fc.write(t, "ing/second.yaml", pages("second", "second.example.com", "404,503"))
	fc.eventuallyServes(t, 10*time.Second, "second.example.com", "/status/503", 503, "{")
	if code, body := fc.get("second.example.com", "/status/500"); code != 500 || body != "app 500" {
		t.Errorf("second.example.com /status/500: %d %q, want the backend's own 500", code, body)
	}
	if now := fc.settle(t); now.Reloads != start.Reloads {
		t.Errorf("a host with a code set nginx.conf has reloaded nginx: %d → %d", start.Reloads, now.Reloads)
	}

	// A new code set: watch the host while the controller reloads.
	before := fc.settle(t)
	fc.write(t, "ing/third.yaml", pages("third", "third.example.com", "500"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := fc.get("third.example.com", "/status/500")
		if code == 500 && strings.HasPrefix(body, "{") {
			break // the default backend's page
		}
		if code != 404 { // before its route: the catch-all's 404
			t.Fatalf("third.example.com during its first sync: %d %q, want 404 then the error page", code, body)
		}
		if time.Now().After(deadline) {
			t.Fatal("third.example.com never served its error page")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if now := fc.settle(t); now.Reloads != before.Reloads+1 {
		t.Errorf("a new code set: reloads %d → %d, want one", before.Reloads, now.Reloads)
	}
}
