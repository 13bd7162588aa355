package manifest

import "testing"

// TestReadTrimsUnread: what Read keeps of an object has no managed
// fields, no last-applied annotation and no Service selector; the rest is
// as written.
func TestReadTrimsUnread(t *testing.T) {
	const objects = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"big":"copy"}'
    team: shop
  managedFields:
  - manager: kubectl
    operation: Apply
spec:
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"big":"copy"}'
    nginx.ingress.kubernetes.io/proxy-body-size: 8m
spec:
  ingressClassName: nginx
`
	dir := writeTree(t, map[string]string{"all.yaml": objects})
	res, err := Read([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, ing := res.Snapshot.Services[0], res.Snapshot.Ingresses[0]
	if svc.Spec.Selector != nil || len(svc.ManagedFields) != 0 || len(svc.Annotations) != 1 || svc.Annotations["team"] != "shop" {
		t.Errorf("Service kept %+v, selector %v", svc.ObjectMeta, svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 {
		t.Errorf("Service ports %+v", svc.Spec.Ports)
	}
	if len(ing.Annotations) != 1 || ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] != "8m" {
		t.Errorf("Ingress annotations %v", ing.Annotations)
	}
}
