package annotations

import (
	"fmt"
	"strings"
)

// upstream-vhost may name the backend of its path with the variables that
// ingress-nginx sets in each location ($service_name, $namespace,
// $service_port), as Linkerd documents:
// "$service_name.$namespace.svc.cluster.local:8084". No variable reaches
// nginx.conf: render substitutes the values of each path's backend
// (ResolveUpstreamVhost), so the Host header is a literal, quoted by the
// writer. Any other variable is refused.

// upstreamVhostVars are the variables upstream-vhost may hold, sorted.
var upstreamVhostVars = []string{"namespace", "service_name", "service_port"}

// expandUpstreamVhost replaces each allowed variable of v by its value.
// A variable is "$" and the longest run of letters, digits and "_" after
// it, as nginx reads it; any variable not in upstreamVhostVars (or a
// "${…}" form, or a lone "$") is an error.
func expandUpstreamVhost(v, service, namespace, port string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(v) && (v[j] >= 'a' && v[j] <= 'z' || v[j] >= 'A' && v[j] <= 'Z' || v[j] >= '0' && v[j] <= '9' || v[j] == '_') {
			j++
		}
		switch name := v[i+1 : j]; name {
		case "service_name":
			b.WriteString(service)
		case "namespace":
			b.WriteString(namespace)
		case "service_port":
			b.WriteString(port)
		default:
			shown := v[i:j]
			if j < len(v) && name == "" {
				shown = v[i : j+1]
			}
			return "", fmt.Errorf("holds %s: the only variables allowed are $%s", ValueQuote(shown), strings.Join(upstreamVhostVars, ", $"))
		}
		i = j - 1
	}
	return b.String(), nil
}

// valueUpstreamVhost checks an upstream-vhost: a DNS name with an optional
// port once the allowed variables are replaced by sample values.
func valueUpstreamVhost(v string) (string, error) {
	if !strings.Contains(v, "$") {
		return valueHostPort(v)
	}
	sample, err := expandUpstreamVhost(v, "service", "namespace", "80")
	if err != nil {
		return "", err
	}
	if _, err := valueHostPort(sample); err != nil {
		return "", fmt.Errorf("%v once $service_name, $namespace and $service_port are replaced", err)
	}
	return strings.ToLower(v), nil
}

// ResolveUpstreamVhost is the Host header that upstream-vhost v (as
// ParseIngress returned it) gives a path whose backend is port of Service
// service in namespace: its variables replaced by these values, as
// ingress-nginx's per-location variables hold them (the port as the
// Ingress names it: a number or a port name).
func ResolveUpstreamVhost(v, service, namespace, port string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	out, err := expandUpstreamVhost(v, service, namespace, port)
	if err != nil {
		return "" // never: ParseIngress refused it
	}
	return out
}
