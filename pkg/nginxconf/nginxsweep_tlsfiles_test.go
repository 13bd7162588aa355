package nginxconf

import (
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sweep values of ssl-dh-param and ssl-session-ticket-key (render makes
// their files; sweepWriteFiles writes them before nginx -t).

// sweepTicketKey80 and sweepTicketKey48 are random keys of 80 and 48
// bytes; the three values of ssl-session-ticket-key meet both values of
// ssl-session-tickets across the columns.
const (
	sweepTicketKey80 = "0NGgd7Rf412Jo5Ms2fU5KjsEt97lObSENY5N8ywPtPX0LVuWyFHbsOErxQ0Mp0PHXv6UmAJUzl7VAYGCi7ElDtDye8ZgFNhL108KKhlMHNg="
	sweepTicketKey48 = "yw01WGUKNM4MeUCS6H27izw/Nzr4UKammbwNOub/sw07ecQk4lenu+n66eEzrn+X"
)

var sweepTLSFileKeys = map[string][]string{
	"ssl-dh-param":           {"ingress-nginx/sweep-dhparam", "sweep-dhparam"},
	"ssl-session-ticket-key": {sweepTicketKey80, sweepTicketKey48, sweepTicketKey80},
}

// sweepTLSFileSecrets is the Secret of ssl-dh-param: the 2048-bit
// parameters of the golden configmap-dhparam (made by openssl dhparam).
func sweepTLSFileSecrets() []*corev1.Secret {
	paths, _ := filepath.Glob("../../testdata/render/configmap-dhparam/files/tls/dhparam-*.pem")
	if len(paths) != 1 {
		panic("want one dhparam file in testdata/render/configmap-dhparam/files/tls")
	}
	pemData, err := os.ReadFile(paths[0])
	if err != nil {
		panic(err)
	}
	return []*corev1.Secret{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "sweep-dhparam"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"dhparam.pem": pemData},
	}}
}
