package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TLS towards the backend (proxy-ssl-*), for backend-protocol HTTPS (and
// GRPCS): a client certificate for the backend and the CA that its
// certificate must chain to (proxy-ssl-secret), verification, SNI, the
// protocols and ciphers. As in ingress-nginx the other proxy-ssl-*
// annotations apply only with proxy-ssl-secret, and the verification,
// protocols and ciphers only when its Secret has a ca.crt. nginx reads the
// certificate, key and CA when it loads nginx.conf: a change reloads.

const (
	defaultProxySSLCiphers     = "DEFAULT"
	defaultProxySSLProtocols   = "TLSv1.2"
	defaultProxySSLVerifyDepth = 1
)

// The kinds of values of this family.
const (
	kindDNSName valueKind = "DNS name"
	kindCiphers valueKind = "OpenSSL cipher list"
)

// proxySSLState stages the proxy-ssl annotations until finishProxySSL.
type proxySSLState struct {
	sslSecret      *model.ObjectRef
	sslSecretGiven bool
	sslVerify      bool
	sslDepth       int
	sslName        string
	sslServerName  bool
	sslProtocols   string
	sslCiphers     string
	sslOthers      []string // proxy-ssl-* given, other than the secret, with an effect
}

// proxySSLAnnotations are the annotations of this family, sorted by name.
var proxySSLAnnotations = []annotationSpec{
	{Name: "proxy-ssl-ciphers", Kind: kindCiphers, Default: defaultProxySSLCiphers, Description: "Ciphers for the connection to an HTTPS backend, in OpenSSL's format.",
		set: func(s *annotationState, v string) error {
			c, err := valueCiphers(v)
			if err == nil {
				s.sslCiphers = c
			}
			if c != defaultProxySSLCiphers {
				s.sslOthers = append(s.sslOthers, "proxy-ssl-ciphers")
			}
			return err
		}},
	{Name: "proxy-ssl-name", Kind: kindDNSName, Description: "Name checked in the backend's certificate and sent by SNI (default: the backend's address).",
		set: func(s *annotationState, v string) error {
			s.sslOthers = append(s.sslOthers, "proxy-ssl-name")
			n, err := valueHostname(v, false)
			if err == nil {
				s.sslName = n
			}
			return err
		}},
	{Name: "proxy-ssl-protocols", Kind: kindTokenList, Default: defaultProxySSLProtocols, Description: "TLS versions for the connection to an HTTPS backend: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3, separated by spaces.",
		set: func(s *annotationState, v string) error {
			p, err := valueSSLProtocols(v)
			if err == nil {
				s.sslProtocols = p
			}
			if p != defaultProxySSLProtocols {
				s.sslOthers = append(s.sslOthers, "proxy-ssl-protocols")
			}
			return err
		}},
	{Name: "proxy-ssl-secret", Kind: kindSecretRef, Description: "Secret with tls.crt and tls.key (a client certificate presented to an HTTPS backend) and/or ca.crt (the CA the backend's certificate must chain to); another namespace only with the ConfigMap's allow-cross-namespace-resources.",
		OnInvalid: "every request to the Ingress's paths answers 503 until it is fixed (fail closed, as in ingress-nginx)",
		set: func(s *annotationState, v string) error {
			s.sslSecretGiven = true
			ref, err := valueSecretRef(v)
			if err == nil {
				s.sslSecret = &ref
			}
			return err
		}},
	{Name: "proxy-ssl-server-name", Kind: kindOnOff, Default: "off", Description: "Send the name (proxy-ssl-name, else the backend's address) by SNI to an HTTPS backend.",
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.sslServerName = b
				if b {
					s.sslOthers = append(s.sslOthers, "proxy-ssl-server-name")
				}
			}
			return err
		}},
	{Name: "proxy-ssl-verify", Kind: kindOnOff, Default: "off", Description: "Verify the certificate of an HTTPS backend against the ca.crt of proxy-ssl-secret.",
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.sslVerify = b
				if b {
					s.sslOthers = append(s.sslOthers, "proxy-ssl-verify")
				}
			}
			return err
		}},
	{Name: "proxy-ssl-verify-depth", Kind: kindInt, Default: "1", Description: "Largest number of intermediate certificates between the backend's certificate and the CA.",
		set: func(s *annotationState, v string) error {
			n, err := valueInt(v, 1, 100)
			if err == nil {
				s.sslDepth = n
			}
			if n != defaultProxySSLVerifyDepth {
				s.sslOthers = append(s.sslOthers, "proxy-ssl-verify-depth")
			}
			return err
		}},
}

// finishProxySSL sets the location's backend TLS settings.
func (s *annotationState) finishProxySSL(ing model.ObjectRef) []model.Problem {
	st := &s.proxySSLState
	var problems []model.Problem
	if !st.sslSecretGiven {
		// "off" for proxy-ssl-verify and proxy-ssl-server-name changes
		// nothing and is no Problem.
		for _, name := range st.sslOthers {
			problems = append(problems, model.Problemf(ing, Field(name), "ignored: proxy-ssl-secret is not set (as in ingress-nginx, the proxy-ssl-* settings need it)"))
		}
		return problems
	}
	if st.sslSecret == nil {
		s.deny("proxy-ssl-secret is invalid")
		return problems
	}
	p := &model.ProxySSL{
		Secret:      *st.sslSecret,
		Verify:      st.sslVerify,
		VerifyDepth: defaultProxySSLVerifyDepth,
		Name:        st.sslName,
		ServerName:  st.sslServerName,
		Protocols:   defaultProxySSLProtocols,
		Ciphers:     defaultProxySSLCiphers,
	}
	if st.sslDepth > 0 {
		p.VerifyDepth = st.sslDepth
	}
	if st.sslProtocols != "" {
		p.Protocols = st.sslProtocols
	}
	if st.sslCiphers != "" {
		p.Ciphers = st.sslCiphers
	}
	s.out.Location.ProxySSL = p
	return problems
}

// sslProtocols are the protocol names nginx 1.22 with OpenSSL 3 takes.
var sslProtocols = []string{"TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"}

// valueSSLProtocols checks a list of TLS versions separated by spaces and
// returns it sorted, without duplicates.
func valueSSLProtocols(v string) (string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range strings.Fields(v) {
		ok := false
		for _, known := range sslProtocols {
			if p == known {
				ok = true
			}
		}
		if !ok {
			return "", fmt.Errorf("must be TLS versions separated by spaces, each one of %s (found %s)", strings.Join(sslProtocols, ", "), ValueQuote(p))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "", errors.New("holds no TLS version")
	}
	sort.Strings(out)
	return strings.Join(out, " "), nil
}

// valueCiphers checks an OpenSSL cipher list: letters, digits and
// + : _ - ! = @ . (ingress-nginx's set, with the = @ . of "@SECLEVEL=1").
func valueCiphers(v string) (string, error) {
	if len(v) > 1024 {
		return "", errors.New("is longer than 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+:_-!=@.", c) >= 0) {
			return "", fmt.Errorf("must be an OpenSSL cipher list (letters, digits and + : _ - ! = @ .; found %q)", c)
		}
	}
	return v, nil
}
