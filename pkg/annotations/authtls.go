package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Client certificate authentication (auth-tls-*): nginx asks HTTPS clients
// of the host for a certificate signed by the CA of auth-tls-secret. It is
// a setting of the host (ssl_client_certificate and ssl_verify_client in
// its server block): the oldest Ingress of the host with auth-tls-secret
// decides it, as in ingress-nginx (render). A classic server block's nginx
// reads the CA and the CRL when it loads nginx.conf, so a new CA in the
// Secret takes effect with a reload (the file name carries the content's
// digest: see model.File); the Lua router reads the CA file at the TLS
// handshake (lua/client_auth.lua), so there it is a push.

const (
	defaultAuthTLSVerifyClient = "on"
	defaultAuthTLSVerifyDepth  = 1
)

// authTLSState stages the auth-tls annotations until finishAuthTLS.
type authTLSState struct {
	tlsSecret      *model.ObjectRef
	tlsSecretGiven bool
	verifyClient   string
	verifyDepth    int
	errorPage      string
	passCert       bool
	matchCN        string
	matchCNInvalid bool
	tlsOthers      []string // the other auth-tls-* annotations given
}

// other records an auth-tls annotation given with a value that would
// change something: without auth-tls-secret it is a Problem.
func (st *authTLSState) other(name string) { st.tlsOthers = append(st.tlsOthers, name) }

// authTLSAnnotations are the annotations of this family, sorted by name.
var authTLSAnnotations = []annotationSpec{
	{Name: "auth-tls-error-page", Kind: kindURL, Description: "Where a client whose certificate fails verification goes: an http(s) URL (a 302), or a path of the host (nginx's internal redirect: the request becomes a GET of that path); without it nginx answers 400.",
		set: func(s *annotationState, v string) error {
			s.authTLSState.other("auth-tls-error-page")
			p, err := valueErrorPage(v)
			if err == nil {
				s.errorPage = p
			}
			return err
		}},
	{Name: "auth-tls-match-cn", Kind: kindRegexp, Description: `Regular expression, starting with "CN=", that the subject of the client certificate must match, else 403.`,
		OnInvalid: "every request to the Ingress's paths answers 503 until it is fixed (fail closed: the check asked for cannot be made)",
		set: func(s *annotationState, v string) error {
			s.authTLSState.other("auth-tls-match-cn")
			re, err := valueMatchCN(v)
			if err != nil {
				s.matchCNInvalid = true
				return err
			}
			s.matchCN = re
			return nil
		}},
	{Name: "auth-tls-pass-certificate-to-upstream", Kind: kindBool, Default: "false", Description: "Send the client certificate (URL-encoded PEM) to the backend in the ssl-client-cert header.",
		set: func(s *annotationState, v string) error {
			b, err := valueBool(v)
			if err == nil {
				s.passCert = b
			}
			if err != nil || b {
				s.authTLSState.other("auth-tls-pass-certificate-to-upstream")
			}
			return err
		}},
	{Name: "auth-tls-secret", Kind: kindSecretRef, Description: "Secret holding ca.crt, the CA bundle that client certificates must chain to, and optionally ca.crl; another namespace only with the ConfigMap's allow-cross-namespace-resources. A setting of the whole host (the oldest Ingress with it decides). Only HTTPS asks for a certificate: give the host a tls section (ssl-redirect then sends plain HTTP to HTTPS). With --routing=lua a CA or CRL change is dynamic (the Lua router reads them at the handshake); with --routing=nginx it reloads nginx (nginx reads them at load).",
		OnInvalid: authFailClosed,
		set: func(s *annotationState, v string) error {
			s.tlsSecretGiven = true
			ref, err := valueSecretRef(v)
			if err == nil {
				s.tlsSecret = &ref
			}
			return err
		}},
	{Name: "auth-tls-verify-client", Kind: kindEnum, Default: defaultAuthTLSVerifyClient, Description: `"on" (a valid certificate is required), "optional", "optional_no_ca" (asked for; the backend gets the verification result) or "off".`,
		set: func(s *annotationState, v string) error {
			t, err := valueOneOf(v, false, "on", "off", "optional", "optional_no_ca")
			if err == nil {
				s.verifyClient = t
			}
			if t != defaultAuthTLSVerifyClient {
				s.authTLSState.other("auth-tls-verify-client")
			}
			return err
		}},
	{Name: "auth-tls-verify-depth", Kind: kindInt, Default: "1", Description: "Largest number of intermediate certificates between the client certificate and the CA.",
		set: func(s *annotationState, v string) error {
			n, err := valueInt(v, 1, 100)
			if err == nil {
				s.verifyDepth = n
			}
			if n != defaultAuthTLSVerifyDepth {
				s.authTLSState.other("auth-tls-verify-depth")
			}
			return err
		}},
}

// finishAuthTLS stages the client certificate authentication of the
// Ingress in Location.ClientAuth; render moves it to the server.
func (s *annotationState) finishAuthTLS(ing model.ObjectRef) []model.Problem {
	st := &s.authTLSState
	var problems []model.Problem
	if !st.tlsSecretGiven {
		for _, name := range st.tlsOthers {
			problems = append(problems, model.Problemf(ing, Field(name), "ignored: auth-tls-secret is not set, so no client certificate is asked"))
		}
		return problems
	}
	if st.tlsSecret == nil {
		s.deny("auth-tls-secret is invalid")
		return problems
	}
	if st.matchCNInvalid {
		s.deny("auth-tls-match-cn is invalid")
	}
	ca := &model.ClientAuth{
		Secret:          *st.tlsSecret,
		Verify:          defaultAuthTLSVerifyClient,
		Depth:           defaultAuthTLSVerifyDepth,
		ErrorPage:       st.errorPage,
		PassCertificate: st.passCert,
		MatchCN:         st.matchCN,
		Ingress:         ing,
	}
	if st.verifyClient != "" {
		ca.Verify = st.verifyClient
	}
	if st.verifyDepth > 0 {
		ca.Depth = st.verifyDepth
	}
	s.out.Location.ClientAuth = ca
	return problems
}

// valueErrorPage checks auth-tls-error-page: an absolute http(s) URL
// (nginx redirects with 302) or a path (an internal redirect), with none
// of the characters nginx would interpret ('$' would be a variable).
func valueErrorPage(v string) (string, error) {
	if strings.HasPrefix(v, "/") {
		return valuePath(v, true)
	}
	return valueRedirectURL(v)
}

// valueMatchCN checks auth-tls-match-cn: a regular expression that
// starts with "CN=", as ingress-nginx documents, read alike by Go and by
// nginx's PCRE2 (CVE-2025-1097: the value used to reach nginx.conf
// unchecked). Quotes, ';', braces, backquotes and control characters are
// refused outright: they have no use in a CN pattern.
func valueMatchCN(v string) (string, error) {
	if !strings.HasPrefix(v, "CN=") {
		return "", errors.New(`must start with "CN=" (e.g. "CN=client" or "CN=(alice|bob)$")`)
	}
	if len(v) > 1024 {
		return "", errors.New("is longer than 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < ' ' || c >= 0x7f:
			return "", fmt.Errorf("must be visible ASCII (found %q)", c)
		case strings.IndexByte("\"'`;{}", c) >= 0:
			return "", fmt.Errorf("must not contain any of \" ' ` ; { } (found %q)", c)
		}
	}
	if err := CheckRegex(v); err != nil {
		return "", fmt.Errorf("must be a valid regular expression: %v", err)
	}
	return v, nil
}
