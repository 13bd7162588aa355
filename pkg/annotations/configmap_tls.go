package annotations

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TLS of the HTTPS servers: protocols, ciphers, sessions, curves. Every
// value here is global: one that nginx -t refuses would stop every reload
// of every tenant, so each is checked against what nginx 1.22 with OpenSSL
// 3 accepts (the sweep test in pkg/nginxconf runs nginx -t on them).

// tlsConfigKeys are the ConfigMap keys of this family, sorted by key.
var tlsConfigKeys = []configKeySpec{
	{Key: "enable-ocsp", Kind: kindBool, Default: "false", Description: `OCSP stapling: each served certificate whose Secret's tls.crt holds its issuer after it, and whose Authority Information Access names a plain http OCSP responder, gets the responder's signed status stapled to the TLS handshake. A handshake never waits for the responder: the first one starts a fetch in the background (host names resolved through the nameservers of the controller's /etc/resolv.conf), the next ones staple the validated, cached response (a shared 5m cache: refreshed hourly and before its nextUpdate, never stapled after it; a failed fetch is retried after a minute, and the handshakes go on without a staple). Changing it reloads nginx.`,
		set: configBool(func(g *model.Global) *bool { return &g.TLS.EnableOCSP })},
	{Key: "ssl-buffer-size", Kind: kindBufferSize, Default: "4k", Description: "Size of the buffer for sending TLS data (1 to 16k; small helps the time to first byte).",
		set: configString(valueSSLBufferSize, func(g *model.Global) *string { return &g.TLS.BufferSize })},
	{Key: "ssl-ciphers", Kind: kindServerCipherList, Default: model.DefaultSSLCiphers, Description: "OpenSSL cipher list of TLS 1.2 and below for every HTTPS server (ssl_prefer_server_ciphers on), as ingress-nginx: at least one modern cipher or group (HIGH, ECDHE, AESGCM …), exclusions of weak ones only.",
		set: configString(valueGlobalCipherList, func(g *model.Global) *string { return &g.TLS.Ciphers })},
	{Key: "ssl-dh-param", Kind: kindSecretRef, NoDefault: true, Description: `Secret ("namespace/name", or "name" in the ConfigMap's namespace; type Opaque, as "kubectl create secret generic --from-file=dhparam.pem" makes it) whose key dhparam.pem holds Diffie-Hellman parameters ("openssl dhparam 2048": a prime of 2048 bits or more, as OpenSSL 3 requires) for the DHE cipher suites of every HTTPS server; a missing Secret, key or bad PEM is a Problem and nginx runs without (ECDHE and TLS 1.3 key exchanges only). A new content reloads nginx.`,
		set: func(g *model.Global, v string) error {
			ref, err := valueDHParamRef(v)
			if err == nil {
				g.TLS.DHParamSecret = ref
			}
			return err
		}},
	{Key: "ssl-early-data", Kind: kindBool, Default: "false", Description: "Accept TLS 1.3 early data (0-RTT; replayable requests).",
		set: configBool(func(g *model.Global) *bool { return &g.TLS.EarlyData })},
	{Key: "ssl-ecdh-curve", Kind: kindCurveList, Default: "auto", Description: `Curves for ECDHE: "auto" or names joined by ":" (X25519, X448, prime256v1, secp384r1, secp521r1, P-256, P-384, P-521, ffdhe2048 … ffdhe8192).`,
		set: configString(valueCurveList, func(g *model.Global) *string { return &g.TLS.ECDHCurve })},
	{Key: "ssl-protocols", Kind: kindTokenList, Default: "TLSv1.2 TLSv1.3", Description: "TLS versions of the HTTPS servers, separated by spaces: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (and SSLv2, SSLv3, which OpenSSL 3 refuses at handshake).",
		set: func(g *model.Global, v string) error {
			p, err := valueServerSSLProtocols(v)
			if err == nil {
				g.TLS.Protocols = p
			}
			return err
		}},
	{Key: "ssl-reject-handshake", Kind: kindBool, Default: "false", Description: "Refuse the TLS handshake of a name no Ingress serves, instead of serving the default certificate.",
		set: configBool(func(g *model.Global) *bool { return &g.TLS.RejectHandshake })},
	{Key: "ssl-session-cache", Kind: kindBool, Default: "true", Description: "Share a TLS session cache between the workers.",
		set: configBool(func(g *model.Global) *bool { return &g.TLS.SessionCache })},
	{Key: "ssl-session-cache-size", Kind: kindSize, Default: "10m", Description: "Size of the shared TLS session cache (64k to 1024m; about 4000 sessions per megabyte).",
		set: configString(valueSessionCacheSize, func(g *model.Global) *string { return &g.TLS.SessionCacheSize })},
	{Key: "ssl-session-ticket-key", Kind: kindSessionTicketKey, NoDefault: true, Description: `Key that encrypts TLS session tickets, the same on every replica: the base64 of 48 or 80 random bytes ("openssl rand 80 | openssl enc -A -base64"). Used only with ssl-session-tickets "true" (else nginx issues no ticket); without it each nginx makes its own key at every reload. A new key reloads nginx.`,
		set: func(g *model.Global, v string) error {
			key, err := ValueSessionTicketKey(v)
			if err == nil {
				g.TLS.SessionTicketKey = key
			}
			return err
		}},
	{Key: "ssl-session-tickets", Kind: kindBool, Default: "false", Description: "Resume TLS sessions with session tickets.",
		set: configBool(func(g *model.Global) *bool { return &g.TLS.SessionTickets })},
	{Key: "ssl-session-timeout", Kind: kindSeconds, Default: "10m", Description: `How long a TLS session may be resumed ("10m", "1h", seconds).`,
		set: func(g *model.Global, v string) error {
			if _, err := valueSeconds(v); err != nil {
				return err
			}
			g.TLS.SessionTimeout = v
			return nil
		}},
}

const (
	kindCurveList        valueKind = `"auto" or curve names joined by ":"`
	kindServerCipherList valueKind = "OpenSSL cipher list"
)

// valueServerSSLProtocols checks a list of TLS versions separated by spaces (or
// commas): each known to nginx, no repeats.
func valueServerSSLProtocols(v string) ([]string, error) {
	var out []string
	for _, p := range valueWords(v) {
		known, err := valueOneOf(p, false, "SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3")
		if err != nil {
			return nil, fmt.Errorf("entry %s %v", ValueQuote(p), err)
		}
		for _, o := range out {
			if o == known {
				return nil, fmt.Errorf("must name each TLS version once (%s twice)", known)
			}
		}
		out = append(out, known)
	}
	if len(out) == 0 {
		return nil, errors.New("must name at least one TLS version")
	}
	return out, nil
}

// valueSSLBufferSize is an nginx size from 1 byte to 16k (nginx caps the
// TLS buffer at 16k, a TLS record).
func valueSSLBufferSize(v string) (string, error) {
	n, err := valueSizeBytes(v)
	if err != nil || n < 1 || n > 16<<10 {
		return "", errors.New(`must be a size from 1 to 16k (e.g. "4k", "16k")`)
	}
	return v, nil
}

// valueSessionCacheSize is an nginx size from 64k to 1024m: a shared zone
// smaller than 8 pages fails nginx -t, and ssl_session_cache takes no "g".
func valueSessionCacheSize(v string) (string, error) {
	n, err := valueSizeBytes(v)
	if err != nil || n < 64<<10 || n > 1<<30 || strings.ContainsAny(v, "gG") {
		return "", errors.New(`must be a size from 64k to 1024m, in bytes, k or m (e.g. "10m")`)
	}
	return v, nil
}

// valueSizeBytes parses an nginx size ("512", "8k", "1m", "1g") into bytes.
func valueSizeBytes(v string) (int64, error) {
	if _, err := valueSize(v); err != nil {
		return 0, err
	}
	digits, scale := sizeSuffix(v, true)
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, err
	}
	return n * scale, nil
}

// sslCurves are the groups nginx 1.22 with OpenSSL 3 accepts in
// ssl_ecdh_curve (an unknown one fails nginx -t).
var sslCurves = []string{"P-256", "P-384", "P-521", "X25519", "X448", "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192", "prime256v1", "secp384r1", "secp521r1"}

func valueCurveList(v string) (string, error) {
	if v == "auto" {
		return v, nil
	}
	parts := strings.Split(v, ":")
	for _, p := range parts {
		if _, err := valueOneOf(p, false, sslCurves...); err != nil {
			return "", fmt.Errorf(`must be "auto" or curves joined by ":", each one of %s (found %s)`, valueOptions(sslCurves), ValueQuote(p))
		}
	}
	return v, nil
}

// Cipher lists. OpenSSL ignores names it does not know and fails only when
// the list selects no cipher at all, which fails nginx -t for every
// tenant. So a global list must select a modern cipher that its
// exclusions cannot remove: at least one element (or "+" combination) of
// strongCipherWords or a concrete ECDHE/DHE AEAD suite, and exclusions
// ("!", "-") only of weak ciphers or of concrete suites it does not select
// positively.

// strongCipherWords are OpenSSL aliases that select at least one modern
// (TLS 1.2 AEAD) cipher, which no exclusion of weakCipherWords removes.
var strongCipherWords = []string{"AES", "AES128", "AES256", "AESGCM", "ALL", "CHACHA20", "DEFAULT", "ECDHE", "ECDSA", "EECDH", "HIGH", "TLSv1.2", "aECDSA", "aRSA", "kECDHE", "kEECDH"}

// weakCipherWords are OpenSSL aliases of weak or unusual ciphers that a
// list may exclude.
var weakCipherWords = []string{"3DES", "ADH", "AECDH", "CAMELLIA", "DES", "DSS", "EXP", "EXPORT", "IDEA", "LOW", "MD5", "MEDIUM", "NULL", "PSK", "RC2", "RC4", "SEED", "SHA1", "SRP", "aDSS", "aNULL", "eNULL", "kDHE", "kEDH", "kRSA", "kPSK", "kSRP", "DHE", "EDH", "ARIA", "CCM", "CCM8", "SSLv3", "RSA", "SHA"}

// valueGlobalCipherList checks a cipher list for the whole server (see
// above): the characters of OpenSSL's cipher list syntax, then the
// elements.
func valueGlobalCipherList(v string) (string, error) {
	if len(v) > 1024 {
		return "", errors.New("must be at most 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+-!:_@=,.", c) >= 0) {
			return "", fmt.Errorf("must be an OpenSSL cipher list (letters, digits and + - ! : _ @ = , .; found %q)", c)
		}
	}
	elems := strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
	positive := map[string]bool{}
	strong := false
	noDHE := false
	for _, e := range elems {
		if n := strings.TrimLeft(e, "!-"); n != e && inList([]string{"DHE", "EDH", "kDHE", "kEDH"}, n) {
			noDHE = true
		}
	}
	for _, e := range elems {
		switch {
		case e == "@STRENGTH" || e == "@SECLEVEL=0" || e == "@SECLEVEL=1" || e == "@SECLEVEL=2":
		case strings.HasPrefix(e, "@"):
			return "", fmt.Errorf(`must hold "@STRENGTH" or "@SECLEVEL=0" to "@SECLEVEL=2" only (found %s)`, ValueQuote(e))
		case strings.HasPrefix(e, "!") || strings.HasPrefix(e, "-"):
		case strings.HasPrefix(e, "+"):
			// moves ciphers to the end: selects nothing new
		default:
			positive[e] = true
			if cipherElementStrong(e) && !(noDHE && strings.HasPrefix(e, "DHE-")) {
				strong = true
			}
		}
	}
	for _, e := range elems {
		if !(strings.HasPrefix(e, "!") || strings.HasPrefix(e, "-")) {
			continue
		}
		name := e[1:]
		if inList(weakCipherWords, name) {
			continue
		}
		if isConcreteCipher(name) && !positive[name] {
			continue
		}
		return "", fmt.Errorf("must exclude only weak ciphers (%s) or suites it does not select; %s could leave no cipher, which fails nginx -t", strings.Join(weakCipherWords, ", "), ValueQuote(e))
	}
	if !strong {
		return "", fmt.Errorf("must select at least one modern cipher: a suite such as ECDHE-RSA-AES128-GCM-SHA256 or one of %s", strings.Join(strongCipherWords, ", "))
	}
	return v, nil
}

// cipherElementStrong says whether a positive element selects a modern
// cipher: a strong alias, a "+" combination of strong aliases, or a
// concrete ECDHE/DHE AEAD suite.
func cipherElementStrong(e string) bool {
	if strings.Contains(e, "+") {
		for _, p := range strings.Split(e, "+") {
			if !inList(strongCipherWords, p) {
				return false
			}
		}
		return true
	}
	if inList(strongCipherWords, e) {
		return true
	}
	return isConcreteCipher(e) && (strings.HasPrefix(e, "ECDHE-") || strings.HasPrefix(e, "DHE-")) &&
		(strings.Contains(e, "-GCM-") || strings.HasSuffix(e, "-CHACHA20-POLY1305"))
}

// isConcreteCipher says whether e looks like one OpenSSL suite name
// (upper-case letters, digits and "-", with a "-").
func isConcreteCipher(e string) bool {
	if !strings.Contains(e, "-") {
		return false
	}
	for i := 0; i < len(e); i++ {
		c := e[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func inList(list []string, v string) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}
