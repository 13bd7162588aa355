package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// BenchmarkClusterFirstConfig10k loads a cluster of 10,000 Ingresses from
// hack/genmanifests (with their Services, EndpointSlices, TLS Secrets and
// the ConfigMap) into a real API server, then runs the
// real binary, `kubectl-ingress controller --kubeconfig …`, and reports
// the time from its start to /readyz answering 200 (informers listed,
// config built, nginx started and Lua loaded) and the controller's
// resident memory then (VmRSS) and at its peak (VmHWM). Run:
//
//	go test ./test/e2e -run '^$' -bench BenchmarkClusterFirstConfig10k -benchtime 1x -timeout 30m
//
// KUBECTL_INGRESS_BENCH_INGRESSES changes the size.
func BenchmarkClusterFirstConfig10k(b *testing.B) {
	nginxtest.Require(b)
	n := 10000
	if s := os.Getenv("KUBECTL_INGRESS_BENCH_INGRESSES"); s != "" {
		n = must(strconv.Atoi(s))(b)
	}
	dir := b.TempDir()
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	if err := genmanifests.Write(filepath.Join(dir, "cluster"), o); err != nil {
		b.Fatalf("genmanifests: %v", err)
	}
	res := must(manifest.Read([]string{filepath.Join(dir, "cluster")}, manifest.Options{}))(b)
	bin := filepath.Join(dir, "kubectl-ingress")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-ingress/kubectl-ingress/cmd/kubectl-ingress").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}

	cp := startControlPlane(b)
	cs := must(kubernetes.NewForConfig(cp.cfg))(b)
	start := time.Now()
	objects := loadSnapshot(b, cs, res.Snapshot)
	b.Logf("created %d objects in %v", objects, time.Since(start).Round(time.Millisecond))
	kubeconfig := filepath.Join(dir, "kubeconfig")
	user := must(cp.env.ControlPlane.AddUser(envtest.User{Name: "controller", Groups: []string{"system:masters"}}, nil))(b)
	if err := os.WriteFile(kubeconfig, must(user.KubeConfig())(b), 0o600); err != nil {
		b.Fatal(err)
	}

	for b.Loop() {
		health := freePort(b)
		cmd := exec.Command(bin, "controller", "--kubeconfig", kubeconfig,
			"--nginx-prefix", filepath.Join(b.TempDir(), "nginx"),
			"--listen-address", "127.0.0.1", "--http-port", strconv.Itoa(freePort(b)), "--https-port", strconv.Itoa(freePort(b)),
			"--status-address", "127.0.0.1:"+strconv.Itoa(freePort(b)), "--health-addr", "127.0.0.1:"+strconv.Itoa(health),
			"--worker-processes", "2", "-v", "1")
		logs := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", health)
		for !answers200(ready) {
			select {
			case err := <-exited:
				b.Fatalf("the controller exited (%v) before it was ready; log:\n%s", err, logs.String())
			case <-time.After(20 * time.Millisecond):
			}
			if time.Since(start) > 10*time.Minute {
				_ = cmd.Process.Kill()
				b.Fatalf("not ready after %v; log:\n%s", time.Since(start), logs.String())
			}
		}
		firstConfig := time.Since(start)
		rss, hwm := procMemory(b, cmd.Process.Pid)
		b.ReportMetric(firstConfig.Seconds(), "s-to-first-config")
		b.ReportMetric(rss, "controller-rss-MiB")
		b.ReportMetric(hwm, "controller-peak-rss-MiB")
		b.Logf("%d Ingresses: ready in %v, RSS %.0f MiB (peak %.0f MiB)\n%s", len(res.Snapshot.Ingresses), firstConfig.Round(time.Millisecond), rss, hwm,
			grepLines(logs.String(), "Caches synced", "Applied"))
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			b.Error("the controller did not stop within a minute")
		}
	}
}

// loadSnapshot creates the namespaces and objects of s, eight at a time,
// and returns how many objects it created.
func loadSnapshot(b *testing.B, cs kubernetes.Interface, s render.Snapshot) int {
	b.Helper()
	ctx := context.Background()
	create := metav1.CreateOptions{}
	var jobs []func() error
	namespaces := map[string]bool{}
	add := func(ns string, f func() error) {
		if ns != "" {
			namespaces[ns] = true
		}
		jobs = append(jobs, f)
	}
	for _, o := range s.IngressClasses {
		add("", func() error { _, err := cs.NetworkingV1().IngressClasses().Create(ctx, o, create); return err })
	}
	for _, o := range s.ConfigMaps {
		add(o.Namespace, func() error { _, err := cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, create); return err })
	}
	for _, o := range s.Secrets {
		add(o.Namespace, func() error { _, err := cs.CoreV1().Secrets(o.Namespace).Create(ctx, o, create); return err })
	}
	for _, o := range s.Services {
		add(o.Namespace, func() error {
			o.Spec.ClusterIP, o.Spec.ClusterIPs = "", nil // allocated by this API server
			_, err := cs.CoreV1().Services(o.Namespace).Create(ctx, o, create)
			return err
		})
	}
	for _, o := range s.EndpointSlices {
		add(o.Namespace, func() error {
			_, err := cs.DiscoveryV1().EndpointSlices(o.Namespace).Create(ctx, o, create)
			return err
		})
	}
	for _, o := range s.Ingresses {
		add(o.Namespace, func() error { _, err := cs.NetworkingV1().Ingresses(o.Namespace).Create(ctx, o, create); return err })
	}
	for ns := range namespaces {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, create); err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
	}
	work := make(chan func() error)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 8 {
		wg.Go(func() {
			for job := range work {
				if err := job(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return len(jobs)
}

func answers200(url string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// procMemory returns VmRSS and VmHWM of pid in MiB.
func procMemory(b *testing.B, pid int) (rss, hwm float64) {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}
