package annotations

import (
	"errors"
	"fmt"
	"strings"
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
// Then that it selects a cipher OpenSSL knows (cipherListSelects).
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
	if err := cipherListSelects(v); err != nil {
		return "", err
	}
	return v, nil
}

// cipherListSelects refuses a list that OpenSSL would take no cipher of
// (SSL_CTX_set_cipher_list fails, and so does nginx -t for a classic
// server; the Lua router's handshake refuses the host's entry): one
// without a selecting element, or whose selecting elements are all
// cipher names (upper case, digits, '-' or '_': "ECDHE-RSA-AES128-GCM-SHA25",
// a TLS 1.3 suite) that OpenSSL does not have. An element it cannot judge
// (an alias such as HIGH or kEECDH+AESGCM) lets the list through, as
// OpenSSL ignores the names it does not know beside one it does.
func cipherListSelects(v string) error {
	var unknown []string
	for _, e := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		if e == "" || strings.ContainsAny(e[:1], "!-+@") {
			continue // an exclusion, a move or a command: selects nothing
		}
		if !looksLikeCipherName(e) || opensslCipherNames[e] {
			return nil
		}
		unknown = append(unknown, e)
	}
	if len(unknown) == 0 {
		return errors.New("must select a cipher: it only excludes (OpenSSL takes no cipher of it)")
	}
	return fmt.Errorf("selects no cipher OpenSSL knows: %s (TLS 1.2 names as `openssl ciphers -v` lists them; TLS 1.3's suites are not set by ssl-ciphers)", strings.Join(unknown, ", "))
}

// looksLikeCipherName says whether e is written as one cipher's name
// rather than an alias: upper-case letters, digits, '-' and '_', with a
// '-' or '_' (aliases have neither: HIGH, AESGCM, kEECDH, TLSv1.2).
func looksLikeCipherName(e string) bool {
	if !strings.ContainsAny(e, "-_") {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
