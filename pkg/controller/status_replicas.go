package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// OtherReplicas returns a function that counts the controller's other
// pods: those in namespace with the labels of podName, not being deleted.
// StatusDuties uses it as ingress-nginx does: a leader that shuts down
// while other replicas remain (a rolling update) leaves the status to the
// next leader instead of clearing it, so that the Ingresses' addresses
// (and the DNS records made from them) do not flap; when the whole
// Deployment goes away, every pod is being deleted and the last leader
// clears.
func OtherReplicas(client kubernetes.Interface, namespace, podName string) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		pods := client.CoreV1().Pods(namespace)
		self, err := pods.Get(ctx, podName, metav1.GetOptions{})
		if err != nil {
			return 0, fmt.Errorf("this pod %s/%s: %w", namespace, podName, err)
		}
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(self.Labels).String()})
		if err != nil {
			return 0, fmt.Errorf("the controller's pods: %w", err)
		}
		n := 0
		for _, p := range list.Items {
			if p.Name != podName && p.DeletionTimestamp == nil {
				n++
			}
		}
		return n, nil
	}
}
