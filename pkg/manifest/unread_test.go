package manifest

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Ingresses of the API versions render does not read are counted as
// skipped and named in Snapshot.UnreadIngresses, so that render can report
// each; other kinds are only counted.
func TestReadNamesUnreadIngresses(t *testing.T) {
	dir := writeTree(t, map[string]string{"old.yaml": `apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: ext, namespace: shop}
spec:
  backend: {serviceName: web, servicePort: 80}
---
apiVersion: networking.k8s.io/v1beta1
kind: Ingress
metadata: {name: beta}
spec: {}
---
apiVersion: v1
kind: List
items:
- apiVersion: extensions/v1beta1
  kind: Ingress
  metadata: {name: in-list, namespace: team}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
`})
	res, err := Read([]string{filepath.Join(dir, "old.yaml")}, Options{DefaultNamespace: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	want := []render.UnreadIngress{
		{APIVersion: "extensions/v1beta1", Namespace: "shop", Name: "ext"},
		{APIVersion: "networking.k8s.io/v1beta1", Namespace: "dev", Name: "beta"},
		{APIVersion: "extensions/v1beta1", Namespace: "team", Name: "in-list"},
	}
	if got := res.Snapshot.UnreadIngresses; !reflect.DeepEqual(got, want) {
		t.Errorf("UnreadIngresses\n got %+v\nwant %+v", got, want)
	}
	if res.Skipped["extensions/v1beta1/Ingress"] != 2 || res.Skipped["apps/v1/Deployment"] != 1 {
		t.Errorf("Skipped %v", res.Skipped)
	}
}
