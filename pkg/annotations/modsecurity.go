package annotations

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ModSecurity per Ingress (enable-modsecurity, enable-owasp-core-rules,
// modsecurity-transaction-id), as ingress-nginx writes them in each
// location: on with the controller's fixed rules when the ConfigMap's
// enable-modsecurity is off, "false" turning the ConfigMap's off, the
// Core Rule Set for these locations, the transaction id. Rules of the
// user's (modsecurity-snippet) stay refused as a snippet.

const kindTransactionID valueKind = `text of letters, digits, "_-.:" and nginx variables ($request_id)`

// transactionIDVariables are the nginx variables a transaction id may
// read: each exists in every nginx, so nginx -t never fails on one.
var transactionIDVariables = []string{
	"connection", "connection_requests", "hostname", "msec", "pid", "remote_addr", "remote_port",
	"request_id", "server_addr", "server_port",
}

// modSecurityAnnotations are the annotations of this family, sorted by
// name.
var modSecurityAnnotations = []annotationSpec{
	{Name: "enable-modsecurity", Kind: kindBool, Default: "ConfigMap enable-modsecurity", Description: `ModSecurity for the Ingress's locations with the controller's rules (DetectionOnly), when the ConfigMap's enable-modsecurity is off; "false" turns the ConfigMap's off for them (nginx module libnginx-mod-http-modsecurity).`,
		set: func(s *annotationState, v string) error {
			b, err := valueBool(v)
			if err == nil {
				m := locationModSecurity(s)
				m.Enable, m.EnableSet = b, true
			}
			return err
		}},
	{Name: "enable-owasp-core-rules", Kind: kindBool, Default: "false", Description: "The OWASP Core Rule Set (Debian's modsecurity-crs) for the Ingress's locations, where ModSecurity is on (this Ingress's enable-modsecurity or the ConfigMap's).",
		set: func(s *annotationState, v string) error {
			b, err := valueBool(v)
			if err == nil {
				locationModSecurity(s).OWASPRules = b
			}
			return err
		}},
	{Name: "modsecurity-transaction-id", Kind: kindTransactionID, Description: "ModSecurity's transaction id of each request (modsecurity_transaction_id), where ModSecurity is on, e.g. $request_id.",
		set: func(s *annotationState, v string) error {
			id, err := valueTransactionID(v)
			if err == nil {
				locationModSecurity(s).TransactionID = id
			}
			return err
		}},
}

func locationModSecurity(s *annotationState) *model.LocationModSecurity {
	if s.out.Location.ModSecurity == nil {
		s.out.Location.ModSecurity = &model.LocationModSecurity{}
	}
	return s.out.Location.ModSecurity
}

// valueTransactionID checks a transaction id: 1 to 256 characters of
// letters, digits, "_-.:" and "$name" of transactionIDVariables.
func valueTransactionID(v string) (string, error) {
	if v == "" || len(v) > 256 {
		return "", errors.New("must be 1 to 256 characters")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':':
		case c == '$':
			j := i + 1
			for j < len(v) && (v[j] >= 'a' && v[j] <= 'z' || v[j] >= '0' && v[j] <= '9' || v[j] == '_') {
				j++
			}
			if name := v[i+1 : j]; !slices.Contains(transactionIDVariables, name) {
				return "", fmt.Errorf("reads $%s: only %v may be read", name, transactionIDVariables)
			}
			i = j - 1
		default:
			return "", fmt.Errorf("must be letters, digits, \"_-.:\" and nginx variables (found %q)", c)
		}
	}
	return v, nil
}
