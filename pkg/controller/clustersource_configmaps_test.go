package controller_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestClusterSourceReferencedConfigMaps: a ConfigMap that an Ingress's
// custom-headers names, or the controller ConfigMap's add-headers, is in
// the snapshot (and follows its edits); an unrelated one is not.
func TestClusterSourceReferencedConfigMaps(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustNamespaces(t, cs, "ingress-nginx", "shop")
	mk := func(ns, name string, data map[string]string) {
		t.Helper()
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mk("ingress-nginx", "ingress-nginx-controller", map[string]string{"add-headers": "ingress-nginx/resp"})
	mk("ingress-nginx", "resp", map[string]string{"X-A": "1"})
	mk("shop", "hdrs", map[string]string{"X-B": "2"})
	mk("shop", "unrelated", nil)
	ing := testIngress("shop", "web", "shop.example.com", "/", "web")
	ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/custom-headers": "hdrs"}
	if _, err := cs.NetworkingV1().Ingresses("shop").Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := startClusterSource(t, controller.ClusterSourceConfig{
		Config:    controller.TuneRESTConfig(cfg, "clustersource-configmaps-test"),
		ConfigMap: "ingress-nginx/ingress-nginx-controller",
	})
	w.eventually(t, "referenced ConfigMaps", func(s render.Snapshot) bool {
		return has(s.ConfigMaps, "ingress-nginx/resp") && has(s.ConfigMaps, "shop/hdrs") && len(s.ConfigMaps) == 3
	})
	if snap := w.snapshot(t); has(snap.ConfigMaps, "shop/unrelated") {
		t.Errorf("unrelated ConfigMap in the snapshot: %v", names(snap.ConfigMaps))
	}
	cm, err := cs.CoreV1().ConfigMaps("shop").Get(ctx, "hdrs", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["X-B"] = "3"
	if _, err := cs.CoreV1().ConfigMaps("shop").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.eventually(t, "edited ConfigMap", func(s render.Snapshot) bool {
		c, ok := find(s.ConfigMaps, "shop/hdrs")
		return ok && c.Data["X-B"] == "3"
	})
}
