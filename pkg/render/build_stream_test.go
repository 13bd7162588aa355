package render

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

func passthroughSnapshot(annotated bool) Snapshot {
	ing := newTestIngress("vault", 0, testRule("vault.example.com", "/"))
	if annotated {
		ing.Annotations = map[string]string{annotations.Prefix + "ssl-passthrough": "true"}
	}
	return Snapshot{Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{testService("web")}}
}

// Without --enable-ssl-passthrough the annotation is a Problem and
// nginx.conf is byte for byte the one without the annotation.
func TestPassthroughNeedsTheFlag(t *testing.T) {
	plain, _ := Build(passthroughSnapshot(false), DefaultOptions())
	cfg, problems := Build(passthroughSnapshot(true), DefaultOptions())
	if !cfg.Stream.Empty() {
		t.Errorf("stream %+v without the flag", cfg.Stream)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].String(), "needs the controller flag --enable-ssl-passthrough") {
		t.Errorf("problems %v", problems)
	}
	a, err1 := nginxconf.NGINXConf(plain, nginxconf.DefaultConfOptions())
	b, err2 := nginxconf.NGINXConf(cfg, nginxconf.DefaultConfOptions())
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("nginx.conf differs with the ignored annotation (%v, %v)", err1, err2)
	}
	if bytes.Contains(a, []byte("ngx_stream_module")) {
		t.Error("a config without stream servers loads the stream module")
	}
}

func TestPassthroughHostAndBackend(t *testing.T) {
	o := DefaultOptions()
	o.EnableSSLPassthrough = true
	cfg, problems := Build(passthroughSnapshot(true), o)
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	want := []model.PassthroughHost{{Hostname: "vault.example.com", Ingress: model.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "vault"}, Backend: "default-web-80"}}
	if !cfg.Stream.Passthrough || len(cfg.Stream.PassthroughHosts) != 1 || cfg.Stream.PassthroughHosts[0] != want[0] {
		t.Errorf("stream %+v, want %+v", cfg.Stream, want)
	}
	// The flag alone (no annotated Ingress) still puts the SNI router in
	// front: every name goes to nginx's HTTPS servers.
	cfg, _ = Build(passthroughSnapshot(false), o)
	conf, err := nginxconf.NGINXConf(cfg, nginxconf.DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ssl_preread on;", `"" "127.0.0.1:442";`, `listen "127.0.0.1:442" ssl http2 proxy_protocol`, "real_ip_header proxy_protocol;"} {
		if !bytes.Contains(conf, []byte(s)) {
			t.Errorf("nginx.conf lacks %q", s)
		}
	}
}

// A services ConfigMap that is not the one named by the flags is not read,
// and a named one that does not exist adds nothing.
func TestStreamServicesOnlyFromNamedConfigMap(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "other"}, Data: map[string]string{"9000": "default/web:80"}}
	o := DefaultOptions()
	o.TCPServicesConfigMap = "default/tcp-services"
	cfg, problems := Build(Snapshot{ConfigMaps: []*corev1.ConfigMap{cm}}, o)
	if !cfg.Stream.Empty() || len(problems) != 0 {
		t.Errorf("stream %+v, problems %v", cfg.Stream, problems)
	}
	cm.Name = "tcp-services"
	o.ReservedPorts = []int{9000}
	cfg, problems = Build(Snapshot{ConfigMaps: []*corev1.ConfigMap{cm}}, o)
	if !cfg.Stream.Empty() || len(problems) != 1 || problems[0].Field != "data[9000]" {
		t.Errorf("a reserved port: stream %+v, problems %v", cfg.Stream, problems)
	}
}
