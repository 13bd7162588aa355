package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
)

// BenchmarkQuarantine measures what a culprit costs the other tenants:
// the time from an Ingress that nginx -t refuses (nginxrefuses.Pick's input,
// the controllers writing with the seam on)
// being written (files) or created (API) to another tenant's new host,
// written right after it, being served (polling every millisecond). The
// controller finds the culprit (nginx -t, the line mapped to it), leaves
// it out and loads the rest in the same sync. NewHost is the same without
// a culprit: the normal latency of a new host. Each culprit is deleted
// after its iteration. Run:
//
//	go test ./test/e2e -run '^$' -bench BenchmarkQuarantine -benchtime 20x
func BenchmarkQuarantine(b *testing.B) {
	in := nginxrefuses.Pick(b) // skips without nginx
	b.Run("Files", func(b *testing.B) {
		ports := benchBackends(b, 1)
		fc := startFilesControllerWith(b, map[string]string{
			"class.yaml": benchClass,
			"web.yaml":   serviceYAML("web", ports[0]),
			"shop.yaml":  filesIngress("shop", "shop.example.com", nil, "/", "web"),
		}, controllerOptions{seam: true})
		fc.eventuallyServes(b, 10*time.Second, "shop.example.com", "/", 200, "b0 /")
		benchCulpritThenNewHost(b, &fc.runningController, quarantineTenants{
			addCulprit: func(b *testing.B, name, host string) {
				fc.write(b, name+".yaml", in.YAML("e2e", name, host, "web", "2026-02-01T00:00:00Z"))
			},
			removeCulprit: func(b *testing.B, name string) { fc.remove(b, name+".yaml") },
			addHost: func(b *testing.B, name, host string) {
				fc.write(b, name+".yaml", filesIngress(name, host, nil, "/", "web"))
			},
		})
	})
	b.Run("Cluster", func(b *testing.B) {
		cb := newClusterBench(b)
		const ns = "bench-quarantine"
		must(cb.cs.CoreV1().Namespaces().Create(context.Background(), kNamespace(ns), metav1.CreateOptions{}))(b)
		createService(b, cb.cs, ns, "web", cb.ip, ipBackend(b, cb.ip, "b0"))
		cc := startClusterController(b, cb.cp.cfg, ns, controllerOptions{seam: true})
		api := cc.cs.NetworkingV1().Ingresses(ns)
		benchCulpritThenNewHost(b, &cc.runningController, quarantineTenants{
			addCulprit: func(b *testing.B, name, host string) {
				must(api.Create(context.Background(), in.Ingress(ns, name, host, "web"), metav1.CreateOptions{}))(b)
			},
			removeCulprit: func(b *testing.B, name string) {
				noErr(b, api.Delete(context.Background(), name, metav1.DeleteOptions{}))
			},
			addHost: func(b *testing.B, name, host string) {
				must(api.Create(context.Background(), kIngress(ns, name, host, nil, "/", "web"), metav1.CreateOptions{}))(b)
			},
		})
	})
}

// quarantineTenants are how BenchmarkQuarantine changes the objects of one
// source: an Ingress named name for host, to Service web.
type quarantineTenants struct {
	addCulprit    func(b *testing.B, name, host string)
	removeCulprit func(b *testing.B, name string)
	addHost       func(b *testing.B, name, host string)
}

// benchCulpritThenNewHost runs NewHost and CulpritThenNewHost on the
// controller rc, reporting the latencies until the new host is served.
func benchCulpritThenNewHost(b *testing.B, rc *runningController, tenants quarantineTenants) {
	for _, culprit := range []bool{false, true} {
		name := map[bool]string{false: "NewHost", true: "CulpritThenNewHost"}[culprit]
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				tag := map[bool]string{false: "plain", true: "after"}[culprit]
				host := fmt.Sprintf("new-%d.%s.example.com", i, tag)
				bad := fmt.Sprintf("bad-%d", i)
				start := time.Now()
				if culprit {
					tenants.addCulprit(b, bad, bad+".example.com")
				}
				tenants.addHost(b, fmt.Sprintf("new-%s-%d", tag, i), host)
				lat = append(lat, waitServedSince(b, rc, start, host))
				if culprit {
					tenants.removeCulprit(b, bad)
					waitFor(b, 10*time.Second, "the culprit gone", func() bool { return rc.c.Stats().Quarantined == 0 })
				}
				rc.settle(b)
			}
			reportLatencies(b, lat, "to-served")
		})
	}
}

// waitServedSince polls GET host/ every millisecond until it answers 200
// and returns the time since start.
func waitServedSince(b *testing.B, rc *runningController, start time.Time, host string) time.Duration {
	b.Helper()
	for {
		if code, _ := rc.get(host, "/"); code == 200 {
			return time.Since(start)
		}
		if time.Since(start) > 60*time.Second {
			b.Fatalf("%s not served after 60 s", host)
		}
		time.Sleep(time.Millisecond)
	}
}
