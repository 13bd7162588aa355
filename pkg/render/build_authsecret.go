package render

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The Secrets of annotations: auth-secret (basic authentication),
// auth-tls-secret (client certificates) and proxy-ssl-secret (TLS towards
// the backend). resolveSecrets reads each Secret once per Ingress, checks
// its content, makes the Files nginx reads (model.File: names from the
// Secret's UID, never from a value of the object) and fills their names in
// the Ingress's settings. A Secret that cannot be used (absent, in another
// namespace without allow-cross-namespace-resources, without the keys or
// with content nginx cannot read) is a Problem and the Ingress's paths
// fail closed (503, Location.Denied), as ingress-nginx denies them.

// secretFailClosed ends the Problem of a Secret that cannot be used.
const secretFailClosed = "every request to the Ingress's paths answers 503 until it is fixed (fail closed, as in ingress-nginx)"

// resolveSecrets completes the Secret-backed settings of the Ingress ing.
func (b *builder) resolveSecrets(ing model.ObjectRef, ann *annotations.Ingress) {
	st := &ann.Location
	if ba := st.BasicAuth; ba != nil {
		if f, ok := b.basicAuthFile(ing, ba); ok {
			ba.File = f
		} else {
			st.BasicAuth = nil
			b.deny(st, "auth-secret cannot be used")
		}
	}
	if ca := st.ClientAuth; ca != nil {
		if b.clientAuthFiles(ing, ca) {
			ca.Ingress = ing
		} else {
			st.ClientAuth = nil
			b.deny(st, "auth-tls-secret cannot be used")
		}
	}
	if ps := st.ProxySSL; ps != nil {
		if !b.proxySSLFiles(ing, ps) {
			st.ProxySSL = nil
			b.deny(st, "proxy-ssl-secret cannot be used")
		}
	}
}

func (b *builder) deny(st *model.LocationSettings, reason string) {
	if st.Denied == "" {
		st.Denied = reason
	}
}

// secretFor finds the Secret ref names for ing (ref's namespace defaults
// to the Ingress's) and checks that the Ingress may use it. It records a
// Problem on the annotation and returns nil when it cannot.
func (b *builder) secretFor(ing model.ObjectRef, ann string, ref *model.ObjectRef) *corev1.Secret {
	if ref.Namespace == "" {
		ref.Namespace = ing.Namespace
	}
	ref.Kind = "Secret"
	if ref.Namespace != ing.Namespace && !b.global.AllowCrossNamespaceResources {
		b.problem(ing, annotations.Field(ann), "Secret %s is in another namespace than the Ingress, which the ConfigMap's allow-cross-namespace-resources does not allow; %s", ref, secretFailClosed)
		return nil
	}
	sec := b.secrets[nsName{ref.Namespace, ref.Name}]
	if sec == nil {
		b.problem(ing, annotations.Field(ann), "Secret %s not found; %s", ref, secretFailClosed)
		return nil
	}
	return sec
}

// secretFileID is the part of a file name that stands for the Secret:
// its UID (a Kubernetes UUID) when it has one, else a digest of its
// namespace and name (manifests read from files have no UID). Never a
// value of the object as it is.
func secretFileID(sec *corev1.Secret) string {
	uid := string(sec.UID)
	ok := uid != "" && len(uid) <= 64
	for i := 0; i < len(uid) && ok; i++ {
		c := uid[i]
		ok = c >= 'a' && c <= 'f' || c >= '0' && c <= '9' || c == '-'
	}
	if ok {
		return uid
	}
	sum := sha256.Sum256([]byte(sec.Namespace + "/" + sec.Name))
	return "n" + hex.EncodeToString(sum[:12])
}

// contentDigest is the digest of content in the name of a file that nginx
// reads at load: a new content is a new name, so nginx.conf changes.
func contentDigest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:6])
}

// addFile records a file of the config (the same name always has the same
// content: the name is made from it or from the Secret and the format).
func (b *builder) addFile(f model.File) string {
	if b.files == nil {
		b.files = map[string]model.File{}
	}
	b.files[f.Name] = f
	return f.Name
}

// basicAuthFile makes the htpasswd file of ba. Its name is stable (the
// Secret and the format): nginx opens auth_basic_user_file for every
// request that needs it, so a new content applies without a reload.
func (b *builder) basicAuthFile(ing model.ObjectRef, ba *model.BasicAuth) (string, bool) {
	sec := b.secretFor(ing, "auth-secret", &ba.Secret)
	if sec == nil {
		return "", false
	}
	var entries []htpasswdEntry
	var bad []string
	format := "file"
	if ba.Map {
		format = "map"
		entries, bad = parseAuthMap(sec.Data)
	} else {
		auth, ok := sec.Data["auth"]
		if !ok {
			b.problem(ing, annotations.Field("auth-secret"), "Secret %s has no key \"auth\" (the htpasswd lines of auth-secret-type auth-file); %s", ba.Secret, secretFailClosed)
			return "", false
		}
		entries, bad = parseAuthFile(auth)
	}
	if len(bad) > 0 {
		b.problem(ing, annotations.Field("auth-secret"), "Secret %s: %s; those users are left out", ba.Secret, strings.Join(bad, "; "))
	}
	if len(entries) == 0 {
		b.problem(ing, annotations.Field("auth-secret"), "Secret %s holds no valid user; every request to the Ingress's paths answers 401", ba.Secret)
	}
	return b.addFile(model.File{
		Name:    "auth/" + secretFileID(sec) + "-" + format + ".htpasswd",
		Content: htpasswdContent(entries),
		Secret:  ba.Secret,
	}), true
}

// clientAuthFiles makes the CA (and CRL) files of ca.
func (b *builder) clientAuthFiles(ing model.ObjectRef, ca *model.ClientAuth) bool {
	sec := b.secretFor(ing, "auth-tls-secret", &ca.Secret)
	if sec == nil {
		return false
	}
	caPEM, err := certificateBundle(sec.Data["ca.crt"])
	if err != nil {
		b.problem(ing, annotations.Field("auth-tls-secret"), "Secret %s: ca.crt %v; %s", ca.Secret, err, secretFailClosed)
		return false
	}
	ca.CAFile = b.loadFile("ca", sec, caPEM, false, ca.Secret)
	if raw, ok := sec.Data["ca.crl"]; ok {
		crl, err := crlBundle(raw)
		if err != nil {
			b.problem(ing, annotations.Field("auth-tls-secret"), "Secret %s: ca.crl %v; %s", ca.Secret, err, secretFailClosed)
			return false
		}
		ca.CRLFile = b.loadFile("crl", sec, crl, false, ca.Secret)
	}
	return true
}

// proxySSLFiles makes the client certificate and CA files of ps.
func (b *builder) proxySSLFiles(ing model.ObjectRef, ps *model.ProxySSL) bool {
	sec := b.secretFor(ing, "proxy-ssl-secret", &ps.Secret)
	if sec == nil {
		return false
	}
	crt, key := sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey]
	if len(crt) > 0 || len(key) > 0 {
		if _, err := tls.X509KeyPair(crt, key); err != nil {
			b.problem(ing, annotations.Field("proxy-ssl-secret"), "Secret %s: tls.crt and tls.key are not a certificate and its key: %v; %s", ps.Secret, err, secretFailClosed)
			return false
		}
		certPEM, _ := certificateBundle(crt)
		keyPEM, err := privateKeyPEM(key)
		if err != nil {
			b.problem(ing, annotations.Field("proxy-ssl-secret"), "Secret %s: tls.key %v; %s", ps.Secret, err, secretFailClosed)
			return false
		}
		ps.CertFile = b.loadFile("proxyssl", sec, append(certPEM, keyPEM...), true, ps.Secret)
	}
	if raw, ok := sec.Data["ca.crt"]; ok {
		caPEM, err := certificateBundle(raw)
		if err != nil {
			b.problem(ing, annotations.Field("proxy-ssl-secret"), "Secret %s: ca.crt %v; %s", ps.Secret, err, secretFailClosed)
			return false
		}
		ps.CAFile = b.loadFile("ca", sec, caPEM, false, ps.Secret)
	}
	if ps.CertFile == "" && ps.CAFile == "" {
		b.problem(ing, annotations.Field("proxy-ssl-secret"), "Secret %s has neither tls.crt and tls.key nor ca.crt; %s", ps.Secret, secretFailClosed)
		return false
	}
	if ps.Verify && ps.CAFile == "" {
		b.problem(ing, annotations.Field("proxy-ssl-verify"), "\"on\" needs a ca.crt in Secret %s to verify the backend with; %s", ps.Secret, secretFailClosed)
		return false
	}
	return true
}

// loadFile records a file that nginx reads when it loads nginx.conf: its
// name carries the digest of the content.
func (b *builder) loadFile(dir string, sec *corev1.Secret, content []byte, private bool, ref model.ObjectRef) string {
	return b.addFile(model.File{
		Name:       dir + "/" + secretFileID(sec) + "-" + contentDigest(content) + ".pem",
		Content:    content,
		ReadAtLoad: true,
		Private:    private,
		Secret:     ref,
	})
}

// certificateBundle checks PEM data holding X.509 certificates and returns
// them re-encoded (nothing but CERTIFICATE blocks reaches the file).
func certificateBundle(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("is missing or empty")
	}
	return pemBundle(data, "CERTIFICATE", "certificate", func(der []byte) error {
		_, err := x509.ParseCertificate(der)
		return err
	})
}

// crlBundle checks PEM data holding X.509 CRLs and returns them re-encoded.
func crlBundle(data []byte) ([]byte, error) {
	return pemBundle(data, "X509 CRL", "CRL", func(der []byte) error {
		_, err := x509.ParseRevocationList(der)
		return err
	})
}

// pemBundle returns the PEM blocks of data of type blockType, each checked
// by parse and re-encoded; other blocks are dropped. what names the kind in
// the errors ("holds a <what> that does not parse", "holds no PEM <what>").
func pemBundle(data []byte, blockType, what string, parse func(der []byte) error) ([]byte, error) {
	var out []byte
	rest := data
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != blockType {
			continue
		}
		if err := parse(block.Bytes); err != nil {
			return nil, fmt.Errorf("holds a %s that does not parse: %v", what, err)
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: block.Bytes})...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("holds no PEM %s", what)
	}
	return out, nil
}

// privateKeyPEM returns the first private key block of data re-encoded.
func privateKeyPEM(data []byte) ([]byte, error) {
	rest := data
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("holds no PEM private key")
		}
		if block.Type == "PRIVATE KEY" || strings.HasSuffix(block.Type, " PRIVATE KEY") {
			return pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: block.Bytes}), nil
		}
	}
}
