package sync_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// examples reads the repository's examples/: a TLS shop with a canary and a
// regex blog.
func examples(t *testing.T) render.Snapshot {
	t.Helper()
	res, err := manifest.Read([]string{"../../examples"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

func state(t *testing.T, s render.Snapshot) ksync.State {
	t.Helper()
	cfg, _ := render.Build(s, render.DefaultOptions())
	conf, err := nginxconf.NGINXConf(cfg, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ksync.State{Config: cfg, NGINXConf: conf}
}

// copies of the objects a mutation changes, so the base stays intact.
func ingress(s *render.Snapshot, name string) *networkingv1.Ingress {
	for i, ing := range s.Ingresses {
		if ing.Name == name {
			s.Ingresses[i] = ing.DeepCopy()
			return s.Ingresses[i]
		}
	}
	panic("no ingress " + name)
}

func slice(s *render.Snapshot, name string) *discoveryv1.EndpointSlice {
	for i, es := range s.EndpointSlices {
		if es.Name == name {
			s.EndpointSlices[i] = es.DeepCopy()
			return s.EndpointSlices[i]
		}
	}
	panic("no slice " + name)
}

func service(s *render.Snapshot, name string) *corev1.Service {
	for i, svc := range s.Services {
		if svc.Name == name {
			s.Services[i] = svc.DeepCopy()
			return s.Services[i]
		}
	}
	panic("no service " + name)
}

func annotate(ing *networkingv1.Ingress, key, value string) {
	ing.Annotations["nginx.ingress.kubernetes.io/"+key] = value
}

func prefixPath(path, svc string, port int32) networkingv1.HTTPIngressPath {
	pt := networkingv1.PathTypePrefix
	return networkingv1.HTTPIngressPath{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
		Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: port}},
	}}
}

func TestPlanChangeKinds(t *testing.T) {
	cases := []struct {
		name    string
		change  func(t *testing.T, s *render.Snapshot)
		verdict ksync.Verdict
		reason  string // a substring of one reason
	}{
		{"nothing", func(t *testing.T, s *render.Snapshot) {}, ksync.NoChange, ""},
		{"endpoint added", func(t *testing.T, s *render.Snapshot) {
			es := slice(s, "web-abc12")
			es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{"127.0.0.9"}})
		}, ksync.DynamicOnly, "endpoints shop/web: 1 added, 0 removed"},
		{"endpoint removed", func(t *testing.T, s *render.Snapshot) {
			es := slice(s, "api-x7k2p")
			es.Endpoints = es.Endpoints[:1]
		}, ksync.DynamicOnly, "endpoints shop/api: 0 added, 1 removed"},
		{"endpoint not ready", func(t *testing.T, s *render.Snapshot) {
			es := slice(s, "api-x7k2p")
			no := false
			es.Endpoints[1].Conditions.Ready = &no
		}, ksync.DynamicOnly, "0 added, 1 removed"},
		{"targetPort changed", func(t *testing.T, s *render.Snapshot) {
			port := int32(19000)
			slice(s, "web-abc12").Ports[0].Port = &port
			service(s, "web").Spec.Ports[0].TargetPort = intstr.FromInt32(19000)
		}, ksync.DynamicOnly, "1 added, 1 removed"},
		{"service deleted", func(t *testing.T, s *render.Snapshot) {
			for i, svc := range s.Services {
				if svc.Name == "web" {
					s.Services = append(s.Services[:i:i], s.Services[i+1:]...)
					break
				}
			}
		}, ksync.DynamicOnly, "endpoints shop/web: 0 added, 1 removed"},
		{"new path", func(t *testing.T, s *render.Snapshot) {
			ing := ingress(s, "shop")
			ing.Spec.Rules[0].HTTP.Paths = append(ing.Spec.Rules[0].HTTP.Paths, prefixPath("/cart", "web", 80))
		}, ksync.ReloadRequired, "ingress shop/shop: path /cart added (server shop.example.com)"},
		{"path removed", func(t *testing.T, s *render.Snapshot) {
			ing := ingress(s, "blog-admin")
			ing.Spec.Rules[0].HTTP.Paths = nil
		}, ksync.ReloadRequired, "path /admin removed (server blog.example.com)"},
		{"path type changed", func(t *testing.T, s *render.Snapshot) {
			exact := networkingv1.PathTypeExact
			ingress(s, "shop").Spec.Rules[0].HTTP.Paths[1].PathType = &exact
		}, ksync.ReloadRequired, "path /api added"},
		{"new host", func(t *testing.T, s *render.Snapshot) {
			ing := ingress(s, "shop")
			rule := *ing.Spec.Rules[0].DeepCopy()
			rule.Host = "new.example.com"
			ing.Spec.Rules = append(ing.Spec.Rules, rule)
		}, ksync.ReloadRequired, "server new.example.com added"},
		{"ingress deleted", func(t *testing.T, s *render.Snapshot) {
			for i, ing := range s.Ingresses {
				if ing.Name == "blog-admin" {
					s.Ingresses = append(s.Ingresses[:i:i], s.Ingresses[i+1:]...)
					break
				}
			}
		}, ksync.ReloadRequired, "path /admin removed"},
		{"annotation proxy-body-size", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "shop"), "proxy-body-size", "30m")
		}, ksync.ReloadRequired, `proxy.body-size "20m" → "30m"`},
		{"annotation allowlist", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "blog-admin"), "allowlist-source-range", "192.168.0.0/16")
		}, ksync.ReloadRequired, "access.allow"},
		{"annotation rewrite-target", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "blog"), "rewrite-target", "/new/$2")
		}, ksync.ReloadRequired, "rewrite-target"},
		{"annotation load-balance", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "shop"), "load-balance", "ewma")
		}, ksync.DynamicOnly, `load-balance "" → "ewma"`},
		{"annotation upstream-hash-by", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "shop"), "upstream-hash-by", "$request_uri")
		}, ksync.DynamicOnly, "upstream-hash-by.expression"},
		{"annotation affinity", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "blog"), "affinity", "cookie")
		}, ksync.DynamicOnly, "session-affinity"},
		{"canary weight", func(t *testing.T, s *render.Snapshot) {
			annotate(ingress(s, "shop-api-canary"), "canary-weight", "50")
		}, ksync.DynamicOnly, "traffic-shaping.weight 20 → 50"},
		{"canary ingress added", func(t *testing.T, s *render.Snapshot) {
			ing := ingress(s, "shop-api-canary").DeepCopy()
			ing.Name = "shop-web-canary"
			ing.Spec.Rules[0].HTTP.Paths[0] = prefixPath("/", "api-canary", 8000)
			s.Ingresses = append(s.Ingresses, ing)
		}, ksync.DynamicOnly, "alternative-backends"},
		{"certificate rotated", func(t *testing.T, s *render.Snapshot) {
			crt, key, err := nginx.SelfSignedCertificate("shop.example.com", "shop.example.com")
			if err != nil {
				t.Fatal(err)
			}
			for i, sec := range s.Secrets {
				if sec.Name == "shop-tls" {
					sec = sec.DeepCopy()
					sec.Data["tls.crt"], sec.Data["tls.key"] = crt, key
					s.Secrets[i] = sec
				}
			}
		}, ksync.DynamicOnly, "secret shop/shop-tls: certificate rotated"},
		{"configmap key", func(t *testing.T, s *render.Snapshot) {
			cm := s.ConfigMaps[0].DeepCopy()
			cm.Data["proxy-read-timeout"] = "90"
			s.ConfigMaps[0] = cm
		}, ksync.ReloadRequired, "configmap: proxy-read-timeout changed from 60 to 90"},
		{"service port in ingress", func(t *testing.T, s *render.Snapshot) {
			ingress(s, "shop").Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Number: 80}
		}, ksync.ReloadRequired, `backend "shop-web-http" → "shop-web-80"`},
		{"tls removed from host", func(t *testing.T, s *render.Snapshot) {
			ingress(s, "shop").Spec.TLS = nil
		}, ksync.ReloadRequired, "TLS of shop.example.com turned off"},
		{"ingress moved to another class", func(t *testing.T, s *render.Snapshot) {
			other := "other"
			ingress(s, "blog-admin").Spec.IngressClassName = &other
		}, ksync.ReloadRequired, "path /admin removed"},
		{"external name changed", func(t *testing.T, s *render.Snapshot) {
			svc := service(s, "blog")
			svc.Spec.Type = corev1.ServiceTypeExternalName
			svc.Spec.ExternalName = "blog.internal.example"
		}, ksync.DynamicOnly, "backend default-blog-80 changed: external-name"},
	}
	base := examples(t)
	running := state(t, base)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := base
			s.Ingresses = append(s.Ingresses[:0:0], base.Ingresses...)
			s.Services = append(s.Services[:0:0], base.Services...)
			s.EndpointSlices = append(s.EndpointSlices[:0:0], base.EndpointSlices...)
			s.Secrets = append(s.Secrets[:0:0], base.Secrets...)
			s.ConfigMaps = append(s.ConfigMaps[:0:0], base.ConfigMaps...)
			c.change(t, &s)
			p := ksync.NewPlan(running, state(t, s))
			if p.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s; reasons: %v", p.Verdict, c.verdict, p.Reasons)
			}
			if c.reason == "" {
				if len(p.Reasons) != 0 {
					t.Errorf("no reasons expected, got %v", p.Reasons)
				}
				return
			}
			found := false
			for _, r := range p.Reasons {
				if strings.Contains(r.String(), c.reason) {
					found = true
				}
			}
			if !found {
				t.Errorf("no reason contains %q; reasons:\n%s", c.reason, reasonLines(p.Reasons))
			}
		})
	}
	if len(cases) < 20 {
		t.Errorf("the table covers %d change kinds, want at least 20", len(cases))
	}
}

func reasonLines(rs []ksync.Reason) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

func TestPlanInitialConfiguration(t *testing.T) {
	p := ksync.NewPlan(ksync.State{}, state(t, examples(t)))
	if p.Verdict != ksync.ReloadRequired || !p.PushBackends || !p.PushServers {
		t.Errorf("first plan: %+v", p)
	}
	if len(p.Backends.Added) != 4 || len(p.ChangedServers) != 3 {
		t.Errorf("first plan adds 4 backends and 3 servers, got %v and %v", p.Backends.Added, p.ChangedServers)
	}
}

func TestPlanDynamicSaysWhatToPush(t *testing.T) {
	base := examples(t)
	running := state(t, base)
	s := base
	s.EndpointSlices = append(s.EndpointSlices[:0:0], base.EndpointSlices...)
	slice(&s, "web-abc12").Endpoints = nil
	p := ksync.NewPlan(running, state(t, s))
	if !p.PushBackends || p.PushServers {
		t.Errorf("an endpoint change pushes backends only: %+v", p)
	}
	if len(p.Backends.Changed) != 1 || p.Backends.Changed[0] != "shop-web-http" {
		t.Errorf("changed backends %v, want [shop-web-http]", p.Backends.Changed)
	}
}
