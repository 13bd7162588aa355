package deploy_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// fieldManager applies the objects, as `kubectl apply --server-side` would
// with its own name.
const fieldManager = "kubectl-ingress-deploy-test"

// warnings collects the API server's warnings (PodSecurity's among them).
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// applier server-side applies unstructured objects.
type applier struct {
	dyn      dynamic.Interface
	mapper   *restmapper.DeferredDiscoveryRESTMapper
	warnings *warnings
}

func newApplier(t *testing.T, admin *rest.Config) *applier {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(admin)
	cfg.WarningHandler = w
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), warnings: w}
}

// apply server-side applies u; dryRun asks the API server to run every
// admission and validation step and store nothing.
func (a *applier) apply(ctx context.Context, u *unstructured.Unstructured, dryRun bool) error {
	gvk := u.GroupVersionKind()
	m, err := a.mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		return err
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == "namespace" {
		ri = a.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	_, err = ri.Apply(ctx, u.GetName(), u, opts)
	return err
}

// The kustomization, with and without the webhook, and the overlays of
// docs/migrating.md, are accepted by a real
// API server (server-side apply, dry run: validation, defaulting and
// admission, PodSecurity "restricted" included) without a warning. Then
// the RBAC objects are applied for real and the controller's own calls are
// made as its ServiceAccount (rbac_test.go).
func TestDeployOnAPIServer(t *testing.T) {
	admin := envtesting.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := newApplier(t, admin)

	base := renderKustomization(t, baseDir)
	// A dry-run of a namespaced object needs its namespace for real.
	for _, u := range base {
		if u.GetKind() == "Namespace" {
			if err := a.apply(ctx, u, false); err != nil {
				t.Fatalf("apply %s: %v", objectKey(u), err)
			}
		}
	}
	a.warnings.take()

	sets := map[string][]*unstructured.Unstructured{baseDir: base, webhookDir: renderKustomization(t, webhookDir)}
	for i, overlay := range docOverlays(t) {
		name := fmt.Sprintf("%s overlay %d", migratingDoc, i+1)
		sets[name] = renderOverlay(t, name, overlay)
	}
	for name, objs := range sets {
		for _, u := range objs {
			if err := a.apply(ctx, u, true); err != nil {
				t.Errorf("%s: the API server refuses %s: %v", name, objectKey(u), err)
			}
			if w := a.warnings.take(); len(w) > 0 {
				t.Errorf("%s: %s: warnings: %s", name, objectKey(u), strings.Join(w, "; "))
			}
		}
	}

	// The check above sees PodSecurity: a privileged container in the
	// same namespace is warned about.
	t.Run("podsecurity is enforced", func(t *testing.T) {
		var d *unstructured.Unstructured
		for _, u := range base {
			if u.GetKind() == "Deployment" {
				d = u.DeepCopy()
			}
		}
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		c := containers[0].(map[string]any)
		c["securityContext"] = map[string]any{"privileged": true}
		_ = unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers")
		if err := a.apply(ctx, d, true); err != nil {
			t.Fatalf("dry-run of a privileged Deployment: %v", err)
		}
		if w := strings.Join(a.warnings.take(), "; "); !strings.Contains(w, "PodSecurity") {
			t.Errorf("no PodSecurity warning for a privileged container (warnings: %q): the namespace check proves nothing", w)
		}
	})

	// RBAC for real, then the controller's calls as its ServiceAccount.
	for _, u := range base {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ConfigMap", "IngressClass":
			if err := a.apply(ctx, u, false); err != nil {
				t.Fatalf("apply %s: %v", objectKey(u), err)
			}
		}
	}
	checkRBAC(ctx, t, admin, base)
}

// serviceAccount is the user the API server sees for the controller's pods.
func serviceAccountUser(name string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + name,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
}

// objectsOf returns the objects of kind converted into T.
func objectsOf[T any](t *testing.T, objs []*unstructured.Unstructured, kind string) []*T {
	t.Helper()
	var out []*T
	for _, u := range objs {
		if u.GetKind() == kind {
			v := new(T)
			find(t, []*unstructured.Unstructured{u}, kind, u.GetName(), v)
			out = append(out, v)
		}
	}
	return out
}
