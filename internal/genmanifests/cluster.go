package genmanifests

import "fmt"

const (
	className  = "nginx"
	controller = "k8s.io/ingress-nginx"
)

// generate builds the documents of every kind. The order of the
// pseudo-random draws is part of the output: per Ingress, named port or
// number, the count of extra paths and their types, the annotation, TLS.
func generate(o Options) (map[string][]any, error) {
	rnd := newPyRandom(o.Seed)
	change := o.change()
	docs := map[string][]any{}
	docs["ingressclass"] = []any{obj{
		{"apiVersion", "networking.k8s.io/v1"}, {"kind", "IngressClass"},
		{"metadata", meta(className, "", field{"annotations", obj{{"ingressclass.kubernetes.io/is-default-class", "true"}}})},
		{"spec", obj{{"controller", controller}}},
	}}
	docs["configmap"] = []any{obj{
		{"apiVersion", "v1"}, {"kind", "ConfigMap"},
		{"metadata", meta("ingress-nginx-controller", "ingress-nginx")},
		{"data", obj{{"proxy-body-size", "8m"}, {"use-gzip", "true"}, {"ssl-redirect", "true"}, {"proxy-read-timeout", "60"}}},
	}}
	crt, key, err := certPair("a")
	if err != nil {
		return nil, err
	}
	crt2, key2 := crt, key
	if change == ChangeCert {
		if crt2, key2, err = certPair("b"); err != nil {
			return nil, err
		}
	}
	namespaces := make([]string, o.Namespaces)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("team-%02d", i)
	}
	for _, ns := range namespaces {
		c, k := crt, key
		if ns == namespaces[0] {
			c, k = crt2, key2
		}
		docs["secret"] = append(docs["secret"], obj{
			{"apiVersion", "v1"}, {"kind", "Secret"}, {"type", "kubernetes.io/tls"},
			{"metadata", meta("wildcard-tls", ns)},
			{"data", obj{{"tls.crt", c}, {"tls.key", k}}},
		})
	}
	ip := 0
	for i := range o.Ingresses {
		ns := namespaces[i%o.Namespaces]
		app := fmt.Sprintf("app-%05d", i)
		named := rnd.random() < 0.5
		port := obj{{"name", "http"}, {"port", 80}, {"targetPort", 8080}, {"protocol", "TCP"}}
		docs["service"] = append(docs["service"], obj{
			{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", meta(app, ns)},
			{"spec", obj{{"selector", obj{{"app", app}}}, {"ports", []any{port}}, {"type", "ClusterIP"}}},
		})
		endpoints := make([]any, 0, o.Endpoints)
		for range o.Endpoints {
			ip++
			endpoints = append(endpoints, endpoint(fmt.Sprintf("10.%d.%d.%d", ip>>16&255, ip>>8&255, ip&255)))
		}
		if change == ChangeEndpoints && i%10 == 0 {
			// From a separate range, so that no other slice's addresses move.
			moved := endpoint(fmt.Sprintf("172.16.%d.%d", i>>8&255, i&255))
			if len(endpoints) > 0 {
				endpoints = endpoints[1:]
			}
			endpoints = append(append([]any{}, endpoints...), moved)
		}
		docs["endpointslice"] = append(docs["endpointslice"], obj{
			{"apiVersion", "discovery.k8s.io/v1"}, {"kind", "EndpointSlice"},
			{"metadata", meta(app+"-abcde", ns, field{"labels", obj{{"kubernetes.io/service-name", app}}})},
			{"addressType", "IPv4"},
			{"ports", []any{obj{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}}},
			{"endpoints", endpoints},
		})
		host := fmt.Sprintf("%s-%s.example.com", app, ns)
		servicePort := obj{{"number", 80}}
		if named {
			servicePort = obj{{"name", "http"}}
		}
		backend := obj{{"service", obj{{"name", app}, {"port", servicePort}}}}
		paths := []any{obj{{"path", "/"}, {"pathType", "Prefix"}, {"backend", backend}}}
		for p := range rnd.randint(0, 3) {
			kind := rnd.choice([]string{"Prefix", "Exact", "ImplementationSpecific"})
			paths = append(paths, obj{{"path", fmt.Sprintf("/api/v%d", p+1)}, {"pathType", kind}, {"backend", backend}})
		}
		if change == ChangePath && i == o.Ingresses/2 {
			paths = append(paths, obj{{"path", "/added"}, {"pathType", "Prefix"}, {"backend", backend}})
		}
		ann := annotations(rnd)
		if change == ChangeAnnotation && i == o.Ingresses/3 {
			ann = ann.set("nginx.ingress.kubernetes.io/proxy-body-size", "99m")
		}
		spec := obj{{"ingressClassName", className}, {"rules", []any{obj{{"host", host}, {"http", obj{{"paths", paths}}}}}}}
		if rnd.random() < 0.5 {
			spec = append(spec, field{"tls", []any{obj{{"hosts", []any{host}}, {"secretName", "wildcard-tls"}}}})
		}
		created := fmt.Sprintf("2026-01-01T00:%02d:%02dZ", i/60%60, i%60)
		docs["ingress"] = append(docs["ingress"], obj{
			{"apiVersion", "networking.k8s.io/v1"}, {"kind", "Ingress"},
			{"metadata", meta(app, ns, field{"annotations", ann}, field{"creationTimestamp", created})},
			{"spec", spec},
		})
	}
	return docs, nil
}

// annotations draws the Ingress's annotations: a proxy-body-size (20%),
// cookie affinity (10%), no SSL redirect (10%), EWMA (5%) or none.
func annotations(rnd *pyRandom) obj {
	ann := obj{}
	switch r := rnd.random(); {
	case r < 0.2:
		ann = ann.set("nginx.ingress.kubernetes.io/proxy-body-size", fmt.Sprintf("%dm", rnd.randint(1, 64)))
	case r < 0.3:
		ann = ann.set("nginx.ingress.kubernetes.io/affinity", "cookie")
		ann = ann.set("nginx.ingress.kubernetes.io/session-cookie-name", "route")
	case r < 0.4:
		ann = ann.set("nginx.ingress.kubernetes.io/ssl-redirect", "false")
	case r < 0.45:
		ann = ann.set("nginx.ingress.kubernetes.io/load-balance", "ewma")
	}
	return ann
}

// endpoint is a ready endpoint with one address.
func endpoint(addr string) obj {
	return obj{
		{"addresses", []any{addr}},
		{"conditions", obj{{"ready", true}, {"serving", true}, {"terminating", false}}},
	}
}
