package render

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// streamEntryFormat is the value format of a TCP or UDP services entry.
const streamEntryFormat = "namespace/service:port[:PROXY][:PROXY]"

// buildStream reads the TCP and UDP services ConfigMaps named by the
// options and the passthrough hosts. A bad entry is a Problem naming the
// ConfigMap and key and is left out; the other entries still serve.
func (b *builder) buildStream(s Snapshot) model.Stream {
	var st model.Stream
	for _, c := range []struct{ name, protocol string }{
		{b.opts.TCPServicesConfigMap, model.ProtocolTCP},
		{b.opts.UDPServicesConfigMap, model.ProtocolUDP},
	} {
		if c.name == "" {
			continue
		}
		for _, cm := range s.ConfigMaps {
			if cm.Namespace+"/"+cm.Name == c.name {
				st.Services = append(st.Services, b.streamServices(cm, c.protocol)...)
			}
		}
	}
	sort.Slice(st.Services, func(i, j int) bool {
		a, c := st.Services[i], st.Services[j]
		if a.Protocol != c.Protocol {
			return a.Protocol < c.Protocol
		}
		return a.Port < c.Port
	})
	if b.opts.EnableSSLPassthrough {
		st.Passthrough = true
		st.PassthroughHosts = b.passthroughHosts()
	}
	return st
}

// streamServices parses the entries of one services ConfigMap, sorted by
// port.
func (b *builder) streamServices(cm *corev1.ConfigMap, protocol string) []model.StreamService {
	ref := model.ObjectRef{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []model.StreamService
	for _, key := range keys {
		svc, err := b.streamService(ref, protocol, key, strings.TrimSpace(cm.Data[key]))
		if err != nil {
			b.problem(ref, annotations.ConfigField(key), "%v; entry ignored", err)
			continue
		}
		out = append(out, svc)
	}
	return out
}

// streamService parses one entry and resolves its Service. A missing
// Service or port is a Problem too, but the entry is kept: nginx listens
// and closes connections until the Service is there (no reload then).
func (b *builder) streamService(ref model.ObjectRef, protocol, key, value string) (model.StreamService, error) {
	port, err := annotations.ValuePort(key)
	if err != nil || strconv.Itoa(port) != key {
		// "09000" would be a second server on port 9000: nginx -t
		// refuses a duplicate listen.
		return model.StreamService{}, fmt.Errorf("the key must be a port number from 1 to 65535 without leading zeros, got %q", key)
	}
	if slices.Contains(b.opts.ReservedPorts, port) {
		return model.StreamService{}, fmt.Errorf("port %d is used by the controller itself", port)
	}
	fields := strings.Split(value, ":")
	if len(fields) < 2 || len(fields) > 4 {
		return model.StreamService{}, fmt.Errorf("invalid value %s: want %s", annotations.ValueQuote(value), streamEntryFormat)
	}
	ns, name, ok := strings.Cut(fields[0], "/")
	if !ok {
		return model.StreamService{}, fmt.Errorf("invalid value %s: %q is not namespace/service", annotations.ValueQuote(value), fields[0])
	}
	servicePort := fields[1]
	backend := networkingv1.IngressServiceBackend{Name: name, Port: networkingv1.ServiceBackendPort{Name: servicePort}}
	if n, err := strconv.Atoi(servicePort); err == nil {
		backend.Port = networkingv1.ServiceBackendPort{Number: int32(max(0, min(n, 65536)))}
	}
	if err := checkServiceBackend(ns, &backend); err != nil {
		return model.StreamService{}, fmt.Errorf("invalid value %s: %v", annotations.ValueQuote(value), err)
	}
	svc := model.StreamService{
		Protocol:    protocol,
		Port:        port,
		ConfigMap:   ref,
		Service:     model.ObjectRef{Kind: "Service", Namespace: ns, Name: name},
		ServicePort: servicePort,
		Endpoints:   []model.Endpoint{},
	}
	for i, f := range fields[2:] {
		switch {
		case f == "":
		case !strings.EqualFold(f, "PROXY"):
			return model.StreamService{}, fmt.Errorf("invalid value %s: %q where PROXY or nothing is expected", annotations.ValueQuote(value), f)
		case protocol != model.ProtocolTCP:
			b.problem(ref, annotations.ConfigField(key), "the PROXY protocol is for TCP services only; PROXY ignored")
		case i == 0:
			svc.ProxyProtocolDecode = true
		default:
			svc.ProxyProtocolEncode = true
		}
	}
	if why := b.streamEndpoints(&svc); why != "" {
		b.problem(ref, annotations.ConfigField(key), "%s; connections to port %d are closed", why, port)
	}
	return svc, nil
}

// streamEndpoints finds the Service port of the entry (by number or name,
// of the entry's protocol) and its ready endpoints; it returns why there
// are none when the Service or port is missing.
func (b *builder) streamEndpoints(s *model.StreamService) string {
	key := nsName{s.Service.Namespace, s.Service.Name}
	svc, ok := b.services.services[key]
	if !ok {
		return fmt.Sprintf("service %q not found", s.Service.String())
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return fmt.Sprintf("service %q is of type ExternalName, which TCP and UDP services do not support", s.Service.String())
	}
	for _, sp := range svc.Spec.Ports {
		proto := string(sp.Protocol)
		if proto == "" {
			proto = model.ProtocolTCP
		}
		if proto != s.Protocol {
			continue
		}
		if sp.Name == s.ServicePort || strconv.Itoa(int(sp.Port)) == s.ServicePort {
			s.Endpoints = b.services.endpoints(key, sp)
			return ""
		}
	}
	return fmt.Sprintf("service %q has no %s port %s", s.Service.String(), s.Protocol, s.ServicePort)
}

// passthroughHosts gives the hosts of the Ingresses with the
// ssl-passthrough annotation, as ingress-nginx does: each such host passes
// its TLS connections to the backend of its "/" path (the other paths
// still serve plain HTTP); a host without a "/" path is a Problem.
func (b *builder) passthroughHosts() []model.PassthroughHost {
	var out []model.PassthroughHost
	seen := map[string]bool{}
	for _, p := range b.ingresses {
		if !p.ann.SSLPassthrough {
			continue
		}
		for i, rule := range p.obj.Spec.Rules {
			host := rule.Host
			if host == "" || seen[host] || b.servers[host] == nil {
				continue
			}
			seen[host] = true
			backend := ""
			for _, l := range b.servers[host].server.Locations {
				if l.Path == "/" && l.PathType != model.PathExact && l.Backend != "" {
					backend = l.Backend
				}
			}
			if backend == "" {
				b.problem(p.ref, fmt.Sprintf("spec.rules[%d]", i), "ssl-passthrough needs a path \"/\" with a service backend on host %q; TLS for the host is terminated by nginx", host)
				continue
			}
			out = append(out, model.PassthroughHost{Hostname: host, Ingress: p.ref, Backend: backend})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hostname < out[j].Hostname })
	return out
}

// passthroughIgnored reports the ssl-passthrough annotations that the
// controller does not serve because --enable-ssl-passthrough is off.
func (b *builder) passthroughIgnored() {
	if b.opts.EnableSSLPassthrough {
		return
	}
	for _, p := range b.ingresses {
		if p.ann.SSLPassthrough {
			b.problem(p.ref, annotations.Field("ssl-passthrough"), "needs the controller flag --enable-ssl-passthrough; the annotation is ignored")
		}
	}
}
