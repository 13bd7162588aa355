package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
)

const liveShop = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: shop
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: http, port: 8080}]
endpoints: [{addresses: ["10.1.0.1"], conditions: {ready: true}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: shop}
spec:
  ingressClassName: nginx
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`

// TestDiffAgainstLiveCluster runs "kubectl ingress diff -f NEW" against a
// real kube-apiserver: the live objects, with the files' objects put in
// their place, as kubectl diff does.
func TestDiffAgainstLiveCluster(t *testing.T) {
	cfg := envtesting.Start(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	writeFile(t, live, liveShop)
	createLive(t, cfg, live, "shop")
	kubeconfig := writeKubeconfig(t, cfg)

	// The same objects: no change.
	code, out, errOut := runCmd(t, "", "diff", "--routing", "nginx", "-f", live, "-n", "shop", "--kubeconfig", kubeconfig)
	if code != diffExitNoChange || !strings.HasPrefix(out, "Verdict: no change") {
		t.Errorf("identical objects: exit %d, %q %s", code, out, errOut)
	}

	// One more endpoint: dynamic only.
	scaled := filepath.Join(dir, "scaled.yaml")
	writeFile(t, scaled, strings.Replace(liveShop, `endpoints: [{addresses: ["10.1.0.1"], conditions: {ready: true}}]`,
		`endpoints: [{addresses: ["10.1.0.1"], conditions: {ready: true}}, {addresses: ["10.1.0.2"]}]`, 1))
	code, out, _ = runCmd(t, "", "diff", "--routing", "nginx", "-f", scaled, "-n", "shop", "--kubeconfig", kubeconfig)
	if code != diffExitDynamic || !strings.Contains(out, "endpoints shop/web: 1 added, 0 removed") {
		t.Errorf("scaled endpoints: exit %d, %s", code, out)
	}

	// A new path in the live Ingress: reload, named.
	newPath := filepath.Join(dir, "path.yaml")
	writeFile(t, newPath, strings.Replace(liveShop, "      - {path: /, pathType: Prefix",
		"      - {path: /cart, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}\n      - {path: /, pathType: Prefix", 1))
	code, out, _ = runCmd(t, "", "diff", "--routing", "nginx", "-f", newPath, "-n", "shop", "--kubeconfig", kubeconfig, "-o", "json")
	if code != diffExitReload || !strings.Contains(out, "ingress shop/shop: path /cart added (server shop.example.com)") {
		t.Errorf("new path: exit %d, %s", code, out)
	}

	// An unreachable cluster is an error (3), not a verdict.
	bad := filepath.Join(dir, "bad-kubeconfig")
	writeFile(t, bad, strings.Replace(readFile(t, kubeconfig), cfg.Host, "https://127.0.0.1:1", 1))
	code, _, errOut = runCmd(t, "", "diff", "-f", live, "-n", "shop", "--kubeconfig", bad, "--request-timeout", "5s")
	if code != diffExitError || !strings.Contains(errOut, "listing Ingresses") {
		t.Errorf("unreachable cluster: exit %d, stderr %q", code, errOut)
	}
}

// createLive makes the namespaces on the API server of cfg, then creates
// the Services, EndpointSlices and Ingresses of the manifest file live in
// their namespaces, and returns the admin client.
func createLive(t *testing.T, cfg *rest.Config, live string, namespaces ...string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, ns := range namespaces {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := manifest.Read([]string{live}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range res.Snapshot.Services {
		if _, err := cs.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, es := range res.Snapshot.EndpointSlices {
		if _, err := cs.DiscoveryV1().EndpointSlices(es.Namespace).Create(ctx, es, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ing := range res.Snapshot.Ingresses {
		if _, err := cs.NetworkingV1().Ingresses(ing.Namespace).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
