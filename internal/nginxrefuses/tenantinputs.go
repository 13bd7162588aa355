package nginxrefuses

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TenantInput is one of issue 11's inputs that a tenant with the right to
// create Ingresses and Services in its own namespace can write, and what
// must come of it. Each one once made nginx -t (or Lua) refuse a config
// that render had accepted with no Problem, which froze every other
// tenant's changes; now render refuses it as a Problem of the object and
// field that hold it, or (the host names) serves it.
type TenantInput struct {
	// ID names the input's objects (a DNS label): its Ingress, its host
	// (ID.<domain>) and its ExternalName Service.
	ID string
	// Why is the line for it.
	Why string
	// Annotations, without the nginx.ingress.kubernetes.io/ prefix.
	Annotations map[string]string
	// Path is the Ingress path ("/" when empty), of PathType (Prefix when
	// empty; ImplementationSpecific with Regex, which sets use-regex).
	Path     string
	PathType networkingv1.PathType
	Regex    bool
	// Host, when set, is the rule's host instead of ID.<domain>.
	Host string
	// SharedHost puts the rule on the other tenant's host (Tenant.Shared).
	SharedHost bool
	// ExternalName, when set, makes the backend a Service of type
	// ExternalName named ID with this externalName.
	ExternalName string
	Want         Want
}

// Want is the outcome of a TenantInput.
type Want struct {
	// Served: no Problem names the input's objects, and its host answers
	// from the tenant's backend (nginx -t accepts it).
	Served bool
	// Kind and Field are those of the Problem that refuses it (Kind
	// "Ingress": the input's Ingress; "Service": its ExternalName Service).
	Kind, Field string
}

// The Problem fields of the table.
const (
	fieldPath        = "spec.rules[0].http.paths[0].path"
	fieldBackend     = "spec.rules[0].http.paths[0].backend.service"
	fieldExternal    = "spec.externalName"
	annotationPrefix = "metadata.annotations[nginx.ingress.kubernetes.io/"
)

func wantPath() Want { return Want{Kind: "Ingress", Field: fieldPath} }
func wantAnnotation(key string) Want {
	return Want{Kind: "Ingress", Field: annotationPrefix + key + "]"}
}
func served() Want { return Want{Served: true} }

// namedCapture is a use-regex path with a named capture.
func namedCapture(id, name string) TenantInput {
	return TenantInput{ID: id, Why: "a named capture " + name, Regex: true, Path: "/(?P<" + name + ">.*)", Want: wantPath()}
}

// longPath is a path of n bytes.
func longPath(n int) string { return "/" + strings.Repeat("p", n-1) }

// wildcardOrigins is a cors-allow-origin of n wildcard origins.
func wildcardOrigins(n int) string {
	o := make([]string, n)
	for i := range o {
		o[i] = fmt.Sprintf("https://*.tenant%d.example.com", i)
	}
	return strings.Join(o, ", ")
}

// externalName is an Ingress to an ExternalName Service of name.
func externalName(id, name string) TenantInput {
	return TenantInput{ID: id, Why: "externalName " + name, ExternalName: name, Want: Want{Kind: "Service", Field: fieldExternal}}
}

// TenantInputs is the table of issue 11's tenant inputs ("Why"), each with
// its outcome. What is left out is not an object a tenant writes (the TCP
// and UDP services ConfigMap, flags), or has a test of its own for its
// size (64,000 paths: TestFilesControllerBackendsOutgrowTheDict) or its
// traffic (app-root and the Host header: TestNGINXAppRootIgnoresHostHeader).
func TenantInputs() []TenantInput {
	return []TenantInput{
		namedCapture("named-uri", "uri"),
		namedCapture("named-request-uri", "request_uri"),
		namedCapture("named-remote-addr", "remote_addr"),
		namedCapture("named-status", "status"),
		namedCapture("named-host", "host"),
		namedCapture("named-long", "a"+strings.Repeat("b", 32)),
		namedCapture("named-digit", "1a"),
		{ID: "named-repeated", Why: "a capture name repeated", Regex: true, Path: "/(?P<x>a)(?P<x>b)", Want: wantPath()},
		{ID: "hex-100", Why: `\x{100}`, Regex: true, Path: `/\x{100}`, Want: wantPath()},
		{ID: "octal-777", Why: `\777`, Regex: true, Path: `/\777`, Want: wantPath()},
		{ID: "range-at-set", Why: `[\d-z]`, Regex: true, Path: `/[\d-z]`, Want: wantPath()},
		{ID: "rewrite-named", Why: "a rewrite-target path with a named capture", Annotations: map[string]string{"rewrite-target": "/$1"},
			Path: "/app/(?P<rest>.*)", PathType: networkingv1.PathTypeImplementationSpecific, Want: wantPath()},
		{ID: "rewrite-named-target", Why: "a rewrite-target naming a named capture", Annotations: map[string]string{"rewrite-target": "/$rest"},
			Path: "/app/(?P<rest>.*)", PathType: networkingv1.PathTypeImplementationSpecific, Want: wantAnnotation("rewrite-target")},
		{ID: "too-large", Why: "a regex PCRE2 compiles to more than 64K", Regex: true, Path: "/(?:[a-z]|[0-9]){1000}(?:[a-y]|[0-9]){1000}", Want: wantPath()},
		{ID: "too-deep", Why: "a regex nested deeper than PCRE2's 250", Regex: true, Path: "/" + strings.Repeat("(?:", 260) + "a" + strings.Repeat(")", 260), Want: wantPath()},
		{ID: "long-exact", Why: "a path of 4,094 bytes, Exact", Path: longPath(4094), PathType: networkingv1.PathTypeExact, Want: wantPath()},
		{ID: "long-prefix", Why: "a path of 4,094 bytes, Prefix", Path: longPath(4094), PathType: networkingv1.PathTypePrefix, Want: wantPath()},
		{ID: "long-implementation", Why: "a path of 4,094 bytes, ImplementationSpecific", Path: longPath(4094), PathType: networkingv1.PathTypeImplementationSpecific, Want: wantPath()},
		{ID: "long-regex", Why: "a path of 4,094 bytes, use-regex", Path: longPath(4094), Regex: true, Want: wantPath()},
		{ID: "cors-origins", Why: "cors-allow-origin with 100 wildcard origins", Annotations: map[string]string{"enable-cors": "true", "cors-allow-origin": wildcardOrigins(100)}, Want: served()},
		{ID: "host-47", Why: "a real 47-character host name", Host: "statistics.api.demo.fellesdatakatalog.digdir.no", Want: served()},
		{ID: "host-48", Why: "a 48-character host name", Host: "statistics2.api.demo.fellesdatakatalog.digdir.no", Want: served()},
		{ID: "host-111", Why: "a 111-character host name", Host: strings.Repeat("h", 60) + "." + strings.Repeat("h", 38) + ".example.com", Want: served()},
		{ID: "host-112", Why: "a 112-character host name", Host: strings.Repeat("h", 60) + "." + strings.Repeat("h", 39) + ".example.com", Want: served()},
		externalName("external-127-1", "127.1"),
		externalName("external-0", "0"),
		externalName("external-decimal", "2130706433"),
		externalName("external-zero-padded", "127.000.000.001"),
		externalName("external-metadata", "169.254.169.254"),
		{ID: "limit-connections", Why: "limit-connections above nginx's 65535", Annotations: map[string]string{"limit-connections": "70000"}, Want: wantAnnotation("limit-connections")},
		{ID: "proxy-buffer-size", Why: "proxy-buffer-size above proxy_max_temp_file_size (1024m)", Annotations: map[string]string{"proxy-buffer-size": "2048m"}, Want: wantAnnotation("proxy-buffer-size")},
		{ID: "shadow-other-namespace", Why: "a younger use-regex path on another namespace's host", SharedHost: true, Regex: true, Path: "/.*", Want: wantPath()},
	}
}

// IngressField is the field of the Problem on in's Ingress: Want.Field,
// or for an ExternalName Service its Ingress's backend (the webhook, which
// reviews Ingresses, names that one); "" when served.
func (in TenantInput) IngressField() string {
	if in.Want.Kind == "Service" {
		return fieldBackend
	}
	return in.Want.Field
}

// Tenant lays the inputs out as one tenant's objects.
type Tenant struct {
	// Namespace holds every object of the inputs.
	Namespace string
	// Domain: an input's host is ID.Domain unless it names its own.
	Domain string
	// Service is the tenant's own backend Service (port 80) of every
	// input without ExternalName; the caller makes it.
	Service string
	// Shared is the other tenant's host that SharedHost inputs claim.
	Shared string
}

// HostOf is the host of in's rule.
func (tn Tenant) HostOf(in TenantInput) string {
	switch {
	case in.SharedHost:
		return tn.Shared
	case in.Host != "":
		return in.Host
	}
	return in.ID + "." + tn.Domain
}

// Ref is the object in's Problem names (Want.Kind; an Ingress when served).
func (tn Tenant) Ref(in TenantInput) model.ObjectRef {
	kind := in.Want.Kind
	if kind == "" {
		kind = "Ingress"
	}
	return model.ObjectRef{Kind: kind, Namespace: tn.Namespace, Name: in.ID}
}

// annotations are in's full annotation keys and values.
func (in TenantInput) annotations() map[string]string {
	ann := map[string]string{}
	for k, v := range in.Annotations {
		ann["nginx.ingress.kubernetes.io/"+k] = v
	}
	if in.Regex {
		ann["nginx.ingress.kubernetes.io/use-regex"] = "true"
	}
	if len(ann) == 0 {
		return nil
	}
	return ann
}

func (in TenantInput) path() (string, networkingv1.PathType) {
	path, pt := in.Path, in.PathType
	if path == "" {
		path = "/"
	}
	switch {
	case in.Regex:
		pt = networkingv1.PathTypeImplementationSpecific
	case pt == "":
		pt = networkingv1.PathTypePrefix
	}
	return path, pt
}

// Ingress is in's Ingress (class nginx), named ID, one rule and one path
// to port 80 of its backend.
func (tn Tenant) Ingress(in TenantInput) *networkingv1.Ingress {
	service := tn.Service
	if in.ExternalName != "" {
		service = in.ID
	}
	path, pt := in.path()
	return &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: tn.Namespace, Name: in.ID, Annotations: in.annotations()},
		Spec: networkingv1.IngressSpec{
			IngressClassName: new("nginx"),
			Rules: []networkingv1.IngressRule{{Host: tn.HostOf(in), IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pt, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}},
				}}},
			}}}},
		},
	}
}

// ExternalService is in's ExternalName Service (port 80 named http), nil
// when in has none.
func (tn Tenant) ExternalService(in TenantInput) *corev1.Service {
	if in.ExternalName == "" {
		return nil
	}
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: tn.Namespace, Name: in.ID},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: in.ExternalName,
			Ports:        []corev1.ServicePort{{Name: "http", Port: 80}},
		},
	}
}

// YAML is the manifests of the inputs' Ingresses (created at created) and
// ExternalName Services, in the order of ins.
func (tn Tenant) YAML(ins []TenantInput, created time.Time) (string, error) {
	var b strings.Builder
	for _, in := range ins {
		ing := tn.Ingress(in)
		ing.CreationTimestamp = metav1.NewTime(created)
		objs := []any{ing}
		if svc := tn.ExternalService(in); svc != nil {
			objs = append(objs, svc)
		}
		for _, o := range objs {
			y, err := yaml.Marshal(o)
			if err != nil {
				return "", fmt.Errorf("%s: %w", in.ID, err)
			}
			b.WriteString("---\n")
			b.Write(y)
		}
	}
	return b.String(), nil
}

// ProblemOf returns the Problem of ps that refuses in as its Want says
// (its object and field), and whether there is one.
func (tn Tenant) ProblemOf(in TenantInput, ps []model.Problem) (model.Problem, bool) {
	ref := tn.Ref(in)
	for _, p := range ps {
		if p.Object == ref && p.Field == in.Want.Field {
			return p, true
		}
	}
	return model.Problem{}, false
}

// ProblemsNaming are the Problems of ps on in's Ingress or ExternalName
// Service.
func (tn Tenant) ProblemsNaming(in TenantInput, ps []model.Problem) []model.Problem {
	var out []model.Problem
	for _, p := range ps {
		if p.Object.Namespace == tn.Namespace && p.Object.Name == in.ID && (p.Object.Kind == "Ingress" || p.Object.Kind == "Service") {
			out = append(out, p)
		}
	}
	return out
}
