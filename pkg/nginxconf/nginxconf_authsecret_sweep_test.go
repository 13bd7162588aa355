package nginxconf

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// The sweep of the Secret-backed annotations (basic auth, auth-tls,
// proxy-ssl): the Secrets they name (sweepAuthSecrets) and the files
// nginx -t reads (sweepWriteFiles).
var _ = func() bool {
	basic := []string{"auth-type", "basic", "auth-secret", "users"}
	ca := []string{"auth-tls-secret", "ca"}
	ssl := []string{"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend"}
	realm := strings.Repeat("Realm !#%&()*+,-./:;<=>?@[]^_`{|}~ ", 8)[:256]
	for name, e := range map[string]sweepEntry{
		"auth-type":                             {values: []string{"basic"}, needs: []string{"auth-secret", "users"}},
		"auth-secret":                           {values: []string{"users", "sweep/users"}, needs: []string{"auth-type", "basic"}},
		"auth-secret-type":                      {values: []string{"auth-file"}, needs: basic},
		"auth-realm":                            {values: []string{"Team", realm, "'single'"}, needs: basic},
		"auth-tls-secret":                       {values: []string{"ca", "sweep/ca"}},
		"auth-tls-error-page":                   {values: []string{"https://e.example/x?y=z", "/cert-error", sweepURL2048}, needs: ca},
		"auth-tls-match-cn":                     {values: []string{"CN=a", `CN=(alice|bob\.example)$`, "CN=(" + strings.Repeat("a|", 500) + "b)"}, needs: ca},
		"auth-tls-pass-certificate-to-upstream": {values: []string{"true", "false"}, needs: ca},
		"auth-tls-verify-client":                {values: []string{"on", "off", "optional", "optional_no_ca"}, needs: ca},
		"auth-tls-verify-depth":                 {values: []string{"1", "100"}, needs: ca},
		"proxy-ssl-secret":                      {values: []string{"backend", "sweep/backend"}, needs: []string{"backend-protocol", "HTTPS"}},
		"proxy-ssl-ciphers":                     {values: []string{"DEFAULT", "HIGH:!aNULL:@SECLEVEL=1", "ECDHE-RSA-AES128-GCM-SHA256:" + strings.Repeat("AES128-SHA:", 80) + "AES256-SHA"}, needs: ssl},
		"proxy-ssl-name":                        {values: []string{"b.example", hostOfLength(253)}, needs: ssl},
		"proxy-ssl-protocols":                   {values: []string{"TLSv1.2", "TLSv1 TLSv1.1 TLSv1.2 TLSv1.3"}, needs: ssl},
		"proxy-ssl-server-name":                 {values: []string{"on", "off"}, needs: ssl},
		"proxy-ssl-verify":                      {values: []string{"on", "off"}, needs: ssl},
		"proxy-ssl-verify-depth":                {values: []string{"1", "100"}, needs: ssl},
	} {
		sweepAnnotations[name] = e
	}
	sweepConfigKeys["allow-cross-namespace-resources"] = []string{"false", "true"}
	return true
}()

var sweepAuthSecretsOnce = sync.OnceValue(func() []*corev1.Secret {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sweep CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	caCert, _ := x509.ParseCertificate(der)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	crlDER, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: time.Now().Add(-time.Hour), NextUpdate: time.Now().Add(time.Hour)}, caCert, key)
	if err != nil {
		panic(err)
	}
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	secret := func(name string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "sweep", Name: name}, Data: data}
	}
	return []*corev1.Secret{
		secret("users", map[string][]byte{"auth": []byte("alice:{PLAIN}a\nbob:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/\n")}),
		secret("ca", map[string][]byte{"ca.crt": caPEM, "ca.crl": pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: crlDER})}),
		// The CA as its own client certificate: a key pair nginx loads.
		secret("backend", map[string][]byte{"tls.crt": caPEM, "tls.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), "ca.crt": caPEM}),
	}
})

// sweepAuthSecrets are the Secrets the sweep's annotations name.
func sweepAuthSecrets() []*corev1.Secret { return sweepAuthSecretsOnce() }

// sweepWriteFiles writes the files cfg names under the prefix of in, as
// the controller does before nginx -t.
func sweepWriteFiles(in *nginx.Instance, cfg *model.Config) error {
	files := make([]nginx.File, 0, len(cfg.Files))
	for _, f := range cfg.Files {
		files = append(files, nginx.File{Name: f.Name, Data: f.Content, WorkerReads: !f.ReadAtLoad})
	}
	return in.WriteFiles(context.Background(), files)
}
