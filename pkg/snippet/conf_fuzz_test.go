package snippet_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/snippet"
)

// snippetConf renders one Ingress with the two snippet annotations (none
// when empty) through render.Build and the writer.
func snippetConf(t *testing.T, conf, server string) []byte {
	t.Helper()
	ann := map[string]string{}
	if conf != "" {
		ann["nginx.ingress.kubernetes.io/configuration-snippet"] = conf
	}
	if server != "" {
		ann["nginx.ingress.kubernetes.io/server-snippet"] = server
	}
	class := "nginx"
	prefix := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Annotations: ann},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{
			Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
			}}}},
		}}},
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	cfg, _ := render.Build(render.Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{svc}}, render.DefaultOptions())
	out, err := nginxconf.NGINXConf(cfg, nginxconf.ConfOptions{HTTPPort: 80, HTTPSPort: 443, StatusAddress: "127.0.0.1"})
	if err != nil {
		t.Fatalf("the writer failed on an accepted snippet: %v", err)
	}
	return out
}

// directiveNames counts the directives of nginx.conf text by name, read
// with the snippet tokenizer (nginx's reading of the text).
func directiveNames(t *testing.T, text []byte) map[string]int {
	t.Helper()
	tokens, err := snippet.Tokenize(string(text))
	if err != nil {
		t.Fatalf("the written nginx.conf does not tokenize: %v", err)
	}
	names := map[string]int{}
	start := true
	for _, tok := range tokens {
		switch tok.Kind {
		case snippet.Word:
			if start {
				names[tok.Text]++
			}
			start = false
		default:
			start = true
		}
	}
	return names
}

// FuzzSnippetConf: whatever a snippet's text, the nginx.conf written for
// it holds no directive that neither the writer writes without snippets
// nor the snippet allowlist names (plus the writer's "set" of the
// per-location variables a snippet reads), read back with the tokenizer:
// no byte of snippet text becomes a directive of its own. Refused
// snippets must leave nginx.conf as without them.
func FuzzSnippetConf(f *testing.F) {
	seeds := []string{
		"add_header X-Frame-Options SAMEORIGIN;\nproxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;",
		"server_tokens off;\nlocation ~ ^/(ping|ready) { deny all; return 404; }",
		"return 200;\n}\nserver { listen 1; }",
		"add_header X \"a; } include /etc/passwd; #\";",
		"more_set_headers \"X: a\\\" ; include x;\";",
		"sub_filter '</head>' '<x>\";\\' include y; '; sub_filter_once on;",
		"rewrite \"^/(a)\\\"; include z;\" /$1 break;",
		"location = \"/x\\\"; } include q; {\" { return 301 https://x/$request_uri; }",
	}
	for _, s := range seeds {
		f.Add(s, s)
	}
	allowed := map[string]bool{"set": true}
	for _, d := range snippet.Directives() {
		allowed[d.Name] = true
	}
	base := directiveNames(&testing.T{}, snippetConf(&testing.T{}, "", ""))
	f.Fuzz(func(t *testing.T, conf, server string) {
		cs, _ := snippet.Translate(snippet.ConfigurationSnippet, conf)
		ss, _ := snippet.Translate(snippet.ServerSnippet, server)
		got := directiveNames(t, snippetConf(t, conf, server))
		// the writer's own: an empty rewrite_by_lua_block in each location
		// of a server-snippet (it proxies nothing)
		writers := map[string]int{}
		if ss != nil {
			writers["rewrite_by_lua_block"] = len(ss.Locations)
		}
		for name, n := range got {
			if n <= base[name]+writers[name] {
				continue
			}
			if cs == nil && ss == nil {
				t.Fatalf("refused snippets changed nginx.conf: %d %q directives, %d without", n, name, base[name])
			}
			if !allowed[name] {
				t.Fatalf("nginx.conf holds %d %q directives (%d without snippets), which neither the writer nor the allowlist makes", n, name, base[name])
			}
		}
		for name := range base {
			if strings.HasSuffix(name, "_by_lua_block") && got[name] != base[name]+writers[name] {
				t.Fatalf("%s: %d, %d without snippets", name, got[name], base[name])
			}
		}
	})
}
