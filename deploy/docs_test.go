package deploy_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// migratingDoc holds the overlays a user copies.
const migratingDoc = "../docs/migrating.md"

// remoteBase is how the docs name this directory (a kustomize remote
// target); the tests put the local base in its place.
var remoteBase = regexp.MustCompile(`github\.com/kubectl-ingress/kubectl-ingress/deploy(/[a-z/]+)?\?ref=vX\.Y\.Z`)

// docOverlays returns the kustomizations of docs/migrating.md, with the
// local base in place of the released one.
func docOverlays(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(migratingDoc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.Contains(block, "kind: Kustomization") {
			continue
		}
		base := baseRef(t)
		out = append(out, remoteBase.ReplaceAllStringFunc(block, func(m string) string {
			return base + remoteBase.FindStringSubmatch(m)[1]
		}))
	}
	return out
}

// The overlays of docs/migrating.md render; the side-by-side one gives an
// IngressClass that is the one the controller's flags serve, the webhook
// one the webhook component.
func TestMigratingOverlays(t *testing.T) {
	overlays := docOverlays(t)
	if len(overlays) != 2 {
		t.Fatalf("%s has %d kustomizations, want 2 (side by side, webhook)", migratingDoc, len(overlays))
	}
	sideBySide := renderOverlay(t, "docs side by side", overlays[0])
	class := checkClassMatchesFlags(t, sideBySide)
	if class.Name == "nginx" || class.Spec.Controller == "k8s.io/ingress-nginx" {
		t.Errorf("the side-by-side overlay keeps class %s / %s: it would serve ingress-nginx's Ingresses", class.Name, class.Spec.Controller)
	}
	webhook := renderOverlay(t, "docs webhook", overlays[1])
	var got, want []string
	for _, u := range webhook {
		got = append(got, objectKey(u))
	}
	for _, u := range renderKustomization(t, webhookDir) {
		want = append(want, objectKey(u))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the docs' webhook overlay renders %v, want %v", got, want)
	}
}

// checkClassMatchesFlags checks that the one IngressClass of objs is the
// one the Deployment's --ingress-class and --controller-class serve.
func checkClassMatchesFlags(t *testing.T, objs []*unstructured.Unstructured) *networkingv1.IngressClass {
	t.Helper()
	classes := objectsOf[networkingv1.IngressClass](t, objs, "IngressClass")
	if len(classes) != 1 {
		t.Fatalf("%d IngressClasses, want 1", len(classes))
	}
	var c *corev1.Container
	for _, d := range objectsOf[appsDeployment](t, objs, "Deployment") {
		c = &d.Spec.Template.Spec.Containers[0]
	}
	if c == nil {
		t.Fatal("no Deployment")
	}
	class := classes[0]
	if class.Name != flagValue(c.Args, "ingress-class") || class.Spec.Controller != flagValue(c.Args, "controller-class") {
		t.Errorf("IngressClass %s (controller %s) is not the one of the flags %v", class.Name, class.Spec.Controller, c.Args)
	}
	return class
}
