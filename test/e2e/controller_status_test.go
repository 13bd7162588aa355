package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The leader election of the status tests: short, so that a take-over
// without a release would come within seconds.
const (
	statusLeaseNamespace = "ingress"
	statusLeaseName      = "status-e2e"
	statusLeaseTTL       = 4 * time.Second
)

// statusController is a cluster controller with real nginx plus leader
// election and the status writer, as `kubectl ingress controller` runs
// them; stop ends it as SIGTERM does (status duties shut down beside the
// controller's stop).
type statusController struct {
	runningController
	identity string
	address  string
	duties   *controller.StatusDuties
	stop     func(t testing.TB)
}

func startStatusController(t testing.TB, cfg *rest.Config, identity, address string) *statusController {
	t.Helper()
	nginxtest.Require(t)
	sc := &statusController{identity: identity, address: address, runningController: runningController{httpPort: freePort(t), logs: &syncBuffer{}}}
	statusAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort, co.StatusAddress = sc.httpPort, freePort(t), statusAddr
	co.WorkerProcesses = "1"
	build := render.DefaultOptions()
	sc.inst = nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: "http://" + statusAddr})
	if err := sc.inst.Layout(); err != nil {
		t.Fatal(err)
	}
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(1), textlogger.Output(sc.logs))).WithValues("replica", identity)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	src := must(controller.NewClusterSource(controller.ClusterSourceConfig{
		Config:    controller.TuneRESTConfig(cfg, "kubectl-ingress-e2e-"+identity),
		ConfigMap: build.ConfigMap,
	}))(t)
	elector := must(controller.NewElector(controller.ElectorConfig{
		Client: src.Client(), Namespace: statusLeaseNamespace, Name: statusLeaseName, Identity: identity,
		LeaseDuration: statusLeaseTTL, RenewDeadline: statusLeaseTTL / 2, RetryPeriod: statusLeaseTTL / 4,
	}))(t)
	addrs := must(controller.NewAddressSource(controller.AddressConfig{Client: src.Client(), StatusAddress: address}))(t)
	writer := must(controller.NewStatusWriter(controller.StatusConfig{Client: src.Client(), Source: src, Addresses: addrs, Build: build}))(t)
	sc.duties = &controller.StatusDuties{Elector: elector, Writer: writer, UpdateStatusOnShutdown: true}
	sc.c = must(controller.New(controller.Config{
		Source:    src,
		Problems:  controller.NewLogReporter(),
		Nginx:     sc.inst,
		Lua:       luaapi.NewClient("http://"+statusAddr, &http.Client{Timeout: 10 * time.Second}),
		Build:     build,
		Conf:      co,
		RetryBase: time.Hour,
		Observers: []controller.SyncObserver{writer},
	}))(t)
	noErr(t, sc.c.RegisterCollectors(elector.Collectors()...))

	sc.duties.Start(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- sc.c.Run(ctx) }()
	var once sync.Once
	sc.stop = func(t testing.TB) {
		once.Do(func() {
			cancel()
			if err := sc.duties.Shutdown(klog.NewContext(context.Background(), logger)); err != nil {
				t.Errorf("%s: status shutdown: %v", identity, err)
			}
			select {
			case err := <-runErr:
				if err != nil {
					t.Errorf("%s: controller: %v", identity, err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("%s: the controller did not stop", identity)
			}
		})
	}
	t.Cleanup(func() {
		sc.stop(t)
		if t.Failed() {
			t.Logf("controller %s log:\n%s", identity, sc.logs.String())
		}
		checkLuaErrors(t, filepath.Join(sc.inst.Prefix(), "logs", "error.log"))
	})
	waitFor(t, 60*time.Second, identity+"'s nginx to serve the first config", sc.c.Ready)
	return sc
}

// history records, from a watch, every distinct status of each Ingress
// and every holder of the Lease, in order.
type history struct {
	mu      sync.Mutex
	status  map[string][]string
	holders []string
}

func (h *history) addStatus(name, s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l := h.status[name]; len(l) == 0 || l[len(l)-1] != s {
		h.status[name] = append(l, s)
	}
}

func (h *history) addHolder(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.holders) == 0 || h.holders[len(h.holders)-1] != s {
		h.holders = append(h.holders, s)
	}
}

func (h *history) statuses(name string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.status[name])
}

func (h *history) leaseHolders() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.holders)
}

func statusString(ing *networkingv1.Ingress) string {
	var s []string
	for _, a := range ing.Status.LoadBalancer.Ingress {
		s = append(s, a.IP+a.Hostname)
	}
	return strings.Join(s, ",")
}

// watchHistory records the statuses of the Ingresses of ns and the
// holders of the status Lease until the test ends.
func watchHistory(t *testing.T, cs kubernetes.Interface, ns string) *history {
	t.Helper()
	h := &history{status: map[string][]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	ingW := must(cs.NetworkingV1().Ingresses(ns).Watch(ctx, metav1.ListOptions{}))(t)
	leaseW := must(cs.CoordinationV1().Leases(statusLeaseNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + statusLeaseName}))(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range ingW.ResultChan() {
			if ing, ok := ev.Object.(*networkingv1.Ingress); ok && ev.Type != watch.Deleted {
				h.addStatus(ing.Name, statusString(ing))
			}
		}
	})
	wg.Go(func() {
		for ev := range leaseW.ResultChan() {
			if l, ok := ev.Object.(*coordinationv1.Lease); ok {
				holder := ""
				if l.Spec.HolderIdentity != nil {
					holder = *l.Spec.HolderIdentity
				}
				h.addHolder(holder)
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		ingW.Stop()
		leaseW.Stop()
		wg.Wait()
	})
	return h
}

// TestStatusLeaderElection runs two replicas of the cluster controller
// (each with its own nginx, its own --publish-status-address) on one API
// server, after a replica that died holding the Lease: the first leader
// comes once that Lease expired; only the leader writes status; an
// Ingress moved to another
// class loses it; when the leader stops (--update-status-on-shutdown) it
// clears the status and the other replica takes over and writes its own.
func TestStatusLeaderElection(t *testing.T) {
	nginxtest.Require(t)
	cp := startControlPlane(t)
	cs := must(kubernetes.NewForConfig(cp.cfg))(t)
	ctx := context.Background()
	create, update := metav1.CreateOptions{}, metav1.UpdateOptions{}
	const ns, host = "e2e", "shop.example.com"
	for _, n := range []string{ns, statusLeaseNamespace} {
		must(cs.CoreV1().Namespaces().Create(ctx, kNamespace(n), create))(t)
	}
	must(cs.NetworkingV1().IngressClasses().Create(ctx, kIngressClass(), create))(t)
	other := kIngressClass()
	other.Name, other.Spec.Controller = "other", "example.com/other"
	must(cs.NetworkingV1().IngressClasses().Create(ctx, other, create))(t)
	ip := endpointIP(t)
	createService(t, cs, ns, "web", ip, ipBackend(t, ip, "web"))
	h := watchHistory(t, cs, ns)
	ings := cs.NetworkingV1().Ingresses(ns)
	must(ings.Create(ctx, kIngress(ns, "shop", host, nil, "/", "web"), create))(t)
	// An Ingress of another controller, with that controller's status.
	foreign := must(ings.Create(ctx, kIngress(ns, "foreign", "foreign.example.com", nil, "/", "web"), create))(t)
	foreign.Spec.IngressClassName = new("other")
	foreign = must(ings.Update(ctx, foreign, update))(t)
	foreign.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "198.51.100.9"}}
	must(ings.UpdateStatus(ctx, foreign, update))(t)

	// A replica that died holding the Lease (it never released it): the
	// others take over only once it expired.
	crashed := must(cs.CoordinationV1().Leases(statusLeaseNamespace).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: statusLeaseNamespace, Name: statusLeaseName},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       new("crashed-replica"),
			LeaseDurationSeconds: new(int32(statusLeaseTTL / time.Second)),
			AcquireTime:          &metav1.MicroTime{Time: time.Now()},
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}, create))(t)

	a := startStatusController(t, cp.cfg, "replica-a", "192.0.2.1")
	b := startStatusController(t, cp.cfg, "replica-b", "192.0.2.2")
	replicas := []*statusController{a, b}

	// Sample who leads until the take-over: never both at once.
	var both sync.Mutex
	bothLed := 0
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-sampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if a.duties.Elector.IsLeader() && b.duties.Elector.IsLeader() {
				both.Lock()
				bothLed++
				both.Unlock()
			}
		}
	}()
	stopSampling := func() {
		select {
		case <-sampling:
		default:
			close(sampling)
		}
		<-sampled
	}
	defer stopSampling()

	var leader, follower *statusController
	waitFor(t, 30*time.Second, "a leader", func() bool {
		for i, r := range replicas {
			if r.duties.Elector.IsLeader() {
				leader, follower = r, replicas[1-i]
				return true
			}
		}
		return false
	})
	t.Logf("%s leads, %v after the crashed replica's last renewal", leader.identity, time.Since(crashed.Spec.RenewTime.Time).Round(time.Millisecond))
	// The first leader stops with --update-status-on-shutdown, the
	// second without (set before their stop, which reads it).
	leader.duties.UpdateStatusOnShutdown, follower.duties.UpdateStatusOnShutdown = true, false
	ingressStatus := func(name string) string {
		return statusString(must(ings.Get(ctx, name, metav1.GetOptions{}))(t))
	}

	t.Run("ingress-nginx's leader gauge says who leads", func(t *testing.T) {
		if got := leaderGauge(t, leader); got != 1 {
			t.Errorf("%s leads; its nginx_ingress_controller_leader_election_status is %v, want 1", leader.identity, got)
		}
		if got := leaderGauge(t, follower); got != 0 {
			t.Errorf("%s follows; its nginx_ingress_controller_leader_election_status is %v, want 0", follower.identity, got)
		}
	})

	t.Run("the leader writes its address to the Ingresses of its class", func(t *testing.T) {
		waitFor(t, 20*time.Second, "shop's status from "+leader.identity, func() bool { return ingressStatus("shop") == leader.address })
		must(ings.Create(ctx, kIngress(ns, "blog", "blog.example.com", nil, "/", "web"), create))(t)
		waitFor(t, 20*time.Second, "blog's status from "+leader.identity, func() bool { return ingressStatus("blog") == leader.address })
		for _, r := range replicas {
			r.eventuallyServes(t, 20*time.Second, "blog.example.com", "/", 200, "web /")
		}
	})

	t.Run("an Ingress moved to another class loses its status", func(t *testing.T) {
		blog := must(ings.Get(ctx, "blog", metav1.GetOptions{}))(t)
		blog.Spec.IngressClassName = new("other")
		must(ings.Update(ctx, blog, update))(t)
		waitFor(t, 20*time.Second, "blog's status to be cleared", func() bool { return ingressStatus("blog") == "" })
		if got := ingressStatus("shop"); got != leader.address {
			t.Errorf("shop's status %q, want %q", got, leader.address)
		}
	})

	t.Run("the leader stops: it clears the status, the other takes over and writes its own", func(t *testing.T) {
		stopped := time.Now()
		leader.stop(t)
		// The release, not the expiry, hands over: the lease holders below
		// show "" between the two.
		waitFor(t, 30*time.Second, follower.identity+" to take over", follower.duties.Elector.IsLeader)
		t.Logf("%s took over %v after %s's stop began", follower.identity, time.Since(stopped).Round(time.Millisecond), leader.identity)
		// The history comes from a watch, whose event may arrive after a
		// GET already shows the new status: wait for the watch's.
		waitFor(t, 20*time.Second, "shop's status from "+follower.identity+" in the watched history", func() bool {
			seen := h.statuses("shop")
			return len(seen) > 0 && seen[len(seen)-1] == follower.address
		})
		stopSampling()
		if bothLed != 0 {
			t.Errorf("both replicas led at %d samples", bothLed)
		}
		if got, want := h.statuses("shop"), []string{"", leader.address, "", follower.address}; !slices.Equal(got, want) {
			t.Errorf("shop's statuses %q, want %q (the follower's address only after the leader's cleared)", got, want)
		}
		if got, want := h.leaseHolders(), []string{"crashed-replica", leader.identity, "", follower.identity}; !slices.Equal(got, want) {
			t.Errorf("lease holders %q, want %q", got, want)
		}
		// The follower is serving traffic all along.
		follower.eventuallyServes(t, 10*time.Second, host, "/", 200, "web /")
		if got := leaderGauge(t, follower); got != 1 {
			t.Errorf("%s took over; its nginx_ingress_controller_leader_election_status is %v, want 1", follower.identity, got)
		}
	})

	t.Run("Ingresses of another class are never touched", func(t *testing.T) {
		if got := h.statuses("foreign"); !slices.Equal(got, []string{"", "198.51.100.9"}) {
			t.Errorf("foreign's statuses %q, want only its own controller's", got)
		}
		if got := h.statuses("blog"); slices.Contains(got, follower.address) {
			t.Errorf("blog (class other) got the new leader's address: %q", got)
		}
	})

	t.Run("--update-status-on-shutdown=false leaves the status", func(t *testing.T) {
		follower.stop(t)
		if got := ingressStatus("shop"); got != follower.address {
			t.Errorf("shop's status %q after a stop without clearing, want %q", got, follower.address)
		}
	})
}

// leaderGauge scrapes r's /metrics for ingress-nginx's
// nginx_ingress_controller_leader_election_status of the test's Lease.
func leaderGauge(t *testing.T, r *statusController) float64 {
	t.Helper()
	srv := httptest.NewServer(r.c.Handler())
	defer srv.Close()
	text := scrape(t, srv.URL)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "nginx_ingress_controller_leader_election_status{") && strings.Contains(l, `name="`+statusLeaseName+`"`) {
			v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			return v
		}
	}
	t.Fatalf("%s: no nginx_ingress_controller_leader_election_status of lease %s on /metrics", r.identity, statusLeaseName)
	return 0
}
