package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// TestClusterControllerScenarios runs the controller in cluster mode
// against a real kube-apiserver + etcd and a real nginx, and drives it
// through the API: the scenarios of issue 4, in order, on one cluster.
func TestClusterControllerScenarios(t *testing.T) {
	nginxtest.Require(t)
	cp := startControlPlane(t)
	ctx := context.Background()
	create := metav1.CreateOptions{}
	update := metav1.UpdateOptions{}
	const ns, host = "e2e", "shop.example.com"

	// alpha and beta are endpoints of Service web, gamma of other.
	ip := endpointIP(t)
	alpha, beta, gamma := ipBackend(t, ip, "alpha"), ipBackend(t, ip, "beta"), ipBackend(t, ip, "gamma")

	cc := startClusterController(t, cp.cfg, "", controllerOptions{routing: nginxconf.RoutingNginx})
	cs := cc.cs
	must(cs.CoreV1().Namespaces().Create(ctx, kNamespace(ns), create))(t)
	must(cs.NetworkingV1().IngressClasses().Create(ctx, kIngressClass(), create))(t)
	createService(t, cs, ns, "web", ip, alpha)
	createService(t, cs, ns, "other", ip, gamma)
	epSlices := cs.DiscoveryV1().EndpointSlices(ns)
	ings := cs.NetworkingV1().Ingresses(ns)
	shop := must(ings.Create(ctx, kIngress(ns, "shop", host, nil, "/", "web"), create))(t)

	t.Run("create Service, EndpointSlice and Ingress: served by the right backend", func(t *testing.T) {
		cc.eventuallyServes(t, 20*time.Second, host, "/", 200, "alpha /")
		if code, _ := cc.get("unknown.example.com", "/"); code != 404 {
			t.Errorf("unknown host → %d, want 404", code)
		}
		if st := cc.settle(t); st.ReloadErrors != 0 {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("scale the EndpointSlice: the new endpoint gets traffic, no reload", func(t *testing.T) {
		pids, before := cc.workerPids(t), cc.settle(t)
		// A second endpoint (on another port: a second slice, as the
		// EndpointSlice controller makes when ports differ).
		must(epSlices.Create(ctx, kSlice(ns, "web-2", "web", beta, ip), create))(t)
		cc.eventuallyServes(t, 10*time.Second, host, "/", 200, "beta /")
		// Round robin over both now.
		seen := map[string]int{}
		for range 20 {
			_, body := cc.get(host, "/")
			seen[strings.Fields(body)[0]]++
		}
		if seen["alpha"] == 0 || seen["beta"] == 0 {
			t.Errorf("20 requests after scaling to 2 endpoints reached %v, want both", seen)
		}
		after := cc.settle(t)
		if after.Reloads != before.Reloads {
			t.Errorf("reloads %d → %d for an endpoint change", before.Reloads, after.Reloads)
		}
		if after.DynamicUpdates <= before.DynamicUpdates {
			t.Errorf("no dynamic update counted: %+v → %+v", before, after)
		}
		if now := cc.workerPids(t); !slices.Equal(now, pids) {
			t.Errorf("worker pids changed from %v to %v: nginx reloaded", pids, now)
		}
	})

	t.Run("add a path: exactly one reload, never a 5xx", func(t *testing.T) {
		pids, before := cc.workerPids(t), cc.settle(t)
		var stop atomic.Bool
		var bad atomic.Int64
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					if code, _ := cc.get(host, "/cart"); code != 200 {
						bad.Add(1)
					}
				}
			})
		}
		setIngress(shop, host, nil, "/", "web", "/cart", "other")
		shop = must(ings.Update(ctx, shop, update))(t)
		cc.eventuallyServes(t, 10*time.Second, host, "/cart", 200, "gamma /cart")
		stop.Store(true)
		wg.Wait()
		if n := bad.Load(); n != 0 {
			t.Errorf("%d requests did not answer 200 during the reload", n)
		}
		after := cc.settle(t)
		if after.Reloads != before.Reloads+1 {
			t.Errorf("reloads %d → %d, want exactly one more", before.Reloads, after.Reloads)
		}
		if now := cc.workerPids(t); slices.Equal(now, pids) {
			t.Errorf("worker pids unchanged (%v) after a reload", now)
		}
	})

	t.Run("a burst of 500 Ingress updates: a handful of reloads", func(t *testing.T) {
		burst := must(ings.Create(ctx, kIngress(ns, "burst", "burst.example.com", nil, "/v0", "other"), create))(t)
		cc.eventuallyServes(t, 10*time.Second, "burst.example.com", "/v0", 200, "gamma /v0")
		before := cc.settle(t)
		start := time.Now()
		for i := 1; i <= 500; i++ {
			// Each one alone needs a reload: a new path.
			setIngress(burst, "burst.example.com", nil, fmt.Sprintf("/v%d", i), "other")
			burst = must(ings.Update(ctx, burst, update))(t)
		}
		took := time.Since(start)
		cc.eventuallyServes(t, 20*time.Second, "burst.example.com", "/v500", 200, "gamma /v500")
		after := cc.settle(t)
		reloads, syncs := after.Reloads-before.Reloads, after.Syncs-before.Syncs
		t.Logf("500 updates in %v → %d reloads, %d syncs", took.Round(time.Millisecond), reloads, syncs)
		if reloads < 1 || reloads > 20 {
			t.Errorf("500 updates made %d reloads, want a handful", reloads)
		}
		if code, _ := cc.get("burst.example.com", "/v499"); code != 404 {
			t.Errorf("GET /v499 → %d after the last update, want 404", code)
		}
		noErr(t, ings.Delete(ctx, "burst", metav1.DeleteOptions{}))
		cc.eventuallyServes(t, 10*time.Second, "burst.example.com", "/v500", 404, "")
	})

	t.Run("a bad annotation: a Problem Event on the Ingress, the rest served", func(t *testing.T) {
		blog := must(ings.Create(ctx, kIngress(ns, "blog", "blog.example.com", map[string]string{"proxy-body-size": "a lot"}, "/", "other"), create))(t)
		cc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 200, "gamma /")
		cc.eventuallyServes(t, 10*time.Second, host, "/cart", 200, "gamma /cart")
		events := waitForEvents(t, cc, ns, "blog", blog.UID, 1)
		e := events[0]
		if e.Type != corev1.EventTypeWarning || e.Reason != controller.ReasonInvalidConfiguration ||
			!strings.HasPrefix(e.Message, "metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]: ") {
			t.Errorf("event %s %s %q", e.Type, e.Reason, e.Message)
		}
		// Another change while the problem persists: no second Event.
		blog.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] = "30"
		must(ings.Update(ctx, blog, update))(t)
		cc.settle(t)
		time.Sleep(time.Second) // the broadcaster posts asynchronously
		if events := waitForEvents(t, cc, ns, "blog", blog.UID, 1); len(events) != 1 || events[0].Count != 1 {
			t.Errorf("after another sync with the same problem: %d events, count %d; want 1, 1", len(events), events[0].Count)
		}
	})

	t.Run("a change nginx -t rejects: the old config keeps serving, one reload error", func(t *testing.T) {
		// nginx -t fails for any new nginx.conf; the running nginx
		// keeps serving what it loaded.
		repair := breakNginxTest(t, cc.inst)
		pids, before := cc.workerPids(t), cc.settle(t)
		setIngress(shop, host, nil, "/", "web", "/cart", "other", "/new", "other")
		shop = must(ings.Update(ctx, shop, update))(t)
		waitFor(t, 10*time.Second, "the reload error", func() bool { return cc.c.Stats().ReloadErrors == before.ReloadErrors+1 })
		after := cc.settle(t)
		if after.ReloadErrors != before.ReloadErrors+1 || after.Reloads != before.Reloads {
			t.Errorf("stats %+v → %+v: want one reload error and no reload", before, after)
		}
		if code, body := cc.get(host, "/new"); code != 200 || strings.HasPrefix(body, "gamma") {
			t.Errorf("GET /new → %d %q: the old config (/ on web) should answer", code, body)
		}
		if now := cc.workerPids(t); !slices.Equal(now, pids) {
			t.Errorf("worker pids changed from %v to %v", pids, now)
		}
		if !cc.c.Ready() {
			t.Error("not ready while the old config serves")
		}
		// Repaired: the next change applies.
		repair()
		setIngress(shop, host, nil, "/", "web", "/cart", "other", "/new", "other", "/new2", "other")
		shop = must(ings.Update(ctx, shop, update))(t)
		cc.eventuallyServes(t, 10*time.Second, host, "/new", 200, "gamma /new")
		if st := cc.settle(t); st.Reloads != before.Reloads+1 {
			t.Errorf("reloads %d after the repair, want %d", st.Reloads, before.Reloads+1)
		}
	})

	t.Run("delete the Ingress: 404", func(t *testing.T) {
		noErr(t, ings.Delete(ctx, "shop", metav1.DeleteOptions{}))
		cc.eventuallyServes(t, 10*time.Second, host, "/", 404, "")
		cc.eventuallyServes(t, 10*time.Second, host, "/cart", 404, "")
		cc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 200, "gamma /")
	})

	t.Run("kube-apiserver restarted: the controller applies what changed meanwhile", func(t *testing.T) {
		must(ings.Create(ctx, kIngress(ns, "shop", host, nil, "/", "web"), create))(t)
		cc.eventuallyServes(t, 10*time.Second, host, "/", 200, "")
		before := cc.settle(t)
		cp.restartAPIServer(t, func() {
			// While the controller's API server is down, another one on
			// the same etcd takes changes the controller cannot see yet:
			// an endpoint change, a new Ingress, a deleted Ingress.
			other, stop := cp.secondAPIServer(t)
			defer stop()
			slice := must(other.DiscoveryV1().EndpointSlices(ns).Get(ctx, "web-1", metav1.GetOptions{}))(t)
			setSlicePort(slice, beta)
			must(other.DiscoveryV1().EndpointSlices(ns).Update(ctx, slice, update))(t)
			noErr(t, other.DiscoveryV1().EndpointSlices(ns).Delete(ctx, "web-2", metav1.DeleteOptions{}))
			must(other.NetworkingV1().Ingresses(ns).Create(ctx, kIngress(ns, "late", "late.example.com", nil, "/", "other"), create))(t)
			noErr(t, other.NetworkingV1().Ingresses(ns).Delete(ctx, "blog", metav1.DeleteOptions{}))
			time.Sleep(time.Second)
			if code, _ := cc.get("late.example.com", "/"); code != 404 {
				t.Errorf("late.example.com served (%d) before the controller's API server came back", code)
			}
		})
		cc.eventuallyServes(t, 90*time.Second, "late.example.com", "/", 200, "gamma /")
		cc.eventuallyServes(t, 10*time.Second, "blog.example.com", "/", 404, "")
		// Only beta is left in web's slices.
		// The watch may deliver the slice update and the delete of web-2 in
		// different syncs: wait until ten answers in a row come from beta.
		waitFor(t, 20*time.Second, "only beta serving "+host, func() bool {
			for range 10 {
				if _, body := cc.get(host, "/"); !strings.HasPrefix(body, "beta") {
					return false
				}
			}
			return true
		})
		// And the watch works again: a change through the restarted one.
		slice := must(epSlices.Get(ctx, "web-1", metav1.GetOptions{}))(t)
		setSlicePort(slice, alpha)
		must(epSlices.Update(ctx, slice, update))(t)
		cc.eventuallyServes(t, 10*time.Second, host, "/", 200, "alpha /")
		after := cc.settle(t)
		t.Logf("across the restart: %+v → %+v", before, after)
		if after.ReloadErrors != before.ReloadErrors || after.Restarts != before.Restarts {
			t.Errorf("stats %+v → %+v: no reload error or nginx restart expected", before, after)
		}
	})
}

// waitForEvents waits until the API server holds at least n Events on
// the Ingress ns/name with uid (as `kubectl describe` finds them), and
// returns them.
func waitForEvents(t testing.TB, cc *clusterController, ns, name string, uid any, n int) []corev1.Event {
	t.Helper()
	selector := fields.Set{
		"involvedObject.kind": "Ingress",
		"involvedObject.name": name,
		"involvedObject.uid":  fmt.Sprint(uid),
	}.AsSelector().String()
	var events []corev1.Event
	waitFor(t, 20*time.Second, fmt.Sprintf("%d event(s) on ingress %s/%s", n, ns, name), func() bool {
		list, err := cc.cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		events = list.Items
		return len(events) >= n
	})
	return events
}
