package render

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// resolveTLSFiles makes the files of the ConfigMap's ssl-dh-param and
// ssl-session-ticket-key (controller is the ConfigMap). Both are read by
// the nginx master at load, so their names carry a digest of the content:
// a new content changes nginx.conf and nginx reloads. A Secret that cannot
// be used is a Problem and nginx.conf has no ssl_dhparam: one bad value
// never stops the reloads of every tenant.
func (b *builder) resolveTLSFiles(controller model.ObjectRef) {
	t := &b.global.TLS
	if ref := t.DHParamSecret; ref.Name != "" {
		if ref.Namespace == "" {
			ref.Namespace = controller.Namespace
		}
		ref.Kind = "Secret"
		field := annotations.ConfigField("ssl-dh-param")
		const without = "nginx runs without DH parameters (no DHE cipher suite; ECDHE and TLS 1.3 key exchanges are used)"
		sec := b.secrets[nsName{ref.Namespace, ref.Name}]
		switch {
		case sec == nil:
			b.problem(controller, field, "Secret %s not found; %s", ref, without)
		case sec.Data[annotations.DHParamKey] == nil:
			b.problem(controller, field, "Secret %s has no key %s; %s", ref, annotations.DHParamKey, without)
		default:
			pemData := sec.Data[annotations.DHParamKey]
			if _, err := annotations.ParseDHParam(pemData); err != nil {
				b.problem(controller, field, "invalid %s of Secret %s: it %v; %s", annotations.DHParamKey, ref, err, without)
				break
			}
			t.DHParamFile = b.addFile(model.File{
				Name:       "tls/dhparam-" + secretFileID(sec) + "-" + contentDigest(pemData) + ".pem",
				Content:    pemData,
				ReadAtLoad: true,
				Secret:     ref,
			})
		}
	}
	if len(t.SessionTicketKey) > 0 && t.SessionTickets {
		t.SessionTicketKeyFile = b.addFile(model.File{
			Name:       "tls/ticket-" + contentDigest(t.SessionTicketKey) + ".key",
			Content:    t.SessionTicketKey,
			ReadAtLoad: true,
			Private:    true,
			Secret:     controller,
		})
	}
}
