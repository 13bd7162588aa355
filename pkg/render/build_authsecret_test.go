package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestParseAuthFile(t *testing.T) {
	in := "# comment\r\n\nalice:{PLAIN}a\r\nbob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=:a comment\n" +
		"carol:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/\n" +
		"dave:$2y$05$abcdefghijklmnopqrstuuTmHGD1q0NGBjYI6evjaX5UpuGijG7V6\n" +
		"erin:abcdefghijklm\n" + // DES
		"nohash\n:{PLAIN}x\n#x:{PLAIN}y\nfrank:{SHA}short\ngrace:$9$unknown\nheidi:{PLAIN}\n"
	entries, bad := parseAuthFile([]byte(in))
	var users []string
	for _, e := range entries {
		users = append(users, e.user)
	}
	if got := strings.Join(users, ","); got != "alice,bob,carol,dave,erin" {
		t.Errorf("users %s", got)
	}
	if string(htpasswdContent(entries[:2])) != "alice:{PLAIN}a\nbob:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=\n" {
		t.Errorf("content %q", htpasswdContent(entries[:2]))
	}
	// nohash, the empty user, frank, grace, heidi; "#x" is a comment.
	if len(bad) != 5 {
		t.Errorf("refused lines: %q", bad)
	}
	for _, b := range bad {
		if strings.Contains(b, "{SHA}short") || strings.Contains(b, "$9$") {
			t.Errorf("a message quotes a hash: %s", b)
		}
	}
}

func TestParseAuthMap(t *testing.T) {
	entries, bad := parseAuthMap(map[string][]byte{
		"alice": []byte("{PLAIN}a\n"), "bob": []byte("{PLAIN}b\nmallory:{PLAIN}m"), "#c": []byte("{PLAIN}c"), "d:e": []byte("{PLAIN}d"),
	})
	if len(entries) != 1 || entries[0].user != "alice" || entries[0].hash != "{PLAIN}a" {
		t.Errorf("entries %v", entries)
	}
	if len(bad) != 3 {
		t.Errorf("refused: %q", bad)
	}
}

func TestSecretFileNames(t *testing.T) {
	withUID := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", UID: types.UID("0d5e9c3b-8a7f-4e21-b6d4-3c2b1a0f9e88")}}
	if got := secretFileID(withUID); got != "0d5e9c3b-8a7f-4e21-b6d4-3c2b1a0f9e88" {
		t.Errorf("with a UID: %s", got)
	}
	for _, uid := range []string{"", "../../etc", "A/B", strings.Repeat("a", 65)} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "../x", UID: types.UID(uid)}}
		id := secretFileID(s)
		if !model.ValidFileName("auth/"+id+"-file.htpasswd") || strings.Contains(id, "..") {
			t.Errorf("uid %q: id %q is no valid file name part", uid, id)
		}
	}
}

func authSnapshot(ns string, annotations map[string]string, secrets ...*corev1.Secret) Snapshot {
	ing := newTestIngress("app", 0, testRule("a.example.com", "/"))
	ing.Namespace, ing.Annotations = ns, annotations
	svc := testService("web")
	svc.Namespace = ns
	return Snapshot{Secrets: secrets, Ingresses: []*networkingv1.Ingress{ing}, Services: []*corev1.Service{svc}}
}

// authProblems are the Problems of the auth annotations.
func authProblems(ps []model.Problem) []model.Problem {
	var out []model.Problem
	for _, p := range ps {
		if strings.Contains(p.Field, "auth") {
			out = append(out, p)
		}
	}
	return out
}

func TestBasicAuthSecretResolution(t *testing.T) {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shared", Name: "users"}, Data: map[string][]byte{"auth": []byte("alice:{PLAIN}a\n")}}
	ann := map[string]string{"nginx.ingress.kubernetes.io/auth-type": "basic", "nginx.ingress.kubernetes.io/auth-secret": "shared/users"}

	// Another namespace: refused by default, 503.
	cfg, problems := Build(authSnapshot("app", ann, sec), DefaultOptions())
	problems = authProblems(problems)
	loc := cfg.Server("a.example.com").Locations[0]
	if loc.Settings.Denied == "" || loc.Settings.BasicAuth != nil || len(cfg.Files) != 0 {
		t.Errorf("cross-namespace Secret: denied %q, basic %v, files %d", loc.Settings.Denied, loc.Settings.BasicAuth, len(cfg.Files))
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "allow-cross-namespace-resources") {
		t.Errorf("problems %v", problems)
	}

	// Allowed by the ConfigMap.
	s := authSnapshot("app", ann, sec)
	s.ConfigMaps = []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"},
		Data: map[string]string{"allow-cross-namespace-resources": "true"}}}
	cfg, problems = Build(s, DefaultOptions())
	problems = authProblems(problems)
	loc = cfg.Server("a.example.com").Locations[0]
	if len(problems) != 0 || loc.Settings.Denied != "" || loc.Settings.BasicAuth == nil {
		t.Fatalf("allowed: problems %v, location %+v", problems, loc.Settings)
	}
	if len(cfg.Files) != 1 || cfg.Files[0].Name != loc.Settings.BasicAuth.File || cfg.Files[0].ReadAtLoad || string(cfg.Files[0].Content) != "alice:{PLAIN}a\n" {
		t.Errorf("files %+v, location file %q", cfg.Files, loc.Settings.BasicAuth.File)
	}
	// An edit keeps the name (no reload), with a new content.
	sec.Data["auth"] = []byte("bob:{PLAIN}b\n")
	cfg2, _ := Build(s, DefaultOptions())
	if cfg2.Files[0].Name != cfg.Files[0].Name || string(cfg2.Files[0].Content) != "bob:{PLAIN}b\n" {
		t.Errorf("after an edit: %+v", cfg2.Files)
	}
}
