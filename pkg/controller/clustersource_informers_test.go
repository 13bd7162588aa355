package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestTrimObject(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{
		Name:          "a",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Annotations: map[string]string{
			lastAppliedAnnotation:                         `{"big":"copy"}`,
			"nginx.ingress.kubernetes.io/proxy-body-size": "8m",
		},
	}}
	out, err := trimObject(ing)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*networkingv1.Ingress)
	if len(got.ManagedFields) != 0 || len(got.Annotations) != 1 || got.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] != "8m" {
		t.Errorf("trimmed %+v", got.ObjectMeta)
	}
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "a"}, ClusterIP: "10.0.0.1"}}
	if out, _ := trimObject(svc); out.(*corev1.Service).Spec.Selector != nil || out.(*corev1.Service).Spec.ClusterIP != "10.0.0.1" {
		t.Errorf("trimmed Service %+v", out.(*corev1.Service).Spec)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "a", Obj: ing}
	if out, _ := trimObject(tomb); out != any(tomb) {
		t.Errorf("a tombstone came back as %T", out)
	}
}

func TestIngressChanged(t *testing.T) {
	base := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "1", ResourceVersion: "1", Annotations: map[string]string{"k": "v"}}}
	status := base.DeepCopy()
	status.ResourceVersion = "2"
	status.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
	labels := base.DeepCopy()
	labels.Labels = map[string]string{"team": "a"}
	ann := base.DeepCopy()
	ann.Annotations["k"] = "w"
	spec := base.DeepCopy()
	spec.Spec.IngressClassName = new("nginx")
	deleting := base.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}
	for _, c := range []struct {
		name string
		cur  *networkingv1.Ingress
		want bool
	}{
		{"status only", status, false},
		{"labels only", labels, false},
		{"annotation", ann, true},
		{"spec", spec, true},
		{"deletion", deleting, true},
	} {
		if got := ingressChanged(base, c.cur); got != c.want {
			t.Errorf("%s: changed = %v, want %v", c.name, got, c.want)
		}
	}
	if !ingressChanged("not an ingress", base) {
		t.Error("unknown types count as a change")
	}
}
