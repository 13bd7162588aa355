package annotations

import (
	"errors"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Secret references of annotations (auth-secret, auth-tls-secret,
// proxy-ssl-secret) and the ConfigMap key that lets them cross
// namespaces. The annotations name a Secret only: render reads it and
// writes what nginx needs to files whose names it makes from the Secret's
// UID (model.File); no part of the value ever becomes a path.

// authSecretConfigKeys are the ConfigMap keys of this family, sorted by key.
var authSecretConfigKeys = []configKeySpec{
	{Key: "allow-cross-namespace-resources", Kind: kindBool, Default: "false",
		Description: "Let auth-secret, auth-tls-secret and proxy-ssl-secret name a Secret of another namespace than the Ingress's (off by default, as in ingress-nginx since v1.12).",
		set:         configBool(func(g *model.Global) *bool { return &g.AllowCrossNamespaceResources })},
}

// kindSecretRef is the value of an annotation that names a Secret.
const kindSecretRef valueKind = `Secret "name" or "namespace/name"`

// valueSecretRef checks "name" or "namespace/name": a Secret name (an
// RFC 1123 subdomain) and a namespace (an RFC 1123 label). The Namespace
// of the result is "" when the value has none: the Ingress's namespace.
func valueSecretRef(v string) (model.ObjectRef, error) {
	bad := errors.New(`must be a Secret "name" or "namespace/name" (lower-case letters, digits, '-' and '.'; a namespace has no '.')`)
	ns, name, found := strings.Cut(v, "/")
	if !found {
		ns, name = "", v
	} else if !isDNSLabel(ns) {
		return model.ObjectRef{}, bad
	}
	if !isDNSSubdomain(name) {
		return model.ObjectRef{}, bad
	}
	return model.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}, nil
}

// isDNSLabel reports an RFC 1123 label: at most 63 lower-case letters,
// digits and '-', starting and ending with a letter or digit.
func isDNSLabel(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports an RFC 1123 subdomain: labels joined by '.', at
// most 253 bytes. "..", a leading or trailing '.' and '/' are refused.
func isDNSSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if !isDNSLabel(l) {
			return false
		}
	}
	return true
}
