package render

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// tlsFilesBuild renders the controller ConfigMap data with secrets.
func tlsFilesBuild(t *testing.T, data map[string]string, secrets ...*corev1.Secret) (*model.Config, string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "controller"}, Data: data}
	c, ps := Build(Snapshot{ConfigMaps: []*corev1.ConfigMap{cm}, Secrets: secrets}, Options{ConfigMap: "ingress-nginx/controller"})
	return c, problemsText(ps)
}

func dhSecret(t *testing.T, ns, name, key string, content []byte) *corev1.Secret {
	t.Helper()
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{key: content}}
}

func TestDHParamFile(t *testing.T) {
	pemData, err := os.ReadFile("../../testdata/render/configmap-dhparam/files/tls/dhparam-n201373f471095adae6174455-f4e04ca4ebd4.pem")
	if err != nil {
		t.Fatal(err)
	}
	// A name without namespace is in the ConfigMap's namespace.
	for _, ref := range []string{"ingress-nginx/dh", "dh"} {
		c, problems := tlsFilesBuild(t, map[string]string{"ssl-dh-param": ref}, dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", pemData))
		f := c.File(c.Global.TLS.DHParamFile)
		if problems != "" || f == nil || string(f.Content) != string(pemData) || !f.ReadAtLoad || f.Private ||
			!strings.HasPrefix(f.Name, "tls/dhparam-") || !model.ValidFileName(f.Name) {
			t.Errorf("%s: file %+v, problems %s", ref, f, problems)
		}
	}
	// Another content is another name (nginx reads the file at load).
	c1, _ := tlsFilesBuild(t, map[string]string{"ssl-dh-param": "dh"}, dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", pemData))
	c2, _ := tlsFilesBuild(t, map[string]string{"ssl-dh-param": "dh"}, dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", append([]byte("\n"), pemData...)))
	if c1.Global.TLS.DHParamFile == c2.Global.TLS.DHParamFile {
		t.Errorf("same name for two contents: %s", c1.Global.TLS.DHParamFile)
	}
	for name, tc := range map[string]struct {
		secret *corev1.Secret
		want   string
	}{
		"missing":       {nil, "Secret ingress-nginx/dh not found"},
		"other name":    {dhSecret(t, "default", "dh", "dhparam.pem", pemData), "Secret ingress-nginx/dh not found"},
		"no key":        {dhSecret(t, "ingress-nginx", "dh", "dhparam", pemData), "Secret ingress-nginx/dh has no key dhparam.pem"},
		"bad PEM":       {dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", []byte("ssl_dhparam /etc/passwd;")), "invalid dhparam.pem of Secret ingress-nginx/dh: it holds no PEM block"},
		"certificate":   {dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", []byte(strings.ReplaceAll(string(pemData), "DH PARAMETERS", "CERTIFICATE"))), `not "DH PARAMETERS"`},
		"empty content": {dhSecret(t, "ingress-nginx", "dh", "dhparam.pem", []byte{}), "holds no PEM block"},
	} {
		var secrets []*corev1.Secret
		if tc.secret != nil {
			secrets = append(secrets, tc.secret)
		}
		c, problems := tlsFilesBuild(t, map[string]string{"ssl-dh-param": "dh"}, secrets...)
		if c.Global.TLS.DHParamFile != "" || len(c.Files) != 0 || !strings.Contains(problems, tc.want) ||
			!strings.Contains(problems, "data[ssl-dh-param]") || !strings.Contains(problems, "no DHE cipher suite") {
			t.Errorf("%s: file %q, problems %s", name, c.Global.TLS.DHParamFile, problems)
		}
	}
}

func TestSessionTicketKeyFile(t *testing.T) {
	const key = "yw01WGUKNM4MeUCS6H27izw/Nzr4UKammbwNOub/sw07ecQk4lenu+n66eEzrn+X" // 48 bytes
	c, problems := tlsFilesBuild(t, map[string]string{"ssl-session-tickets": "true", "ssl-session-ticket-key": key})
	f := c.File(c.Global.TLS.SessionTicketKeyFile)
	if problems != "" || f == nil || len(f.Content) != 48 || !f.Private || !f.ReadAtLoad || !model.ValidFileName(f.Name) {
		t.Fatalf("file %+v, problems %s", f, problems)
	}
	if strings.Contains(f.Name, key[:8]) {
		t.Errorf("the name shows the key: %s", f.Name)
	}
	// Tickets off (the default): the key is checked but no file is made.
	c, problems = tlsFilesBuild(t, map[string]string{"ssl-session-ticket-key": key})
	if problems != "" || c.Global.TLS.SessionTicketKeyFile != "" || len(c.Files) != 0 {
		t.Errorf("tickets off: file %q %d files, problems %s", c.Global.TLS.SessionTicketKeyFile, len(c.Files), problems)
	}
	// A bad key is a Problem, and nginx keeps its own key.
	c, problems = tlsFilesBuild(t, map[string]string{"ssl-session-tickets": "true", "ssl-session-ticket-key": key[:40] + `";}`})
	if c.Global.TLS.SessionTicketKeyFile != "" || len(c.Files) != 0 || !strings.Contains(problems, "data[ssl-session-ticket-key]") || !strings.Contains(problems, "48 or 80") {
		t.Errorf("bad key: file %q, problems %s", c.Global.TLS.SessionTicketKeyFile, problems)
	}
}
