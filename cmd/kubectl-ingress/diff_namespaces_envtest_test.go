package main

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

const liveBlog = `apiVersion: v1
kind: Service
metadata: {name: blog, namespace: blog}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: blog, namespace: blog}
spec:
  ingressClassName: nginx
  rules:
  - host: blog.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: blog, port: {name: http}}}}
`

// Live diff reads namespaces as kubectl does: the context's namespace for
// objects that name none, every namespace the files name, and the
// controller's ConfigMap from its own namespace.
func TestDiffLiveNamespaces(t *testing.T) {
	cfg := envtesting.Start(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	writeFile(t, live, liveShop+"---\n"+liveBlog)
	kubeconfig := createShopAndBlog(t, cfg, live)

	// The shop's objects without a namespace (the context's) and the blog's
	// with theirs: the same as the live ones, so no change. Had the context
	// been ignored, shop's would be new objects in default; had the blog's
	// namespace not been read, its Ingress would be new; had the ConfigMap
	// not been read, it would be reported absent.
	files := filepath.Join(dir, "files.yaml")
	writeFile(t, files, strings.NewReplacer(", namespace: shop", "", "\n  namespace: shop", "").Replace(liveShop)+"---\n"+liveBlog)
	if strings.Contains(readFile(t, files), "namespace: shop") {
		t.Fatal("the shop's objects still name their namespace")
	}
	code, out, errOut := runCmd(t, "", "diff", "--routing", "nginx", "-f", files, "--kubeconfig", kubeconfig, "--configmap", "ingress-nginx/ingress-nginx-controller")
	if code != diffExitNoChange || !strings.HasPrefix(out, "Verdict: no change") || strings.Contains(out, "absent") {
		t.Errorf("namespaced context: exit %d, %q\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "live: namespaces blog, shop, ConfigMap ingress-nginx/ingress-nginx-controller") {
		t.Errorf("stderr does not say what was read: %q", errOut)
	}

	// -n wins over the context: the shop's objects are new in default.
	code, out, _ = runCmd(t, "", "diff", "--routing", "nginx", "-f", files, "--kubeconfig", kubeconfig, "-n", "default")
	if code != diffExitReload || !strings.Contains(out, "default/shop") {
		t.Errorf("-n default: exit %d, %s", code, out)
	}
}

// No kubeconfig: an error, never client-go's fallback to localhost:8080.
func TestDiffLiveWithoutKubeconfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "none"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	code, out, errOut := runCmd(t, "", "diff", "-f", "../../examples")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "no kubeconfig") || strings.Contains(errOut, "8080: connect") {
		t.Errorf("no kubeconfig: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// createShopAndBlog creates the objects of live in namespaces shop and
// blog, the controller's ConfigMap in ingress-nginx, and returns a
// kubeconfig whose context's namespace is shop (kubens shop).
func createShopAndBlog(t *testing.T, cfg *rest.Config, live string) string {
	t.Helper()
	cs := createLive(t, cfg, live, "shop", "blog", "ingress-nginx")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller", Namespace: "ingress-nginx"}, Data: map[string]string{"proxy-body-size": "8m"}}
	if _, err := cs.CoreV1().ConfigMaps("ingress-nginx").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := writeKubeconfig(t, cfg)
	kc, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kc.Contexts[kc.CurrentContext].Namespace = "shop"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}
