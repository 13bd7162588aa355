package render

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The settings that name a ConfigMap: the controller ConfigMap's
// add-headers and proxy-set-headers (resolved once per Build), and the
// custom-headers and fastcgi-params-configmap annotations (resolved once
// per Ingress, applied to each of its locations). A ConfigMap that is
// missing or whose data are refused is a Problem; an annotation's location
// then answers 503, as ingress-nginx denies such a location.

// configMapIndex holds the ConfigMaps of the snapshot.
type configMapIndex map[nsName]*corev1.ConfigMap

func newConfigMapIndex(cms []*corev1.ConfigMap) configMapIndex {
	idx := make(configMapIndex, len(cms))
	for _, cm := range cms {
		idx[nsName{cm.Namespace, cm.Name}] = cm
	}
	return idx
}

// splitConfigMapRef splits "namespace/name" or "name" (in namespace def).
func splitConfigMapRef(ref, def string) nsName {
	if ns, name, ok := strings.Cut(ref, "/"); ok {
		return nsName{ns, name}
	}
	return nsName{def, ref}
}

// resolveGlobalHeaders fills Global.ResponseHeaders and BackendHeaders
// from the ConfigMaps that add-headers and proxy-set-headers name.
func (b *builder) resolveGlobalHeaders(controller model.ObjectRef, cms configMapIndex) {
	for _, k := range []struct {
		key  string
		ref  string
		into *[]model.Header
	}{
		{"add-headers", b.global.AddHeaders, &b.global.ResponseHeaders},
		{"proxy-set-headers", b.global.ProxySetHeaders, &b.global.BackendHeaders},
	} {
		if k.ref == "" {
			continue
		}
		key := splitConfigMapRef(k.ref, controller.Namespace)
		cm, ok := cms[key]
		if !ok {
			b.problem(controller, annotations.ConfigField(k.key), "ConfigMap %s not found; no header is added", key.namespace+"/"+key.name)
			continue
		}
		hs, err := annotations.ParseHeaders(cm.Data, true)
		if err != nil {
			b.problem(controller, annotations.ConfigField(k.key), "invalid ConfigMap %s: %v; no header is added", key.namespace+"/"+key.name, err)
			continue
		}
		*k.into = hs
	}
}

// ingressConfigMaps are the resolved ConfigMap settings of one Ingress.
type ingressConfigMaps struct {
	customHeaders []model.Header
	fastCGI       *model.FastCGI
	denied        string
}

// resolveIngressConfigMaps resolves the ConfigMaps an Ingress's
// annotations name, once; the Problems are reported the first time.
func (b *builder) resolveIngressConfigMaps(p *parsedIngress) *ingressConfigMaps {
	if r, ok := b.ingressCMs[p.ref]; ok {
		return r
	}
	r := &ingressConfigMaps{}
	b.ingressCMs[p.ref] = r
	a := &p.ann
	if ref := a.CustomHeaders; ref != "" {
		field := annotations.Field("custom-headers")
		key := splitConfigMapRef(ref, p.ref.Namespace)
		name := key.namespace + "/" + key.name
		cm, ok := b.configMaps[key]
		var hs []model.Header
		var err error
		switch {
		case key.namespace != p.ref.Namespace:
			err = fmt.Errorf("ConfigMap %s is in another namespace: custom-headers may only name a ConfigMap of the Ingress namespace", name)
		case !ok:
			err = fmt.Errorf("ConfigMap %s not found", name)
		default:
			hs, err = annotations.ParseHeaders(cm.Data, false)
			if err != nil {
				err = fmt.Errorf("invalid ConfigMap %s: %v", name, err)
			}
		}
		if err == nil {
			var refused []string
			for _, h := range hs {
				if !annotations.AllowedResponseHeader(&b.global, h.Name) {
					refused = append(refused, h.Name)
				}
			}
			if len(refused) > 0 {
				err = fmt.Errorf("ConfigMap %s sets %s, not allowed by the ConfigMap key global-allowed-response-headers (%s)",
					name, strings.Join(refused, ", "), allowedList(b.global.AllowedResponseHeaders))
			}
		}
		if err != nil {
			b.problem(p.ref, field, "%v; the Ingress's paths answer 503, as in ingress-nginx", err)
			r.denied = "custom-headers: " + err.Error()
		} else {
			r.customHeaders = hs
		}
	}
	if a.Backend.Protocol == "FCGI" || a.FastCGIIndex != "" || a.FastCGIParams != "" {
		if a.Backend.Protocol != "FCGI" {
			if a.FastCGIIndex != "" {
				b.problem(p.ref, annotations.Field("fastcgi-index"), `applies only with backend-protocol "FCGI"; the annotation is ignored`)
			}
			if a.FastCGIParams != "" {
				b.problem(p.ref, annotations.Field("fastcgi-params-configmap"), `applies only with backend-protocol "FCGI"; the annotation is ignored`)
			}
			return r
		}
		f := &model.FastCGI{Index: a.FastCGIIndex}
		if ref := a.FastCGIParams; ref != "" {
			field := annotations.Field("fastcgi-params-configmap")
			key := splitConfigMapRef(ref, p.ref.Namespace)
			name := key.namespace + "/" + key.name
			cm, ok := b.configMaps[key]
			var err error
			switch {
			case key.namespace != p.ref.Namespace:
				err = fmt.Errorf("ConfigMap %s is in another namespace: fastcgi-params-configmap may only name a ConfigMap of the Ingress namespace", name)
			case !ok:
				err = fmt.Errorf("ConfigMap %s not found", name)
			default:
				f.Params, err = annotations.ParseFastCGIParams(cm.Data)
				if err != nil {
					err = fmt.Errorf("invalid ConfigMap %s: %v", name, err)
				}
			}
			if err != nil {
				b.problem(p.ref, field, "%v; the Ingress's paths answer 503, as in ingress-nginx", err)
				if r.denied == "" {
					r.denied = "fastcgi-params-configmap: " + err.Error()
				}
			}
		}
		r.fastCGI = f
	}
	return r
}

// applyIngressConfigMaps sets the resolved ConfigMap settings of the
// Ingress on one of its locations.
func (b *builder) applyIngressConfigMaps(p *parsedIngress, st *model.LocationSettings) {
	r := b.resolveIngressConfigMaps(p)
	st.CustomHeaders = r.customHeaders
	st.FastCGI = r.fastCGI
	if r.denied != "" {
		st.Denied = r.denied
	}
}

func allowedList(l []string) string {
	if len(l) == 0 {
		return "empty"
	}
	s := append([]string(nil), l...)
	sort.Strings(s)
	return strings.Join(s, ",")
}
