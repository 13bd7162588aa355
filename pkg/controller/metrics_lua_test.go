package controller

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// luaNginx starts a real nginx with the project's Lua on loopback ports and
// returns a client of its status server.
func luaNginx(t *testing.T) *luaapi.Client {
	t.Helper()
	nginxtest.Require(t)
	ports := testports.Free(t, 3)
	o := nginxconf.DefaultConfOptions()
	o.ListenAddress, o.HTTPPort, o.HTTPSPort = "127.0.0.1", ports[0], ports[1]
	o.StatusAddress = "127.0.0.1:" + strconv.Itoa(ports[2])
	o.WorkerProcesses = "1"
	cfg, _ := render.Build(render.Snapshot{}, render.DefaultOptions())
	conf, err := nginxconf.NGINXConf(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	in := nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: "http://" + o.StatusAddress})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := in.Start(ctx, conf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = in.Stop(ctx)
	})
	return luaapi.NewClient("http://"+o.StatusAddress, &http.Client{Timeout: 10 * time.Second})
}

// TestTimedPusherNamesDroppedEntries: a payload of 1,000 backends with a
// bad one, posted through the loop's pusher to a real nginx: the push
// succeeds, and the metric and the log name the dropped backend; the next
// good push clears them.
func TestTimedPusherNamesDroppedEntries(t *testing.T) {
	client := luaNginx(t)
	m := newLoopMetrics(MetricsIdentity{})
	p := newTimedPusher(client, m)
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer()
	ctx := klog.NewContext(t.Context(), logger)

	backends := make([]luaapi.Backend, 1000)
	for i := range backends {
		backends[i] = luaapi.Backend{Name: fmt.Sprintf("ns-svc%04d-80", i), Endpoints: []luaapi.Endpoint{{Address: "10.0.0.1", Port: "8080"}}}
	}
	backends[500].Endpoints[0].Address = "127.1"
	if err := p.PostBackends(ctx, backends); err != nil {
		t.Fatalf("PostBackends with one bad backend = %v, want success", err)
	}
	text := scrape(t, m)
	want := `kubectl_ingress_lua_dropped_entries{endpoint="backends",kept="false",kind="backend",name="ns-svc0500-80"} 1`
	if !strings.Contains(text, want) {
		t.Errorf("metrics lack %s:\n%s", want, grepMetric(text, "lua_dropped"))
	}
	if !strings.Contains(text, `kubectl_ingress_lua_dropped_entries_total{endpoint="backends"} 1`) {
		t.Errorf("dropped total:\n%s", grepMetric(text, "lua_dropped"))
	}
	if !strings.Contains(logs.String(), "ns-svc0500-80") || !strings.Contains(logs.String(), "127.1 is neither an IP address nor a DNS name") {
		t.Errorf("the log does not name the dropped backend and why:\n%s", logs.String())
	}
	got, err := client.GetBackends(ctx)
	if err != nil || len(got) != 999 {
		t.Errorf("nginx holds %d backends (%v), want 999", len(got), err)
	}

	// Once fixed, the metric forgets it.
	backends[500].Endpoints[0].Address = "127.0.0.1"
	if err := p.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	if text := scrape(t, m); strings.Contains(text, `kubectl_ingress_lua_dropped_entries{`) {
		t.Errorf("a dropped entry is still exported after a good push:\n%s", grepMetric(text, "lua_dropped"))
	}
	if !strings.Contains(logs.String(), "applies every entry") {
		t.Errorf("the log does not say the drops are over:\n%s", logs.String())
	}

	// A certificate that does not parse, through the servers endpoint.
	if err := p.PostServers(ctx, luaapi.Servers{
		Servers:      map[string]string{"a.example.com": "ns/a"},
		Certificates: map[string]string{"ns/a": "not a PEM"},
	}); err != nil {
		t.Fatal(err)
	}
	text = scrape(t, m)
	for _, want := range []string{
		`kubectl_ingress_lua_dropped_entries{endpoint="servers",kept="false",kind="certificate",name="ns/a"} 1`,
		`kubectl_ingress_lua_dropped_entries{endpoint="servers",kept="false",kind="server",name="a.example.com"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepMetric(text, "lua_dropped"))
		}
	}
}

// scrape returns the samples of m as "name{k="v",…} value" lines, the
// labels sorted as Prometheus's text format sorts them.
func scrape(t *testing.T, m *loopMetrics) string {
	t.Helper()
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			var labels []string
			for _, l := range metric.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			value := metric.GetGauge().GetValue() + metric.GetCounter().GetValue()
			fmt.Fprintf(&b, "%s{%s} %g\n", f.GetName(), strings.Join(labels, ","), value)
		}
	}
	return b.String()
}

func grepMetric(text, word string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// encodedRecorder is a Pusher that takes encoded backends, recording
// which way each array came.
type encodedRecorder struct {
	fakePusherBase
	encoded, bodies int
}

func (r *encodedRecorder) PostBody(context.Context, string, []byte) ([]luaapi.Dropped, error) {
	r.bodies++
	return nil, nil
}

func (r *encodedRecorder) PostEncodedBackends(context.Context, *luaapi.EncodedBackends) ([]luaapi.Dropped, error) {
	r.encoded++
	return nil, nil
}

// TestTimedPusherPassesEncodedBackends: the loop's pusher hands the
// backends encoded for a start's preload to a Pusher that takes them (the
// luaapi.Client then knows what nginx holds), timed as a post of backends;
// one that takes bodies only gets the body.
func TestTimedPusherPassesEncodedBackends(t *testing.T) {
	m := newLoopMetrics(MetricsIdentity{})
	rec := &encodedRecorder{}
	e, err := luaapi.EncodeBackends([]luaapi.Backend{{Name: "ns-a-80"}})
	if err != nil {
		t.Fatal(err)
	}
	ep, ok := newTimedPusher(rec, m).withBodies().(ksync.EncodedPusher)
	if !ok {
		t.Fatal("the loop's pusher does not take encoded backends")
	}
	if _, err := ep.PostEncodedBackends(t.Context(), e); err != nil || rec.encoded != 1 || rec.bodies != 0 {
		t.Fatalf("PostEncodedBackends: %v; %d encoded, %d bodies; want 1, 0", err, rec.encoded, rec.bodies)
	}
	if text := scrape(t, m); !strings.Contains(text, `endpoint="backends"`) {
		t.Errorf("the post is not timed as one of backends:\n%s", grepMetric(text, "lua"))
	}
	bodiesOnly := &bodyRecorder{}
	ep = newTimedPusher(bodiesOnly, newLoopMetrics(MetricsIdentity{})).withBodies().(ksync.EncodedPusher)
	if _, err := ep.PostEncodedBackends(t.Context(), e); err != nil || bodiesOnly.bodies != 1 {
		t.Fatalf("to a Pusher of bodies only: %v; %d bodies, want 1", err, bodiesOnly.bodies)
	}
}

// bodyRecorder is a Pusher that takes bodies only.
type bodyRecorder struct {
	fakePusherBase
	bodies int
}

func (r *bodyRecorder) PostBody(context.Context, string, []byte) ([]luaapi.Dropped, error) {
	r.bodies++
	return nil, nil
}

// fakePusherBase is a Pusher that takes every payload and does nothing.
type fakePusherBase struct{}

func (fakePusherBase) PostBackends(context.Context, []luaapi.Backend) error { return nil }
func (fakePusherBase) PostServers(context.Context, luaapi.Servers) error    { return nil }
