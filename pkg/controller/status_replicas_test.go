package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestOtherReplicas(t *testing.T) {
	pod := func(name string, labels map[string]string, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress", Name: name, Labels: labels}}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{}
			p.Finalizers = []string{"test"}
		}
		return p
	}
	ours := map[string]string{"app": "ingress"}
	cs := fake.NewClientset(
		pod("c-0", ours, false),
		pod("c-1", ours, false),
		pod("c-2", ours, true), // terminating
		pod("web", map[string]string{"app": "web"}, false),
	)
	n, err := OtherReplicas(cs, "ingress", "c-0")(context.Background())
	if err != nil || n != 1 {
		t.Errorf("other replicas %d, %v; want 1 (c-1)", n, err)
	}
	if _, err := OtherReplicas(cs, "ingress", "missing")(context.Background()); err == nil {
		t.Error("no error for a pod that does not exist")
	}
}
