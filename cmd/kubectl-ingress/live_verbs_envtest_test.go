package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// lint and ingresses without -f read the cluster as kubectl reads it: the
// context's namespace, -n, -A; and the controller's ConfigMap from its own
// namespace.
func TestLintAndIngressesReadTheCluster(t *testing.T) {
	cfg := envtesting.Start(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.yaml")
	badBlog := strings.Replace(liveBlog, "metadata: {name: blog, namespace: blog}\nspec:\n  ingressClassName",
		"metadata:\n  name: blog\n  namespace: blog\n  annotations: {nginx.ingress.kubernetes.io/proxy-body-size: lots}\nspec:\n  ingressClassName", 1)
	if badBlog == liveBlog {
		t.Fatal("the blog Ingress did not get its annotation")
	}
	writeFile(t, live, liveShop+"---\n"+badBlog)
	kubeconfig := createShopAndBlog(t, cfg, live)
	blogProblem := "ingress blog/blog: metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]: "

	t.Run("lint in the context's namespace", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "lint", "--kubeconfig", kubeconfig)
		want := "read from the cluster, namespace shop, ConfigMap ingress-nginx/ingress-nginx-controller: 1 ConfigMap, 1 EndpointSlice, 1 Ingress, "
		if code != 0 || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "; 0 problem(s)\n") {
			t.Errorf("exit %d, stdout %q (want it to start %q), stderr %s", code, out, want, errOut)
		}
	})
	t.Run("lint -n", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "lint", "--kubeconfig", kubeconfig, "-n", "blog")
		if code != exitVerdict || !strings.HasPrefix(out, blogProblem) || !strings.Contains(out, "read from the cluster, namespace blog, ") {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
	})
	t.Run("lint -A -o json", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "lint", "--kubeconfig", kubeconfig, "-A", "-o", "json")
		var problems []renderedProblem
		if err := json.Unmarshal([]byte(out), &problems); err != nil {
			t.Fatalf("stdout is not a JSON array: %v\n%s", err, out)
		}
		if code != exitVerdict || len(problems) != 1 || problems[0].Namespace != "blog" || problems[0].Name != "blog" ||
			!strings.Contains(errOut, "read from the cluster, every namespace: ") {
			t.Errorf("exit %d, problems %+v, stderr %s", code, problems, errOut)
		}
	})
	t.Run("ingresses in the context's namespace", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "ingresses", "--kubeconfig", kubeconfig, "--no-headers")
		fields := strings.Fields(out)
		if code != 0 || len(fields) == 0 || !strings.Contains(out, "shop.example.com") || strings.Contains(out, "blog.example.com") {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
		if fields[len(fields)-1] != "1" {
			t.Errorf("shop's endpoints: %q, want 1", out)
		}
	})
	t.Run("ingresses -A", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "ingresses", "--kubeconfig", kubeconfig, "-A", "-o", "name")
		if code != 0 || out != "ingress.networking.k8s.io/blog\ningress.networking.k8s.io/shop\n" || !strings.Contains(errOut, blogProblem) {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
	})
	t.Run("-A with -f", func(t *testing.T) {
		code, out, errOut := runCmd(t, "", "ingresses", "-f", live, "-A")
		if code != exitFailure || out != "" || !strings.Contains(errOut, "-A reads the cluster: give it without -f") {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
	})
	t.Run("no kubeconfig", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("KUBECONFIG", filepath.Join(home, "none"))
		t.Setenv("KUBERNETES_SERVICE_HOST", "")
		code, out, errOut := runCmd(t, "", "lint")
		if code != exitFailure || out != "" || !strings.Contains(errOut, "lint reads the manifests of -f FILENAME, or without -f a cluster: no kubeconfig") {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
	})
}
