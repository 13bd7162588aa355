package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// Benchmarks of the controller in cluster mode: a real kube-apiserver +
// etcd (envtest), a real nginx, changes made through the API. Each
// sub-benchmark runs a controller of its own that watches a namespace of
// its own (--watch-namespace), with the command's default
// --sync-rate-limit. Run:
//
//	go test ./test/e2e -run '^$' -bench 'BenchmarkClusterLatency' -benchtime 100x
//	go test ./test/e2e -run '^$' -bench 'BenchmarkClusterReloads' -benchtime 1x

// clusterBench is a control plane shared by the sub-benchmarks.
type clusterBench struct {
	cp *controlPlane
	cs kubernetes.Interface
	ip string
}

func newClusterBench(b *testing.B) *clusterBench {
	b.Helper()
	nginxtest.Require(b)
	cp := startControlPlane(b)
	cs := must(kubernetes.NewForConfig(cp.cfg))(b)
	must(cs.NetworkingV1().IngressClasses().Create(context.Background(), kIngressClass(), metav1.CreateOptions{}))(b)
	return &clusterBench{cp: cp, cs: cs, ip: endpointIP(b)}
}

// controller starts a controller on namespace ns (created here) with
// Service web whose EndpointSlice web-1 has one endpoint on port.
func (cb *clusterBench) controller(b *testing.B, ns string, port int) (*clusterController, *discoveryv1.EndpointSlice) {
	b.Helper()
	must(cb.cs.CoreV1().Namespaces().Create(context.Background(), kNamespace(ns), metav1.CreateOptions{}))(b)
	slice := createService(b, cb.cs, ns, "web", cb.ip, port)
	return startClusterController(b, cb.cp.cfg, ns, controllerOptions{}), slice
}

// waitServed polls GET host/path every millisecond until the answer
// starts with prefix, and returns when that happened.
func (cc *clusterController) waitServed(b *testing.B, host, path, prefix string) time.Time {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, body := cc.get(host, path); code == 200 && strings.HasPrefix(body, prefix) {
			return time.Now()
		}
		if time.Now().After(deadline) {
			b.Fatalf("GET %s%s never answered %q", host, path, prefix)
		}
		time.Sleep(time.Millisecond)
	}
}

// reportLatencies reports p50 and p99 of lat (milliseconds) under name.
func reportLatencies(b *testing.B, lat []time.Duration, name string) {
	slices.Sort(lat)
	b.ReportMetric(ms(percentile(lat, 50)), name+"-p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), name+"-p99-ms")
}

// BenchmarkClusterLatency measures the time from a change accepted by the
// API server (its answer to the update or create) to the first request
// that nginx serves accordingly, polling every millisecond.
func BenchmarkClusterLatency(b *testing.B) {
	cb := newClusterBench(b)

	// One EndpointSlice update per iteration, moving the Service's one
	// endpoint between two backends: the dynamic path (target: p99 under
	// 250 ms, and no reload). Back to back, the updates come faster than
	// --sync-rate-limit (20/s): its token bucket paces them. Spaced (100 ms
	// between updates, a token always ready), the figure is the pipeline's
	// own: watch, build, plan, POST to Lua.
	b.Run("EndpointSliceUpdateToTraffic", func(b *testing.B) { endpointLatency(b, cb, "bench-endpoints", 0) })
	b.Run("EndpointSliceUpdateToTrafficSpaced", func(b *testing.B) { endpointLatency(b, cb, "bench-endpoints-spaced", 100*time.Millisecond) })

	// One new Ingress (a new host) per iteration: the reload path.
	b.Run("NewIngressToTraffic", func(b *testing.B) {
		const ns = "bench-ingresses"
		cc, _ := cb.controller(b, ns, ipBackend(b, cb.ip, "b0"))
		before := cc.settle(b)
		api := cc.cs.NetworkingV1().Ingresses(ns)
		var accepted, sent []time.Duration
		i := 0
		for b.Loop() {
			i++
			host := fmt.Sprintf("new%d.example.com", i)
			t0 := time.Now()
			must(api.Create(context.Background(), kIngress(ns, fmt.Sprintf("new%d", i), host, nil, "/", "web"), metav1.CreateOptions{}))(b)
			t1 := time.Now()
			done := cc.waitServed(b, host, "/", "b0 /")
			accepted = append(accepted, done.Sub(t1))
			sent = append(sent, done.Sub(t0))
		}
		after := cc.settle(b)
		reportLatencies(b, accepted, "accepted-to-served")
		reportLatencies(b, sent, "sent-to-served")
		b.ReportMetric(float64(after.Reloads-before.Reloads)/float64(i), "reloads/op")
	})
}

// BenchmarkClusterReloads counts what bursts of API changes cost.
func BenchmarkClusterReloads(b *testing.B) {
	cb := newClusterBench(b)

	// 1,000 EndpointSlice updates, one after the other as fast as the API
	// server takes them (target: 0 reloads).
	b.Run("1000EndpointSliceUpdates", func(b *testing.B) {
		ports := []int{ipBackend(b, cb.ip, "b0"), ipBackend(b, cb.ip, "b1")}
		const ns = "bench-burst"
		cc, slice := cb.controller(b, ns, ports[0])
		must(cc.cs.NetworkingV1().Ingresses(ns).Create(context.Background(), kIngress(ns, "shop", "shop.example.com", nil, "/", "web"), metav1.CreateOptions{}))(b)
		cc.waitServed(b, "shop.example.com", "/", "b0 /")
		before := cc.settle(b)
		api := cc.cs.DiscoveryV1().EndpointSlices(ns)
		ops, current := 0, 0
		var took time.Duration
		for b.Loop() {
			ops++
			start := time.Now()
			for range 1000 {
				current = 1 - current
				setSlicePort(slice, ports[current])
				slice = must(api.Update(context.Background(), slice, metav1.UpdateOptions{}))(b)
			}
			current = 1 - current // an even count ends where it began: one more
			setSlicePort(slice, ports[current])
			slice = must(api.Update(context.Background(), slice, metav1.UpdateOptions{}))(b)
			cc.waitServed(b, "shop.example.com", "/", fmt.Sprintf("b%d /", current))
			took += time.Since(start)
		}
		after := cc.settle(b)
		b.ReportMetric(float64(after.Reloads-before.Reloads)/float64(ops), "reloads/op")
		b.ReportMetric(float64(after.Syncs-before.Syncs)/float64(ops), "syncs/op")
		b.ReportMetric(float64(after.DynamicUpdates-before.DynamicUpdates)/float64(ops), "dynamic-updates/op")
		b.ReportMetric(ms(took)/float64(ops), "ms-to-last/op")
	})

	// A rolling update of 100 Ingresses: each gets a new path (a reload on
	// its own), one after the other as fast as the API server takes them,
	// as `kubectl apply -f` of 100 objects does (target: a handful).
	b.Run("RollingUpdate100Ingresses", func(b *testing.B) {
		const ns = "bench-rolling"
		cc, _ := cb.controller(b, ns, ipBackend(b, cb.ip, "b0"))
		api := cc.cs.NetworkingV1().Ingresses(ns)
		ings := make([]*networkingv1.Ingress, 100)
		for k := range ings {
			ings[k] = must(api.Create(context.Background(), kIngress(ns, fmt.Sprintf("app%d", k), fmt.Sprintf("app%d.example.com", k), nil, "/v0", "web"), metav1.CreateOptions{}))(b)
		}
		cc.waitServed(b, "app99.example.com", "/v0", "b0 /v0")
		before := cc.settle(b)
		ops := 0
		var took time.Duration
		for b.Loop() {
			ops++
			path := fmt.Sprintf("/v%d", ops)
			start := time.Now()
			for k, ing := range ings {
				setIngress(ing, fmt.Sprintf("app%d.example.com", k), nil, path, "web")
				ings[k] = must(api.Update(context.Background(), ing, metav1.UpdateOptions{}))(b)
			}
			cc.waitServed(b, "app99.example.com", path, "b0 "+path)
			took += time.Since(start)
		}
		after := cc.settle(b)
		b.ReportMetric(float64(after.Reloads-before.Reloads)/float64(ops), "reloads/op")
		b.ReportMetric(float64(after.Syncs-before.Syncs)/float64(ops), "syncs/op")
		b.ReportMetric(ms(took)/float64(ops), "ms-to-last/op")
	})
}

// endpointLatency is one EndpointSlice update per iteration, pause after
// the previous one was served, in namespace ns.
func endpointLatency(b *testing.B, cb *clusterBench, ns string, pause time.Duration) {
	ports := []int{ipBackend(b, cb.ip, "b0"), ipBackend(b, cb.ip, "b1")}
	cc, slice := cb.controller(b, ns, ports[0])
	must(cc.cs.NetworkingV1().Ingresses(ns).Create(context.Background(), kIngress(ns, "shop", "shop.example.com", nil, "/", "web"), metav1.CreateOptions{}))(b)
	cc.waitServed(b, "shop.example.com", "/", "b0 /")
	before := cc.settle(b)
	api := cc.cs.DiscoveryV1().EndpointSlices(ns)
	var accepted, sent []time.Duration
	i := 0
	for b.Loop() {
		if pause > 0 {
			b.StopTimer()
			time.Sleep(pause)
			b.StartTimer()
		}
		i++
		next := i % 2
		setSlicePort(slice, ports[next])
		t0 := time.Now()
		slice = must(api.Update(context.Background(), slice, metav1.UpdateOptions{}))(b)
		t1 := time.Now()
		done := cc.waitServed(b, "shop.example.com", "/", fmt.Sprintf("b%d /", next))
		accepted = append(accepted, done.Sub(t1))
		sent = append(sent, done.Sub(t0))
	}
	after := cc.settle(b)
	reportLatencies(b, accepted, "accepted-to-served")
	reportLatencies(b, sent, "sent-to-served")
	b.ReportMetric(float64(after.Reloads-before.Reloads), "reloads")
}
