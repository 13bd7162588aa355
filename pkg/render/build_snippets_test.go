package render

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func withSnippets(ing *networkingv1.Ingress, conf, server string) *networkingv1.Ingress {
	ing.Annotations = map[string]string{}
	if conf != "" {
		ing.Annotations["nginx.ingress.kubernetes.io/configuration-snippet"] = conf
	}
	if server != "" {
		ing.Annotations["nginx.ingress.kubernetes.io/server-snippet"] = server
	}
	return ing
}

func TestSnippetsApplied(t *testing.T) {
	old := withSnippets(newTestIngress("old", 0, testRule("a.example.com", "/", "/api")), "add_header X-A b;\nadd_header X-B c;", "server_tokens off;")
	young := withSnippets(newTestIngress("young", 1, testRule("a.example.com", "/young")), "", "server_tokens on;")
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{young, old}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	s := c.Server("a.example.com")
	if s.Snippet == nil || *s.Snippet.ServerTokens || s.Snippet.Ingress.Name != "old" {
		t.Fatalf("server snippet = %+v, want the old Ingress's", s.Snippet)
	}
	for _, l := range s.Locations {
		switch l.Ingress.Name {
		case "old":
			if l.Settings.Snippet == nil || len(l.Settings.Snippet.AddHeaders) != 2 || l.Settings.Snippet.Ingress.Name != "old" {
				t.Errorf("location %s: snippet %+v", l.Path, l.Settings.Snippet)
			}
		default:
			if l.Settings.Snippet != nil {
				t.Errorf("location %s of %s has a snippet", l.Path, l.Ingress.Name)
			}
		}
	}
	if txt := problemsText(problems); !strings.Contains(txt, `ingress default/young: metadata.annotations[nginx.ingress.kubernetes.io/server-snippet]: the server-snippet of host "a.example.com" is that of ingress default/old (older)`) || strings.Count(txt, "\n") != 1 {
		t.Errorf("problems:\n%s", txt)
	}
	want := []string{
		"configuration-snippet of default/old: 2 directives translated: add_header ×2",
		"server-snippet of default/old: 1 directive translated: server_tokens ×1",
	}
	if got := SnippetNotices(c); !reflect.DeepEqual(got, want) {
		t.Errorf("notices %q, want %q", got, want)
	}
}

func TestSnippetsRefusedWhole(t *testing.T) {
	ing := withSnippets(newTestIngress("web", 0, testRule("a.example.com", "/")), "add_header X-A b;\nset $x 1;\ninclude /etc/passwd;", "location = /x { return 404; }\nlocation /y { root /; }")
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	if s := c.Server("a.example.com"); s.Snippet != nil || s.Locations[0].Settings.Snippet != nil {
		t.Errorf("a refused snippet was applied: %+v %+v", s.Snippet, s.Locations[0].Settings.Snippet)
	}
	txt := problemsText(problems)
	for _, want := range []string{
		`configuration-snippet]: line 2: directive "set": not translated`,
		`configuration-snippet]: line 3: directive "include": not translated`,
		`none of its 3 directives is applied`,
		`server-snippet]: line 2: directive "root": not translated`,
		`none of its 4 directives is applied`,
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("problems lack %q:\n%s", want, txt)
		}
	}
	if len(SnippetNotices(c)) != 0 {
		t.Errorf("notices for refused snippets: %v", SnippetNotices(c))
	}
}

func TestSnippetLocationDuplicate(t *testing.T) {
	ing := withSnippets(newTestIngress("web", 0, testRule("a.example.com", "/admin")), "", "location ^~ /admin/ { deny all; }")
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	if c.Server("a.example.com").Snippet != nil {
		t.Error("a snippet whose location repeats an Ingress path was applied")
	}
	if txt := problemsText(problems); !strings.Contains(txt, "duplicate location") {
		t.Errorf("problems:\n%s", txt)
	}
	// A regex location may repeat: nginx takes the first.
	ing = withSnippets(newTestIngress("web", 0, testRule("a.example.com", "/admin")), "", "location ~ ^/admin { deny all; }")
	c, _ = Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}, DefaultOptions())
	if c.Server("a.example.com").Snippet == nil {
		t.Error("a regex location was refused")
	}
}

func TestSnippetsPolicy(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller", Namespace: "ingress-nginx"}, Data: map[string]string{"allow-snippet-annotations": "false"}}
	ing := withSnippets(newTestIngress("web", 0, testRule("a.example.com", "/")), "add_header X-A b;", "server_tokens off;")
	o := DefaultOptions()
	o.ConfigMap = "ingress-nginx/ingress-nginx-controller"
	c, problems := Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}, ConfigMaps: []*corev1.ConfigMap{cm}}, o)
	s := c.Server("a.example.com")
	if s.Snippet != nil || s.Locations[0].Settings.Snippet != nil {
		t.Error("snippets applied with allow-snippet-annotations: false")
	}
	if txt := problemsText(problems); strings.Count(txt, `allow-snippet-annotations: "false"`) != 2 {
		t.Errorf("problems:\n%s", txt)
	}
	// Below Critical, an Ingress with a snippet is left out, as in ingress-nginx.
	cm.Data = map[string]string{"annotations-risk-level": "High"}
	c, problems = Build(Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}, ConfigMaps: []*corev1.ConfigMap{cm}}, o)
	if c.Server("a.example.com") != nil || !strings.Contains(problemsText(problems), "its risk (Critical) is above") {
		t.Errorf("risk level High: %s", problemsText(problems))
	}
}
