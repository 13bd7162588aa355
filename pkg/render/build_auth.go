package render

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// resolveExternalAuth reads the ConfigMap that auth-proxy-set-headers
// names (in the Ingress's namespace: the annotation refuses another) into
// the headers sent to the auth service. A ConfigMap that is missing or
// whose data are refused is a Problem and the Ingress's paths answer 503,
// as ingress-nginx denies the location: the auth service would otherwise
// get requests without the headers it may decide on.
//
// auth-keepalive is no Problem while HTTP/2 is on (use-http2, the
// default): ingress-nginx then ignores it too. With use-http2 "false"
// ingress-nginx keeps connections to the auth service (an upstream block
// and a Lua subrequest, since auth_request cannot: nginx trac #1579);
// kubectl-ingress does not, and says so.
func (b *builder) resolveExternalAuth(ing model.ObjectRef, ann *annotations.Ingress) {
	st := &ann.Location
	a := st.ExternalAuth
	if a != nil && a.Keepalive > 0 && !b.global.Tuning.UseHTTP2 {
		b.problem(ing, annotations.Field("auth-keepalive"), "keepalive connections to the auth service are not supported (with use-http2 \"false\" ingress-nginx keeps them); each auth request opens a connection, authentication works as without the annotation")
	}
	if a == nil || a.ProxySetHeadersConfigMap == "" {
		return
	}
	field := annotations.Field("auth-proxy-set-headers")
	key := splitConfigMapRef(a.ProxySetHeadersConfigMap, ing.Namespace)
	name := key.namespace + "/" + key.name
	cm, ok := b.configMaps[key]
	if !ok {
		b.problem(ing, field, "ConfigMap %s not found; the Ingress's paths answer 503 until it exists, as in ingress-nginx", name)
		b.deny(st, "auth-proxy-set-headers: ConfigMap "+name+" not found")
		return
	}
	hs, err := annotations.AuthProxySetHeaders(cm.Data)
	if err != nil {
		b.problem(ing, field, "invalid ConfigMap %s: %v; the Ingress's paths answer 503 until it is fixed, as in ingress-nginx", name, err)
		b.deny(st, "auth-proxy-set-headers: invalid ConfigMap "+name)
		return
	}
	auth := *a
	auth.ProxySetHeaders = hs
	st.ExternalAuth = &auth
}
