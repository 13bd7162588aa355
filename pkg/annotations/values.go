package annotations

// Shared validators for annotation and ConfigMap values. Every value that a
// user writes may end up in nginx.conf or in a Lua payload, so each one is
// checked against a strict grammar here; the error of a validator says what
// is accepted and is turned into a model.Problem by the caller.
//
// The names all start with "value" so that they do not clash with the rest
// of the package.

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MaxInt32 bounds every integer value: nginx stores many of them in
	// 32-bit fields.
	MaxInt32 = 1<<31 - 1
	// ValueMaxSeconds bounds timeouts: nginx keeps them in milliseconds,
	// and 2147483 s is the most that fits 32 bits (about 24 days).
	ValueMaxSeconds = MaxInt32 / 1000
	// valueMaxLen bounds free-form values (paths, URLs, patterns).
	valueMaxLen = 2048
)

// ValueQuote renders a user value for a Problem reason: Go-quoted (so that
// control characters are visible and harmless) and cut to 80 bytes.
func ValueQuote(v string) string {
	const max = 80
	if len(v) <= max {
		return strconv.Quote(v)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return strconv.Quote(v[:cut]) + "…"
}

// valueList splits a comma separated list, trims each entry and drops the
// empty ones.
func valueList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// valueWords splits v at commas and white space, as ingress-nginx's CORS
// lists allow ("GET, POST, OPTIONS HEAD"), and drops empty entries.
func valueWords(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	})
}

// valueBool parses a boolean as ingress-nginx does (strconv.ParseBool).
func valueBool(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errors.New(`must be "true" or "false"`)
	}
	return b, nil
}

// valueOnOff parses an nginx flag, "on" or "off" in any case.
func valueOnOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, errors.New(`must be "on" or "off"`)
}

// valueInt parses a decimal integer from min to max: digits only, no sign.
func valueInt(v string, min, max int) (int, error) {
	bad := fmt.Errorf("must be a whole number from %d to %d", min, max)
	if len(v) == 0 || len(v) > 10 {
		return 0, bad
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, bad
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, bad
	}
	return n, nil
}

// valueSeconds parses a timeout: a positive whole number of seconds,
// optionally with nginx's unit "s", "m" or "h" ("60s", "5m"), returned in
// seconds. ingress-nginx's parser (strconv.Atoi) takes no unit and
// silently uses its default for "60s"; nginx reads the unit, and users
// write it meaning what nginx means, so it is taken as nginx takes it.
func valueSeconds(v string) (int, error) {
	unit := 1
	switch {
	case strings.HasSuffix(v, "s"):
		v = v[:len(v)-1]
	case strings.HasSuffix(v, "m"):
		v, unit = v[:len(v)-1], 60
	case strings.HasSuffix(v, "h"):
		v, unit = v[:len(v)-1], 3600
	}
	n, err := valueInt(v, 1, ValueMaxSeconds/unit)
	if err != nil {
		return 0, fmt.Errorf(`must be a whole number of seconds from 1 to %d, with no unit or nginx's "s", "m" or "h"`, ValueMaxSeconds)
	}
	return n * unit, nil
}

// valueOneOf returns the option that v equals; with fold, case is ignored
// and the option's own spelling is returned.
func valueOneOf(v string, fold bool, options ...string) (string, error) {
	for _, o := range options {
		if v == o || (fold && strings.EqualFold(v, o)) {
			return o, nil
		}
	}
	return "", fmt.Errorf("must be one of %s", valueOptions(options))
}

// valueOptions renders `"a", "b" or "c"`.
func valueOptions(options []string) string {
	q := make([]string, len(options))
	for i, o := range options {
		q[i] = strconv.Quote(o)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

var valueSizeRE = regexp.MustCompile(`^[0-9]{1,9}[kKmMgG]?$`)

var valueBufferSizeRE = regexp.MustCompile(`^[1-9][0-9]{0,8}[kKmM]?$`)

// valueMaxBufferSize is the largest proxy buffer nginx takes: nginx -t
// refuses a proxy_buffer_size (or proxy_buffers size) above
// proxy_max_temp_file_size, whose default is 1024m ("proxy_max_temp_file_size"
// must be equal to zero … or greater than the maximum of the value of
// "proxy_buffer_size" and one of the "proxy_buffers"): with nginx 1.22.1,
// 1024m and 1048576k pass, 1025m and 1048577k fail.
const valueMaxBufferSize = 1 << 30

// valueBufferSize checks a buffer size such as "4k" or "16k": nginx reads
// buffer sizes with ngx_parse_size, which knows no "g" suffix, a zero
// buffer fails nginx -t, and so does one above 1024m (valueMaxBufferSize).
// Any of them would stop every Ingress from loading.
func valueBufferSize(v string) (string, error) {
	bad := errors.New(`must be a buffer size from 1 byte to 1024m: digits, not 0, with an optional k or m suffix (e.g. "4k", "16k")`)
	if !valueBufferSizeRE.MatchString(v) {
		return "", bad
	}
	digits, scale := sizeSuffix(v, false)
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n*scale > valueMaxBufferSize {
		return "", bad
	}
	return v, nil
}

// valueSize checks an nginx size such as "512", "8k" or "1m".
func valueSize(v string) (string, error) {
	if !valueSizeRE.MatchString(v) {
		return "", errors.New(`must be an nginx size: 1 to 9 digits with an optional k, m or g suffix (e.g. "8k", "1m")`)
	}
	return v, nil
}

// sizeSuffix splits a non-empty nginx size into its digits and the scale
// of its k or m suffix (either case; with g, also g); a value without a
// suffix it knows is all digits, scale 1.
func sizeSuffix(v string, g bool) (digits string, scale int64) {
	switch v[len(v)-1] {
	case 'k', 'K':
		return v[:len(v)-1], 1 << 10
	case 'm', 'M':
		return v[:len(v)-1], 1 << 20
	case 'g', 'G':
		if g {
			return v[:len(v)-1], 1 << 30
		}
	}
	return v, 1
}

// valueHostname checks a DNS name per RFC 1123 and returns it in lower
// case. With wildcard, a leading "*." is allowed.
func valueHostname(v string, wildcard bool) (string, error) {
	what := "must be a DNS name (RFC 1123: labels of letters, digits and '-', separated by dots)"
	if wildcard {
		what += `, optionally starting with "*."`
	}
	name := v
	if wildcard {
		name = strings.TrimPrefix(v, "*.")
	}
	if len(v) > 253 || !valueIsDNSName(name) {
		return "", errors.New(what)
	}
	return strings.ToLower(v), nil
}

// valueIsDNSName reports whether s is an RFC 1123 host name.
func valueIsDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// ValuePort parses a TCP port, 1 to 65535.
func ValuePort(v string) (int, error) {
	return valueInt(v, 1, 65535)
}

// valueHostPort checks "host" or "host:port", host an RFC 1123 name (no
// wildcard), and returns it with the host in lower case.
func valueHostPort(v string) (string, error) {
	bad := errors.New(`must be a DNS name (RFC 1123) with an optional ":port"`)
	host, port, hasPort := strings.Cut(v, ":")
	if hasPort {
		if _, err := ValuePort(port); err != nil {
			return "", bad
		}
	}
	if !valueIsDNSName(host) {
		return "", bad
	}
	return strings.ToLower(v), nil
}

// valueForbidden are the bytes that no URL, path or header value may hold:
// they end an nginx token or string, start a block or a variable, or
// quote. Control characters and spaces are refused separately.
const valueForbidden = "\"'`\\;{}$"

// valueCheckChars refuses the empty string, control characters, whitespace, non-ASCII bytes
// and the bytes of valueForbidden (minus the ones in allow).
func valueCheckChars(v, allow string) error {
	if v == "" {
		return errors.New("is empty")
	}
	if len(v) > valueMaxLen {
		return fmt.Errorf("is longer than %d bytes", valueMaxLen)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c <= ' ' || c == 0x7f:
			return fmt.Errorf("must not contain whitespace or control characters (found %q at byte %d)", c, i)
		case c >= 0x80:
			return errors.New("must be ASCII (percent-encode other characters)")
		case strings.IndexByte(valueForbidden, c) >= 0 && strings.IndexByte(allow, c) < 0:
			return fmt.Errorf("must not contain any of %s (found %q)", valueForbiddenList(allow), c)
		}
	}
	return nil
}

// valueForbiddenList renders the forbidden characters for a message.
func valueForbiddenList(allow string) string {
	var b strings.Builder
	for i := 0; i < len(valueForbidden); i++ {
		if strings.IndexByte(allow, valueForbidden[i]) < 0 {
			b.WriteByte(valueForbidden[i])
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// valueRedirectURL checks the target of permanent-redirect and
// temporal-redirect: an absolute http or https URL with a host, no user
// information, and none of the characters nginx would interpret.
func valueRedirectURL(v string) (string, error) {
	if err := valueCheckChars(v, ""); err != nil {
		return "", err
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", errors.New("must be an absolute http or https URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Host == "" {
		return "", errors.New(`must be an absolute http or https URL with a host (e.g. "https://example.com/new")`)
	}
	if u.User != nil {
		return "", errors.New("must not contain user information (user@ or user:password@)")
	}
	if host := u.Hostname(); !valueIsDNSName(host) {
		if a, err := netip.ParseAddr(host); err != nil || a.Zone() != "" {
			return "", fmt.Errorf("must have a host that is a DNS name or an IP address (found %q)", host)
		}
	}
	if p := u.Port(); p != "" {
		if _, err := ValuePort(p); err != nil {
			return "", fmt.Errorf("must have a port from 1 to 65535 (found %q)", p)
		}
	}
	return v, nil
}

// valueIsPathChar reports the bytes allowed in paths: RFC 3986 unreserved
// and the sub-delimiters, ':', '@', '/', '?' and '%', without the quote,
// ';' and '$' that nginx would interpret.
func valueIsPathChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("-._~%!&()*+,=:@/?", c) >= 0
}

const valuePathChars = "letters, digits and -._~%!&()*+,=:@/?"

// valuePath checks a URL path (x-forwarded-prefix, app-root, cookie path).
// With slash, the path must start with "/".
func valuePath(v string, slash bool) (string, error) {
	if err := valueCheckChars(v, ""); err != nil {
		return "", err
	}
	if slash && !strings.HasPrefix(v, "/") {
		return "", errors.New(`must be a path starting with "/"`)
	}
	for i := 0; i < len(v); i++ {
		if !valueIsPathChar(v[i]) {
			return "", fmt.Errorf("must be a path made of %s (found %q)", valuePathChars, v[i])
		}
	}
	return v, nil
}

// valueRewriteTarget checks rewrite-target: a path (or URL) that may refer
// to the captures of the location regex as $1 to $9 and holds no other '$'.
func valueRewriteTarget(v string) (string, error) {
	if err := valueCheckChars(v, "$"); err != nil {
		return "", err
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '$' {
			if i+1 < len(v) && v[i+1] >= '1' && v[i+1] <= '9' {
				i++
				continue
			}
			return "", errors.New("may use '$' only for the captures $1 to $9")
		}
		if !valueIsPathChar(c) {
			return "", fmt.Errorf("must be a path made of %s and the captures $1 to $9 (found %q)", valuePathChars, c)
		}
	}
	return v, nil
}

// valueHashBy checks upstream-hash-by: nginx variables ($name or ${name})
// and literal letters, digits and _-.:/ only.
func valueHashBy(v string) (string, error) {
	bad := errors.New("must be made of nginx variables ($name or ${name}) and the literal characters letters, digits and _-.:/")
	if v == "" || len(v) > 256 {
		return "", bad
	}
	isName := func(c byte, first bool) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || (!first && c >= '0' && c <= '9')
	}
	for i := 0; i < len(v); {
		c := v[i]
		if c != '$' {
			if !isName(c, false) && strings.IndexByte("-.:/", c) < 0 {
				return "", bad
			}
			i++
			continue
		}
		i++
		braced := i < len(v) && v[i] == '{'
		if braced {
			i++
		}
		start := i
		for i < len(v) && isName(v[i], i == start) {
			i++
		}
		if i == start {
			return "", bad
		}
		if braced {
			if i >= len(v) || v[i] != '}' {
				return "", bad
			}
			i++
		}
	}
	return v, nil
}

// valueIsTokenChar reports RFC 7230 token characters, without the dollar
// sign, single quote and backquote, which nginx or a shell would interpret.
func valueIsTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("!#%&*+-.^_|~", c) >= 0
}

// valueToken checks an RFC 7230 token: a header name, a cookie name
// (RFC 6265 cookie-name is the same token) or an HTTP method.
func valueToken(v string) (string, error) {
	if v == "" || len(v) > 256 {
		return "", errors.New("must be a token of 1 to 256 characters")
	}
	for i := 0; i < len(v); i++ {
		if !valueIsTokenChar(v[i]) {
			return "", fmt.Errorf("must be a token (letters, digits and !#%%&*+-.^_|~; found %q)", v[i])
		}
	}
	return v, nil
}

// valueHeaderValue checks a value compared with a request header: visible
// ASCII and inner spaces, none of the quoting or nginx characters.
func valueHeaderValue(v string) (string, error) {
	if len(v) > 1024 {
		return "", errors.New("is longer than 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ' ':
		case c < ' ' || c >= 0x7f:
			return "", fmt.Errorf("must be visible ASCII (found %q)", c)
		case strings.IndexByte(valueForbidden, c) >= 0:
			return "", fmt.Errorf("must not contain any of %s (found %q)", valueForbiddenList(""), c)
		}
	}
	return v, nil
}

// valueRegexp checks a regular expression matched by Lua (ngx.re, the
// PCRE2 of nginx): it must hold no control characters and be read alike
// by Go's regexp and PCRE2 (CheckRegex).
func valueRegexp(v string) (string, error) {
	if len(v) > 1024 {
		return "", errors.New("is longer than 1024 bytes")
	}
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] == 0x7f {
			return "", fmt.Errorf("must not contain control characters (found %q)", v[i])
		}
	}
	if err := CheckRegex(v); err != nil {
		return "", fmt.Errorf("must be a valid regular expression: %v", err)
	}
	return v, nil
}

// valueOrigin checks one CORS origin: "*" or scheme://host[:port] with
// any URI scheme (ingress-nginx's e2e allows test://localhost and
// tauri://localhost:3000) and host a DNS name that may start with "*."
// (one wildcard label, as ingress-nginx allows). It returns the origin with the
// scheme and host in lower case.
func valueOrigin(v string) (string, error) {
	if v == "*" {
		return v, nil
	}
	bad := errors.New(`must be "*" or scheme://host[:port], e.g. "https://example.com", "https://*.example.com:8443" or "tauri://localhost"`)
	scheme, rest, ok := strings.Cut(v, "://")
	scheme = strings.ToLower(scheme)
	if !ok || !valueIsScheme(scheme) {
		return "", bad
	}
	host, port, hasPort := strings.Cut(rest, ":")
	if hasPort {
		if _, err := ValuePort(port); err != nil {
			return "", bad
		}
	}
	if _, err := valueHostname(host, true); err != nil {
		return "", bad
	}
	return scheme + "://" + strings.ToLower(rest), nil
}

// valueIsScheme reports whether s is a URI scheme (RFC 3986: a letter,
// then letters, digits, "+", "-" or "."), at most 32 bytes. ingress-nginx
// accepts any scheme in a CORS origin (tauri://, capacitor://, ...).
func valueIsScheme(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// valueCIDR parses an IP address or CIDR network and returns it in CIDR
// form with the host bits cleared ("10.0.0.1" → "10.0.0.1/32",
// "10.1.2.3/8" → "10.0.0.0/8").
func valueCIDR(v string) (string, error) {
	bad := errors.New(`must be an IP address or a CIDR network such as "10.0.0.0/8" or "2001:db8::/32"`)
	if strings.Contains(v, "/") {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return "", bad
		}
		return p.Masked().String(), nil
	}
	a, err := netip.ParseAddr(v)
	if err != nil || a.Zone() != "" {
		return "", bad
	}
	return netip.PrefixFrom(a, a.BitLen()).String(), nil
}

// valueServiceName checks a Service name: an RFC 1035 label.
func valueServiceName(v string) (string, error) {
	bad := errors.New("must be the name of a Service in the Ingress namespace (RFC 1035 label: lower case letters, digits and '-', starting with a letter, at most 63 characters)")
	if len(v) == 0 || len(v) > 63 || v[0] < 'a' || v[0] > 'z' || v[len(v)-1] == '-' {
		return "", bad
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return "", bad
		}
	}
	return v, nil
}

// valueMaxMIMEType bounds one gzip type: nginx puts the types in a hash
// whose buckets are 64 bytes, fixed ("test_types_hash"), and an entry
// takes a pointer and the name plus 2 rounded up to a pointer, beside the
// bucket's own end pointer: with nginx 1.22.1 (64-bit) a type of 46
// bytes passes nginx -t, one of 47 fails ("could not build
// test_types_hash, you should increase test_types_hash_bucket_size: 64").
const valueMaxMIMEType = 46

// valueMIMEType checks one gzip type: "*" or type/subtype made of RFC 6838
// name characters, at most valueMaxMIMEType bytes.
func valueMIMEType(v string) (string, error) {
	bad := errors.New(`must be MIME types separated by spaces, each "*" or type/subtype (letters, digits and !#&^_.+-) of at most 46 bytes`)
	if v == "*" {
		return v, nil
	}
	if len(v) > valueMaxMIMEType {
		return "", bad
	}
	t, sub, ok := strings.Cut(v, "/")
	if !ok || !valueIsMIMEName(t) || !valueIsMIMEName(sub) {
		return "", bad
	}
	return v, nil
}

func valueIsMIMEName(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#&^_.+-", c) >= 0) {
			return false
		}
	}
	return true
}
