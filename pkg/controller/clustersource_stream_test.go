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

// TestClusterSourceStreamConfigMaps: the TCP and UDP services ConfigMaps
// are watched by name (another ConfigMap beside them is not), and an
// update of an entry reaches the snapshot.
func TestClusterSourceStreamConfigMaps(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustNamespaces(t, cs, "ingress-nginx")
	cms := cs.CoreV1().ConfigMaps("ingress-nginx")
	for _, name := range []string{"tcp-services", "udp-services", "unrelated"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"9000": "default/db:5432"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w := startClusterSource(t, controller.ClusterSourceConfig{
		Config:           controller.TuneRESTConfig(cfg, "clustersource-stream-test"),
		StreamConfigMaps: []string{"ingress-nginx/tcp-services", "ingress-nginx/udp-services", ""},
	})
	snap := w.snapshot(t)
	if !has(snap.ConfigMaps, "ingress-nginx/tcp-services") || !has(snap.ConfigMaps, "ingress-nginx/udp-services") || has(snap.ConfigMaps, "ingress-nginx/unrelated") || len(snap.ConfigMaps) != 2 {
		t.Errorf("first view ConfigMaps %v, want the tcp and udp services ones", names(snap.ConfigMaps))
	}
	cm, err := cms.Get(ctx, "tcp-services", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["9000"] = "default/db:6432"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.eventually(t, "tcp-services entry updated", func(s render.Snapshot) bool {
		c, ok := find(s.ConfigMaps, "ingress-nginx/tcp-services")
		return ok && c.Data["9000"] == "default/db:6432"
	})
	if _, err := controller.NewClusterSource(controller.ClusterSourceConfig{Config: cfg, StreamConfigMaps: []string{"no-namespace"}}); err == nil {
		t.Error("a services ConfigMap without namespace was accepted")
	}
}
