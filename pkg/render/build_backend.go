package render

import (
	"fmt"
	"net"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// nsName keys namespaced objects.
type nsName struct{ namespace, name string }

// serviceIndex finds Services and their EndpointSlices.
type serviceIndex struct {
	services map[nsName]*corev1.Service
	slices   map[nsName][]*discoveryv1.EndpointSlice // by Service
}

func newServiceIndex(s Snapshot) serviceIndex {
	idx := serviceIndex{services: map[nsName]*corev1.Service{}, slices: map[nsName][]*discoveryv1.EndpointSlice{}}
	for _, svc := range s.Services {
		idx.services[nsName{svc.Namespace, svc.Name}] = svc
	}
	for _, es := range s.EndpointSlices {
		svc := es.Labels[discoveryv1.LabelServiceName]
		if svc == "" {
			continue
		}
		k := nsName{es.Namespace, svc}
		idx.slices[k] = append(idx.slices[k], es)
	}
	return idx
}

// backendName is the ingress-nginx upstream name: namespace-service-port.
func backendName(namespace, service, port string) string {
	return namespace + "-" + service + "-" + port
}

// servicePortString gives the port of an Ingress backend as written: the
// number, or the name.
func servicePortString(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(int(p.Number))
}

// resolve builds the backend for a Service port and the reason it has no
// endpoints, if the Service or its port does not exist ("" when fine).
func (idx serviceIndex) resolve(namespace, service string, port networkingv1.ServiceBackendPort) (model.Backend, string) {
	portStr := servicePortString(port)
	b := model.Backend{
		Name:    backendName(namespace, service, portStr),
		Service: model.ObjectRef{Kind: "Service", Namespace: namespace, Name: service},
		Port:    portStr,
	}
	svc, ok := idx.services[nsName{namespace, service}]
	if !ok {
		return b, fmt.Sprintf("service %q not found", namespace+"/"+service)
	}
	sp, found := findServicePort(svc, port)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		addr, err := checkExternalName(svc.Spec.ExternalName)
		if err != nil {
			return b, fmt.Sprintf("service %q: %v", namespace+"/"+service, err)
		}
		b.ExternalName = svc.Spec.ExternalName
		n := int(port.Number)
		if found {
			n = int(sp.Port)
			if sp.TargetPort.IntValue() > 0 {
				n = sp.TargetPort.IntValue()
			}
		} else if port.Name != "" {
			return b, fmt.Sprintf("service %q has no port named %q", namespace+"/"+service, port.Name)
		}
		b.Endpoints = []model.Endpoint{{Address: addr, Port: n}}
		return b, ""
	}
	if !found {
		return b, fmt.Sprintf("service %q has no port %s", namespace+"/"+service, describePort(port))
	}
	b.Endpoints = idx.endpoints(nsName{namespace, service}, sp)
	return b, ""
}

// clusterEndpoint is the one endpoint of a backend with service-upstream:
// the Service's ClusterIP and port, as ingress-nginx takes them; the
// reason when the Service has no ClusterIP (headless, or a manifest
// without one).
func (idx serviceIndex) clusterEndpoint(namespace, service string, port networkingv1.ServiceBackendPort) (model.Endpoint, string) {
	svc, ok := idx.services[nsName{namespace, service}]
	if !ok {
		return model.Endpoint{}, fmt.Sprintf("service %q not found", namespace+"/"+service)
	}
	sp, found := findServicePort(svc, port)
	if !found {
		return model.Endpoint{}, fmt.Sprintf("service %q has no port %s", namespace+"/"+service, describePort(port))
	}
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone {
		return model.Endpoint{}, fmt.Sprintf("service %q has no ClusterIP", namespace+"/"+service)
	}
	if net.ParseIP(ip) == nil {
		return model.Endpoint{}, fmt.Sprintf("service %q has ClusterIP %q, which is not an IP address", namespace+"/"+service, ip)
	}
	return model.Endpoint{Address: ip, Port: int(sp.Port)}, ""
}

func describePort(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return fmt.Sprintf("named %q", p.Name)
	}
	return strconv.Itoa(int(p.Number))
}

func findServicePort(svc *corev1.Service, port networkingv1.ServiceBackendPort) (corev1.ServicePort, bool) {
	for _, sp := range svc.Spec.Ports {
		if (port.Name != "" && sp.Name == port.Name) || (port.Name == "" && sp.Port == port.Number) {
			return sp, true
		}
	}
	return corev1.ServicePort{}, false
}

// endpoints collects the ready, serving, not terminating addresses of the
// Service's EndpointSlices on the port that matches sp: the slice port
// carries the Service port's name, or (unnamed) its numeric targetPort.
func (idx serviceIndex) endpoints(svc nsName, sp corev1.ServicePort) []model.Endpoint {
	seen := map[model.Endpoint]bool{}
	out := []model.Endpoint{}
	for _, es := range idx.slices[svc] {
		if es.AddressType == discoveryv1.AddressTypeFQDN {
			continue
		}
		port, ok := slicePort(es, sp)
		if !ok {
			continue
		}
		for _, ep := range es.Endpoints {
			if !endpointUsable(ep.Conditions) {
				continue
			}
			for _, addr := range ep.Addresses {
				e := model.Endpoint{Address: addr, Port: port}
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Address != out[j].Address {
			return out[i].Address < out[j].Address
		}
		return out[i].Port < out[j].Port
	})
	return out
}

func slicePort(es *discoveryv1.EndpointSlice, sp corev1.ServicePort) (int, bool) {
	for _, p := range es.Ports {
		if p.Port == nil {
			continue
		}
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name == sp.Name {
			return int(*p.Port), true
		}
	}
	if t := sp.TargetPort.IntValue(); t > 0 {
		for _, p := range es.Ports {
			if p.Port != nil && int(*p.Port) == t {
				return t, true
			}
		}
	}
	return 0, false
}

// endpointUsable: ready (unknown counts as ready, as the API says), serving
// (unknown: as ready) and not terminating.
func endpointUsable(c discoveryv1.EndpointConditions) bool {
	ready := c.Ready == nil || *c.Ready
	serving := ready
	if c.Serving != nil {
		serving = *c.Serving
	}
	terminating := c.Terminating != nil && *c.Terminating
	return ready && serving && !terminating
}
