package controller

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// RequiredRules are the RBAC rules the controller needs in a cluster, as
// data: the deploy manifests' ClusterRole and Role must cover them (a test
// of deploy/ checks it). Rules for the pod's own namespace only (the
// Lease) are marked by NamespacedRule; everything else is cluster-wide
// when --watch-namespace is empty.
func RequiredRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// The informers of the ClusterSource.
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses", "ingressclasses"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"services", "secrets", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
		// The Ingress status writer (the leader).
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses/status"}, Verbs: []string{"update"}},
		// Status addresses: --publish-service reads its Service (above);
		// without it the nodes of the controller's pods.
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
		// Events on Ingresses and on the controller pod (core/v1 Events).
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		// Leader election, in the pod's namespace.
		NamespacedRule(),
	}
}

// NamespacedRule is the rule the controller needs in its own namespace
// only: the leader election Lease (--election-id).
func NamespacedRule() rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}}
}
