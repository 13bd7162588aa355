package admission

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// secretAnnotations name a Secret, "name" or "namespace/name": the users
// of basic authentication, the CA of client certificates, the backend's
// TLS. The subset of a review holds them, so that it renders as the full
// snapshot does (whether the Secret exists, what it holds).
var secretAnnotations = []string{
	"nginx.ingress.kubernetes.io/auth-secret",
	"nginx.ingress.kubernetes.io/auth-tls-secret",
	"nginx.ingress.kubernetes.io/proxy-ssl-secret",
}

// annotationSecrets gives the Secrets the annotations of ing name. A
// value that is not a reference finds no Secret: render refuses it alike.
func annotationSecrets(ing *networkingv1.Ingress) []nsName {
	var out []nsName
	for _, a := range secretAnnotations {
		v := strings.TrimSpace(ing.Annotations[a])
		if v == "" {
			continue
		}
		ns, name, found := strings.Cut(v, "/")
		if !found {
			ns, name = ing.Namespace, v
		}
		out = append(out, nsName{ns, name})
	}
	return out
}
