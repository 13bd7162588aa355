package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// The clusters of these tests: one Ingress with a path per port of one
// Service of dictsPorts ports. Every backend (one per port) holds every
// endpoint, so 30,000 IPv6 endpoints make 600,000 endpoints of about 68
// bytes in backends.json: about 41 MB, which configuration_data must hold
// twice (lua/CONTRACT.md), so 128m instead of the default 64m.
const (
	dictsPorts          = 20
	dictsSmallEndpoints = 100
	dictsBigEndpoints   = 30000
)

var dictsSnapshots sync.Map // endpoint count -> render.Snapshot

// dictsSnapshot is the cluster with n endpoints (built once per test
// binary; Build never modifies its objects).
func dictsSnapshot(n int) render.Snapshot {
	if s, ok := dictsSnapshots.Load(n); ok {
		return s.(render.Snapshot)
	}
	const ns, name = "big", "web"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       networkingv1.IngressSpec{IngressClassName: new("nginx")},
	}
	var paths []networkingv1.HTTPIngressPath
	var slicePorts []discoveryv1.EndpointPort
	for p := range dictsPorts {
		portName := fmt.Sprintf("p%02d", p)
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: portName, Port: int32(8000 + p), TargetPort: intstr.FromInt32(int32(9000 + p))})
		slicePorts = append(slicePorts, discoveryv1.EndpointPort{Name: new(portName), Port: new(int32(9000 + p))})
		paths = append(paths, networkingv1.HTTPIngressPath{
			Path:     "/" + portName,
			PathType: new(networkingv1.PathTypePrefix),
			Backend:  networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name, Port: networkingv1.ServiceBackendPort{Name: portName}}},
		})
	}
	ing.Spec.Rules = []networkingv1.IngressRule{{
		Host:             "big.example.com",
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}},
	}}
	s := render.Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{svc}}
	const perSlice = 1000
	for first := 0; first < n; first += perSlice {
		es := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ns,
				Name:      fmt.Sprintf("%s-%05d", name, first/perSlice),
				Labels:    map[string]string{discoveryv1.LabelServiceName: name},
			},
			AddressType: discoveryv1.AddressTypeIPv6,
			Ports:       slicePorts,
		}
		for i := first; i < min(first+perSlice, n); i++ {
			// Canonical IPv6 of 39 characters: no group has a leading zero.
			addr := fmt.Sprintf("fd00:1111:2222:3333:4444:5555:%04x:%04x", 0x1000+i>>12, 0x1000+i&0xfff)
			es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{addr}})
		}
		s.EndpointSlices = append(s.EndpointSlices, es)
	}
	dictsSnapshots.Store(n, s)
	return s
}

// dictLines are the lua_shared_dict lines and the status server's body
// limit of conf.
func dictLines(conf []byte) []string {
	var out []string
	for l := range strings.Lines(string(conf)) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "lua_shared_dict ") || strings.HasPrefix(t, "client_max_body_size 128m") || strings.HasPrefix(t, "client_max_body_size 64m") {
			out = append(out, t)
		}
	}
	return out
}

func TestRenderSizesTheLuaDicts(t *testing.T) {
	small, err := renderBundle(dictsSnapshot(dictsSmallEndpoints), NewRenderFlags())
	if err != nil {
		t.Fatal(err)
	}
	if got := luaapi.DictSizesOf(small.NGINXConf); got != luaapi.DefaultDictSizes() {
		t.Errorf("a small cluster: dicts %+v, want the defaults %+v", got, luaapi.DefaultDictSizes())
	}

	classic := NewRenderFlags()
	classic.Routing = nginxconf.RoutingNginx // the router's own dicts aside
	big, err := renderBundle(dictsSnapshot(dictsBigEndpoints), classic)
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Backends) < 32<<20 {
		t.Fatalf("backends.json is %d bytes: too small for this test", len(big.Backends))
	}
	want := []string{
		"lua_shared_dict configuration_data 128m;",
		"lua_shared_dict certificate_data 32m;",
		"lua_shared_dict certificate_servers 8m;",
		"lua_shared_dict balancer_ewma 10m;",
		"client_max_body_size 128m;",
	}
	if got := dictLines(big.NGINXConf); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d MB of backends: nginx.conf has\n%s\nwant\n%s", len(big.Backends)>>20, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRenderAndDiffWriteWhatTheControllerWrites runs the controller's loop
// in-process (a fake nginx records each nginx.conf it is started or
// reloaded with) on a small cluster, then a big one, then the small one
// again, and compares each nginx.conf with render's and diff's, and each
// sync's verdict with diff's: the first start sizes the dicts as render
// does; the growth resizes configuration_data (a reload, diff names the
// resize); the shrink keeps the larger dict (hysteresis: no reload, and
// diff says dynamic only).
func TestRenderAndDiffWriteWhatTheControllerWrites(t *testing.T) {
	flags := NewRenderFlags()
	flags.Routing = nginxconf.RoutingNginx // the dicts of the classic writer; the fake nginx takes no routes
	small, big := dictsSnapshot(dictsSmallEndpoints), dictsSnapshot(dictsBigEndpoints)

	src := &dictsSource{snap: small, changed: make(chan func(), 1)}
	ngx := &dictsNginx{confs: make(chan dictsConf, 4), done: make(chan struct{})}
	synced := make(chan controller.SyncResult, 4)
	c, err := controller.New(controller.Config{
		Source:    src,
		Problems:  dictsProblems{},
		Nginx:     ngx,
		Lua:       dictsLua{},
		Build:     flags.BuildOptions(),
		Conf:      flags.ConfOptions(),
		SyncRate:  1000,
		Observers: []controller.SyncObserver{dictsObserver(synced)},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- c.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("controller: %v", err)
		}
	}()
	changed := <-src.changed
	syncTo := func(s render.Snapshot) controller.SyncResult {
		t.Helper()
		src.set(s)
		changed()
		select {
		case r := <-synced:
			if r.Err != nil {
				t.Fatalf("sync: %v", r.Err)
			}
			return r
		case <-time.After(30 * time.Second):
			t.Fatal("no sync within 30 s")
		}
		return controller.SyncResult{}
	}
	conf := func(want string) []byte {
		t.Helper()
		select {
		case c := <-ngx.confs:
			if c.how != want {
				t.Fatalf("nginx was %s, want %s", c.how, want)
			}
			return c.conf
		default:
			t.Fatalf("nginx was not %s", want)
		}
		return nil
	}

	// The first start: render's nginx.conf.
	select {
	case r := <-synced:
		if r.Err != nil || !r.Reloaded {
			t.Fatalf("first sync: reloaded %v, %v", r.Reloaded, r.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no first sync within 30 s")
	}
	started := conf("started")
	rendered, err := renderBundle(small, flags)
	if err != nil {
		t.Fatal(err)
	}
	if string(rendered.NGINXConf) != string(started) {
		t.Errorf("render's nginx.conf differs from the controller's first start:\n%s", confDiff(started, rendered.NGINXConf, nil))
	}

	// Small → big: configuration_data grows; diff predicts the reload.
	grow := diffReportOf(t, small, big, flags)
	if r := syncTo(big); !r.Reloaded || r.Verdict != grow.plan.Verdict {
		t.Errorf("small → big: the controller's verdict %v (reloaded %v), diff's %v", r.Verdict, r.Reloaded, grow.plan.Verdict)
	}
	reloaded := conf("reloaded")
	if string(grow.newConf) != string(reloaded) {
		t.Errorf("diff's new nginx.conf differs from the controller's reload:\n%s", confDiff(reloaded, grow.newConf, nil))
	}
	if grow.Verdict != ksync.ReloadRequired.String() {
		t.Errorf("small → big: diff's verdict %q, want %q", grow.Verdict, ksync.ReloadRequired)
	}
	const resized = "lua_shared_dict configuration_data resized from 64 MiB to 128 MiB: the Lua payloads need more room"
	var texts []string
	for _, r := range grow.Reasons {
		texts = append(texts, r.Text)
	}
	if !grow.hasReason(resized, true) {
		t.Errorf("small → big: diff's reasons lack the reload reason %q:\n%s", resized, strings.Join(texts, "\n"))
	}
	if text := grow.text(nil); !strings.Contains(text, "reload   "+resized) || !strings.Contains(text, "+\tlua_shared_dict configuration_data 128m;") || strings.Count(text, "+\t\tclient_max_body_size 128m;") != 1 {
		t.Errorf("small → big: diff's text report lacks the resize:\n%.3000s", text)
	}

	// Big → small: the dict keeps 128m; no reload, and diff agrees.
	shrink := diffReportOf(t, big, small, flags)
	if r := syncTo(small); r.Reloaded || r.Verdict != shrink.plan.Verdict {
		t.Errorf("big → small: the controller's verdict %v (reloaded %v), diff's %v", r.Verdict, r.Reloaded, shrink.plan.Verdict)
	}
	if shrink.Verdict != ksync.DynamicOnly.String() {
		t.Errorf("big → small: diff's verdict %q, want %q (the dict keeps its size)", shrink.Verdict, ksync.DynamicOnly)
	}
	if got := luaapi.DictSizesOf(shrink.newConf).ConfigurationData; got != 128<<20 {
		t.Errorf("big → small: diff's configuration_data %d MiB, want 128 kept", got>>20)
	}
	select {
	case c := <-ngx.confs:
		t.Errorf("big → small: nginx was %s", c.how)
	default:
	}
}

// diffReportOf is diff's report from old to cur, as "kubectl ingress diff
// --from --to" computes it.
func diffReportOf(t *testing.T, old, cur render.Snapshot, f RenderFlags) *diffReport {
	t.Helper()
	o, c, err := renderPair(old, cur, f)
	if err != nil {
		t.Fatal(err)
	}
	return newDiffReport(o, c)
}

func (r *diffReport) hasReason(text string, reload bool) bool {
	for _, reason := range r.Reasons {
		if reason.Text == text && reason.Reload == reload {
			return true
		}
	}
	return false
}

// dictsSource is a controller.Source of one snapshot that the test
// replaces; Run hands the test the changed callback.
type dictsSource struct {
	mu      sync.Mutex
	snap    render.Snapshot
	changed chan func()
}

func (s *dictsSource) Run(ctx context.Context, changed func()) error {
	s.changed <- changed
	<-ctx.Done()
	return nil
}

func (s *dictsSource) WaitForSync(context.Context) bool { return true }

func (s *dictsSource) Snapshot() (render.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap, nil
}

func (s *dictsSource) set(snap render.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snap = snap
}

// dictsNginx records the nginx.conf of each start and reload.
type dictsNginx struct {
	confs chan dictsConf
	once  sync.Once
	done  chan struct{}
}

type dictsConf struct {
	how  string // started | reloaded
	conf []byte
}

func (n *dictsNginx) Start(_ context.Context, conf []byte) error {
	n.confs <- dictsConf{"started", conf}
	return nil
}

func (n *dictsNginx) Reload(_ context.Context, conf []byte) error {
	n.confs <- dictsConf{"reloaded", conf}
	return nil
}

func (n *dictsNginx) Stop(context.Context) error {
	n.once.Do(func() { close(n.done) })
	return nil
}

func (n *dictsNginx) Done() <-chan struct{} { return n.done }

type dictsLua struct{}

func (dictsLua) PostBackends(context.Context, []luaapi.Backend) error { return nil }
func (dictsLua) PostServers(context.Context, luaapi.Servers) error    { return nil }

type dictsProblems struct{}

func (dictsProblems) ReportProblems(context.Context, []model.Problem) {}

type dictsObserver chan controller.SyncResult

func (o dictsObserver) Synced(_ context.Context, r controller.SyncResult) { o <- r }
