package annotations

import (
	"errors"
	"fmt"
)

// ssl-ciphers and ssl-prefer-server-ciphers: the TLS ciphers of the
// Ingress's hosts (their server blocks), as in ingress-nginx. The first
// Ingress (oldest) of a host to set one wins; render reports a younger one
// that disagrees.

// sslCipherAnnotations are the annotations of this family, sorted by name.
var sslCipherAnnotations = []annotationSpec{
	{Name: "ssl-ciphers", Kind: kindCipherList, Default: "ConfigMap ssl-ciphers", Description: `OpenSSL cipher list of the Ingress's hosts (TLS 1.2 and below), e.g. "ECDHE-RSA-AES128-GCM-SHA256:!aNULL".`,
		set: annString(valueCipherList, func(s *annotationState) *string { return &s.out.SSLCiphers })},
	{Name: "ssl-prefer-server-ciphers", Kind: kindBool, Description: `"true": the server's cipher order wins over the client's (ssl_prefer_server_ciphers on) for the Ingress's hosts.`,
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.SSLPreferServerCiphers })},
}

// kindCipherList is the kind of an OpenSSL cipher list.
const kindCipherList valueKind = "OpenSSL cipher list"

// valueCipherList checks an OpenSSL cipher string: the characters of
// OpenSSL's cipher list syntax only (names, "+", "-", "!", "@", "=" and
// separators ":" and ","), as ingress-nginx's ^[A-Za-z0-9+:_\-!]*$ plus the
// "@STRENGTH" / "@SECLEVEL=n" forms. Nothing an nginx token could end on.
func valueCipherList(v string) (string, error) {
	if len(v) > 1024 {
		return "", errors.New("is longer than 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '!' || c == ':' || c == '_' || c == '@' || c == '=' || c == ',' || c == '.') {
			return "", fmt.Errorf("must be an OpenSSL cipher list (letters, digits and + - ! : _ @ = , .; found %q)", c)
		}
	}
	return v, nil
}
