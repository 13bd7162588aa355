package manifest

import "testing"

// TestReadTrimsUnread: what Read keeps of an object has no managed
// fields, no last-applied annotation, no Service selector and no
// endpoint's Pod, node, zone or hints; the rest is as written.
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
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  namespace: shop
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: http, port: 8080}]
endpoints:
- addresses: [10.0.0.1]
  conditions: {ready: true}
  hostname: web-0
  nodeName: node-1
  zone: zone-a
  targetRef: {kind: Pod, namespace: shop, name: web-0, uid: 0b3c5e1e-0000-4000-8000-000000000001}
  hints: {forZones: [{name: zone-a}]}
  deprecatedTopology: {topology.kubernetes.io/zone: zone-a}
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
	es := res.Snapshot.EndpointSlices[0]
	ep := es.Endpoints[0]
	if ep.TargetRef != nil || ep.NodeName != nil || ep.Zone != nil || ep.Hints != nil || ep.DeprecatedTopology != nil {
		t.Errorf("endpoint kept %+v", ep)
	}
	if len(ep.Addresses) != 1 || ep.Addresses[0] != "10.0.0.1" || ep.Conditions.Ready == nil || !*ep.Conditions.Ready || ep.Hostname == nil || *ep.Hostname != "web-0" {
		t.Errorf("endpoint lost what render reads: %+v", ep)
	}
	if es.Labels["kubernetes.io/service-name"] != "web" || len(es.Ports) != 1 {
		t.Errorf("EndpointSlice %+v", es)
	}
}
