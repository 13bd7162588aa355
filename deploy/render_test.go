package deploy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The kustomizations the tests render: the base, and the base with the
// webhook component through an overlay as a user writes it (made in a
// temporary directory: kustomize refuses an overlay inside its base).
const (
	baseDir    = "."
	webhookDir = "overlay with components/webhook"
)

// webhookOverlay is the kustomization of webhookDir; %s is the base.
const webhookOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- %[1]s
components:
- %[1]s/components/webhook
`

// namespace is where the base puts the controller.
const namespace = "kubectl-ingress"

// renderKustomization runs kustomize on dir as `kubectl kustomize dir` does
// and returns the objects in their order. webhookDir is an overlay.
func renderKustomization(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	if dir == webhookDir {
		return renderOverlay(t, dir, fmt.Sprintf(webhookOverlay, baseRef(t)))
	}
	return kustomize(t, dir, dir)
}

// baseRef is the base as an overlay in a temporary directory names it
// (kustomize takes no absolute path).
func baseRef(t *testing.T) string {
	t.Helper()
	base, err := filepath.Abs(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(os.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	return "../" + filepath.ToSlash(rel)
}

// renderOverlay renders the kustomization text written in a new temporary
// directory (one level under os.TempDir, where baseRef points from).
func renderOverlay(t *testing.T, name, kustomization string) []*unstructured.Unstructured {
	t.Helper()
	dir, err := os.MkdirTemp("", "deploy-overlay-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	return kustomize(t, name, dir)
}

func kustomize(t *testing.T, name, path string) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), path)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", name, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range m.Resources() {
		// Through JSON: kyaml's maps hold int where apimachinery wants int64.
		data, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", name, r.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Fatalf("kustomize build %s: %s: %v", name, r.CurId(), err)
		}
		objs = append(objs, u)
	}
	return objs
}

// objectKey names an object as "Kind namespace/name" (or "Kind name").
func objectKey(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + " " + u.GetName()
	}
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// find returns the one object of kind and name, converted into out.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string, out any) {
	t.Helper()
	for _, u := range objs {
		if u.GetKind() == kind && u.GetName() == name {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
				t.Fatalf("%s: %v", objectKey(u), err)
			}
			return
		}
	}
	t.Fatalf("the kustomization has no %s %s", kind, name)
}

// The base has exactly the objects the issue asks for, namespaced ones in
// the controller's namespace.
func TestKustomizationObjects(t *testing.T) {
	for dir, extra := range map[string][]string{
		baseDir:    nil,
		webhookDir: {"ValidatingWebhookConfiguration kubectl-ingress-admission", "Service kubectl-ingress/kubectl-ingress-controller-admission"},
	} {
		var got []string
		for _, u := range renderKustomization(t, dir) {
			got = append(got, objectKey(u))
			clusterScoped := map[string]bool{"Namespace": true, "ClusterRole": true, "ClusterRoleBinding": true, "IngressClass": true, "ValidatingWebhookConfiguration": true}
			if !clusterScoped[u.GetKind()] && u.GetNamespace() != namespace {
				t.Errorf("%s: %s is not in namespace %s", dir, objectKey(u), namespace)
			}
			if u.GetLabels()["app.kubernetes.io/name"] != "kubectl-ingress" {
				t.Errorf("%s: %s lacks the label app.kubernetes.io/name=kubectl-ingress", dir, objectKey(u))
			}
		}
		want := append([]string{
			"Namespace kubectl-ingress",
			"ServiceAccount kubectl-ingress/kubectl-ingress",
			"ClusterRole kubectl-ingress",
			"ClusterRoleBinding kubectl-ingress",
			"Role kubectl-ingress/kubectl-ingress",
			"RoleBinding kubectl-ingress/kubectl-ingress",
			"ConfigMap kubectl-ingress/kubectl-ingress-controller",
			"Deployment kubectl-ingress/kubectl-ingress-controller",
			"PodDisruptionBudget kubectl-ingress/kubectl-ingress-controller",
			"Service kubectl-ingress/kubectl-ingress-controller",
			"Service kubectl-ingress/kubectl-ingress-controller-metrics",
			"IngressClass nginx",
		}, extra...)
		sort.Strings(got)
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s renders\n  %s\nwant\n  %s", dir, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}
