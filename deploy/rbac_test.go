package deploy_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ownNamespaceOnly are the resources the manifests grant in the
// controller's namespace only (the Role): the Lease and its own pods.
// Everything else the controller needs in every namespace (the
// ClusterRole): ConfigMaps too, read-only, since custom-headers,
// fastcgi-params-configmap and auth-proxy-set-headers name ConfigMaps in
// the Ingresses' namespaces (as ingress-nginx's ClusterRole grants; no
// more than the Secrets it already reads everywhere).
var ownNamespaceOnly = map[string]bool{"leases": true, "pods": true}

// grant is one (API group, resource, verb) triple.
type grant struct{ group, resource, verb string }

func (g grant) String() string {
	group := g.group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s %s/%s", g.verb, group, g.resource)
}

func expand(rules []rbacv1.PolicyRule) []grant {
	var out []grant
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, grant{g, res, v})
				}
			}
		}
	}
	return out
}

// checkRBAC makes the controller's calls as its ServiceAccount once the
// RBAC objects of base exist.
func checkRBAC(ctx context.Context, t *testing.T, admin *rest.Config, base []*unstructured.Unstructured) {
	adminClient := kubernetes.NewForConfigOrDie(admin)
	saConfig := rest.CopyConfig(admin)
	saConfig.Impersonate = serviceAccountUser("kubectl-ingress")
	sa := kubernetes.NewForConfigOrDie(saConfig)
	user := saConfig.Impersonate

	// What the manifests grant, each in its scope.
	var granted, grantedHere []grant
	for _, cr := range objectsOf[rbacv1.ClusterRole](t, base, "ClusterRole") {
		granted = append(granted, expand(cr.Rules)...)
	}
	for _, r := range objectsOf[rbacv1.Role](t, base, "Role") {
		grantedHere = append(grantedHere, expand(r.Rules)...)
	}

	t.Run("RequiredRules are granted, nothing more", func(t *testing.T) {
		required := expand(controller.RequiredRules())
		for _, g := range required {
			ns := ""
			if ownNamespaceOnly[g.resource] {
				ns = namespace
			}
			if ok, reason := allowed(ctx, t, adminClient, user, ns, g); !ok {
				t.Errorf("the controller needs %s in %s, which deploy/rbac.yaml does not grant (%s)", g, scopeName(ns), reason)
			}
		}
		// Least rights: nothing granted that the code does not use, and
		// nothing cluster-wide that is needed in one namespace.
		for _, g := range append(slices.Clone(granted), grantedHere...) {
			if !slices.Contains(required, g) {
				t.Errorf("deploy/rbac.yaml grants %s, which controller.RequiredRules does not list", g)
			}
		}
		for _, g := range granted {
			if ownNamespaceOnly[g.resource] {
				t.Errorf("the ClusterRole grants %s in every namespace; the controller needs it in its own only", g)
			}
		}
		// The checks see a missing right: the ServiceAccount may not
		// delete Ingresses, nor read Leases elsewhere.
		for _, c := range []struct {
			ns string
			g  grant
		}{
			{"", grant{"networking.k8s.io", "ingresses", "delete"}},
			{"", grant{"networking.k8s.io", "ingresses", "update"}},
			{"", grant{"", "secrets", "create"}},
			{"default", grant{"coordination.k8s.io", "leases", "get"}},
			{"default", grant{"", "configmaps", "update"}},
			{"kube-system", grant{"", "pods", "get"}},
		} {
			if ok, _ := allowed(ctx, t, adminClient, user, c.ns, c.g); ok {
				t.Errorf("the ServiceAccount may %s in %s", c.g, scopeName(c.ns))
			}
		}
	})

	t.Run("informers sync as the ServiceAccount", func(t *testing.T) {
		if !sourceSyncs(ctx, t, saConfig, 90*time.Second) {
			t.Fatal("the ClusterSource's caches did not sync as the ServiceAccount: a list or watch is forbidden (see the log)")
		}
	})

	t.Run("informers do not sync without the roles", func(t *testing.T) {
		cfg := rest.CopyConfig(admin)
		cfg.Impersonate = serviceAccountUser("nobody")
		if sourceSyncs(ctx, t, cfg, 5*time.Second) {
			t.Fatal("the caches synced for a ServiceAccount without roles: the check above proves nothing")
		}
	})

	t.Run("ingress status", func(t *testing.T) {
		class := "nginx"
		ing := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: networkingv1.IngressSpec{IngressClassName: &class, DefaultBackend: &networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
		}
		ing, err := adminClient.NetworkingV1().Ingresses("default").Create(ctx, ing, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10"}}
		if _, err := sa.NetworkingV1().Ingresses("default").UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("status update as the ServiceAccount: %v", err)
		}
		ing.Annotations = map[string]string{"x": "y"}
		if _, err := sa.NetworkingV1().Ingresses("default").Update(ctx, ing, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("an update of the Ingress itself as the ServiceAccount: %v, want Forbidden", err)
		}
	})

	t.Run("events", func(t *testing.T) {
		ectx, cancel := context.WithCancel(ctx)
		defer cancel()
		ev, err := controller.NewEvents(ectx, controller.EventsConfig{Client: sa, Host: "kubectl-ingress-controller-test"})
		if err != nil {
			t.Fatal(err)
		}
		ev.ReportProblems(ectx, []model.Problem{{
			Object: model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "web"},
			Field:  "metadata.annotations[nginx.ingress.kubernetes.io/limit-rps]", Reason: "deploy test",
		}})
		if !eventually(ctx, 30*time.Second, func() bool {
			list, err := adminClient.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			for _, e := range list.Items {
				if e.InvolvedObject.Name == "web" && e.Reason == controller.ReasonInvalidConfiguration {
					return true
				}
			}
			return false
		}) {
			t.Fatal("the ServiceAccount's Event never appeared (create forbidden?)")
		}
		// Repeats of an Event are patched onto it.
		e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.deploytest", Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{Kind: "Ingress", Namespace: "default", Name: "web"},
			Reason:         "Sync", Message: "deploy test", Type: corev1.EventTypeNormal, Count: 1}
		if _, err := sa.CoreV1().Events("default").Create(ctx, e, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create an Event: %v", err)
		}
		if _, err := sa.CoreV1().Events("default").Patch(ctx, e.Name, "application/strategic-merge-patch+json", []byte(`{"count":2}`), metav1.PatchOptions{}); err != nil {
			t.Fatalf("patch an Event: %v", err)
		}
	})

	t.Run("leader election", func(t *testing.T) {
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		lock := &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: namespace, Name: "kubectl-ingress-leader"},
			Client:     sa.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: "pod-a"},
		}
		leading := make(chan struct{})
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: time.Second,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) { close(leading) },
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { le.Run(lctx); close(done) }()
		select {
		case <-leading:
		case <-time.After(60 * time.Second):
			t.Fatal("the ServiceAccount never got the Lease (get/create forbidden?)")
		}
		cancel()
		<-done
		l, err := adminClient.CoordinationV1().Leases(namespace).Get(ctx, "kubectl-ingress-leader", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			t.Errorf("the Lease is still held by %q after the release (update forbidden?)", *l.Spec.HolderIdentity)
		}
	})

	t.Run("status addresses", func(t *testing.T) {
		checkStatusAddresses(ctx, t, adminClient, sa, base)
	})

	t.Run("own pods and nodes", func(t *testing.T) {
		if _, err := sa.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=controller"}); err != nil {
			t.Errorf("list the controller pods: %v", err)
		}
		if _, err := sa.CoreV1().Pods(namespace).Get(ctx, "no-such-pod", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get a pod of the namespace: %v, want NotFound", err)
		}
		if _, err := sa.CoreV1().Nodes().Get(ctx, "no-such-node", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get a node: %v, want NotFound", err)
		}
		if _, err := sa.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("list the pods of another namespace: %v, want Forbidden", err)
		}
	})
}

func scopeName(ns string) string {
	if ns == "" {
		return "every namespace"
	}
	return "namespace " + ns
}

// allowed asks the API server whether user may make g's call in ns ("" for
// every namespace, or a cluster-scoped kind).
func allowed(ctx context.Context, t *testing.T, admin kubernetes.Interface, user rest.ImpersonationConfig, ns string, g grant) (bool, string) {
	t.Helper()
	resource, sub, _ := strings.Cut(g.resource, "/")
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user.UserName, Groups: user.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: g.verb, Group: g.group, Resource: resource, Subresource: sub},
	}}
	got, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SubjectAccessReview %s: %v", g, err)
	}
	return got.Status.Allowed, got.Status.Reason
}

// sourceSyncs runs the controller's ClusterSource, configured as the
// Deployment's flags configure it, with cfg and reports whether every cache
// synced within timeout.
func sourceSyncs(ctx context.Context, t *testing.T, cfg *rest.Config, timeout time.Duration) bool {
	t.Helper()
	src, err := controller.NewClusterSource(controller.ClusterSourceConfig{
		Config:    cfg,
		ConfigMap: namespace + "/kubectl-ingress-controller",
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- src.Run(rctx, func() {}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ClusterSource.Run: %v", err)
		}
	}()
	wctx, wcancel := context.WithTimeout(rctx, timeout)
	defer wcancel()
	return src.WaitForSync(wctx)
}

// eventually polls cond every 200 ms until it holds or timeout passes.
func eventually(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}
