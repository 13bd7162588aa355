package annotations

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Validators of the proxy and client values (proxy.go, configmap_client.go)
// and the size arithmetic of nginx's buffer rules (proxy_check.go).

// nextUpstreamCases are the cases proxy-next-upstream takes, as
// ingress-nginx's validator lists them (nginx's proxy_next_upstream
// without http_429's newer siblings).
var nextUpstreamCases = []string{"error", "timeout", "invalid_header", "http_500", "http_502",
	"http_503", "http_504", "http_403", "http_404", "http_429", "non_idempotent", "off"}

// valueNextUpstream parses proxy-next-upstream: cases separated by spaces,
// each once. "off" alone turns retries off (with others nginx would
// ignore them). non_idempotent is moved last, as ingress-nginx writes it.
func valueNextUpstream(v string) ([]string, error) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return nil, errors.New("holds no case")
	}
	seen := map[string]bool{}
	var out []string
	nonIdempotent := false
	for _, w := range words {
		if _, err := valueOneOf(w, false, nextUpstreamCases...); err != nil {
			return nil, fmt.Errorf("must be cases separated by spaces, each one of %s (found %s)", valueOptions(nextUpstreamCases), ValueQuote(w))
		}
		if seen[w] {
			return nil, fmt.Errorf("must name each case once (found %q twice)", w)
		}
		seen[w] = true
		if w == "non_idempotent" {
			nonIdempotent = true
			continue
		}
		out = append(out, w)
	}
	if seen["off"] && len(words) > 1 {
		return nil, errors.New(`must be "off" alone or cases without "off"`)
	}
	if nonIdempotent {
		out = append(out, "non_idempotent")
	}
	if len(out) == 1 && out[0] == "non_idempotent" {
		return nil, errors.New("must name a case in which to retry besides non_idempotent")
	}
	return out, nil
}

// valueSecondsOrZero parses a timeout where 0 means none.
func valueSecondsOrZero(v string) (int, error) {
	if v == "0" {
		return 0, nil
	}
	n, err := valueSeconds(v)
	if err != nil {
		return 0, fmt.Errorf(`must be 0 (no limit) or a whole number of seconds from 1 to %d, with no unit or nginx's "s", "m" or "h"`, ValueMaxSeconds)
	}
	return n, nil
}

// valueTempFileSize checks proxy-max-temp-file-size: "0" (no temporary
// files) or a size of at most 9 digits with k or m (nginx reads it as a
// size: "1g" fails nginx -t).
func valueTempFileSize(v string) (string, error) {
	if v == "0" {
		return v, nil
	}
	if _, ok := sizeBytes(v); !ok || strings.HasPrefix(v, "0") {
		return "", errors.New(`must be "0" (no temporary files) or a size: 1 to 9 digits with an optional k or m suffix (e.g. "1024m")`)
	}
	return v, nil
}

// sizeBytes parses an nginx size ("123", "8k", "1m"; 1 to 9 digits, k or
// m in either case) into bytes.
func sizeBytes(v string) (int64, bool) {
	if v == "" || len(v) > 10 {
		return 0, false
	}
	digits, scale := sizeSuffix(v, false)
	if digits == "" || len(digits) > 9 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n * scale, true
}

// formatSize writes bytes as nginx reads them, with the largest exact
// suffix.
func formatSize(n int64) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// valueIsRewriteChar reports the bytes of a cookie domain, cookie path or
// Location text: those of a URL path (valueIsPathChar), which hold no
// quote, ';', '{', '$' or space for nginx to interpret.
func valueIsRewriteChar(c byte) bool { return valueIsPathChar(c) }

// valueRewriteText checks one side of a "from to" rewrite: literal text of
// URL characters. A leading "~" would make it a regex for nginx; that is
// refused (a regex nginx cannot compile fails nginx -t for every tenant).
func valueRewriteText(v string) error {
	if len(v) > 1024 {
		return errors.New("is longer than 1024 bytes")
	}
	if strings.HasPrefix(v, "~") {
		return errors.New(`must be literal text: a leading "~" (an nginx regex) is not supported`)
	}
	for i := 0; i < len(v); i++ {
		if !valueIsRewriteChar(v[i]) {
			return fmt.Errorf("must be made of %s; nginx variables are not allowed (found %q)", valuePathChars, v[i])
		}
	}
	return nil
}

// valueTextRewrite parses "off" or "from to" (proxy-cookie-domain,
// proxy-cookie-path). check validates each side.
func valueTextRewrite(v string, check func(string) error) (model.TextRewrite, error) {
	if strings.EqualFold(v, "off") {
		return model.TextRewrite{Off: true}, nil
	}
	var f []string
	for _, s := range strings.Split(v, " ") {
		if s != "" {
			f = append(f, s)
		}
	}
	if len(f) != 2 {
		return model.TextRewrite{}, errors.New(`must be "off" or two values separated by spaces: the text to replace and its replacement`)
	}
	for _, s := range f {
		if strings.EqualFold(s, "off") {
			return model.TextRewrite{}, errors.New(`must be "off" alone or two values other than "off"`)
		}
		if err := check(s); err != nil {
			return model.TextRewrite{}, fmt.Errorf("%s %v", ValueQuote(s), err)
		}
	}
	return model.TextRewrite{From: f[0], To: f[1]}, nil
}

// valueRewriteDomain checks one side of proxy-cookie-domain: a domain
// (letters, digits, '-', '_' and dots, an optional leading dot).
func valueRewriteDomain(v string) error {
	if err := valueRewriteText(v); err != nil {
		return err
	}
	name := strings.TrimPrefix(v, ".")
	if len(name) == 0 || len(name) > 253 {
		return errors.New("must be a domain of 1 to 253 characters")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("must be a domain (letters, digits, '-', '_' and dots; found %q)", c)
		}
	}
	return nil
}

// valueCookiePath checks one side of proxy-cookie-path: a path starting
// with "/".
func valueCookiePath(v string) error {
	if err := valueRewriteText(v); err != nil {
		return err
	}
	if !strings.HasPrefix(v, "/") {
		return errors.New(`must be a path starting with "/"`)
	}
	return nil
}

// valueRedirectFrom checks proxy-redirect-from: "off", "default" or the
// literal start of a Location to replace.
func valueRedirectFrom(v string) (string, error) {
	if v == "off" || v == "default" {
		return v, nil
	}
	if err := valueRewriteText(v); err != nil {
		return "", fmt.Errorf(`is neither "off" nor "default" and %v`, err)
	}
	return v, nil
}

// valueRedirectTo checks proxy-redirect-to: "off" or literal text.
func valueRedirectTo(v string) (string, error) {
	if v == "off" {
		return v, nil
	}
	if err := valueRewriteText(v); err != nil {
		return "", fmt.Errorf(`is not "off" and %v`, err)
	}
	return v, nil
}

// redirectRewrite is what proxy-redirect-from and -to give together, as
// ingress-nginx writes them: "off" and "default" alone; a text with a
// replacement; a text without one (to "off") writes nothing, so nginx's
// own default applies.
func redirectRewrite(from, to string) model.TextRewrite {
	switch {
	case from == "off":
		return model.TextRewrite{Off: true}
	case from == "default" || to == "off":
		return model.TextRewrite{Default: true}
	}
	return model.TextRewrite{From: from, To: to}
}

// minLargeHeaderBuffer is the smallest large_client_header_buffers size
// nginx takes: at least connection_pool_size, 512 bytes on 64-bit (nginx
// 1.22.1's nginx -t refuses 511).
const minLargeHeaderBuffer = 512

// valueBuffers parses large-client-header-buffers: "number size", the
// number from 1 to 1024 and the size a buffer size from 512 bytes to
// 1024m.
func valueBuffers(v string) (model.Buffers, error) {
	bad := errors.New(`must be a number of buffers (1 to 1024) and a buffer size of 512 bytes to 1024m separated by a space (e.g. "4 8k")`)
	f := strings.Split(v, " ")
	if len(f) != 2 {
		return model.Buffers{}, bad
	}
	n, err := valueInt(f[0], 1, 1024)
	if err != nil {
		return model.Buffers{}, bad
	}
	size, err := valueBufferSize(f[1])
	if b, _ := sizeBytes(size); err != nil || b < minLargeHeaderBuffer {
		return model.Buffers{}, bad
	}
	return model.Buffers{Number: n, Size: size}, nil
}

// valueProxySize checks proxy-busy-buffers-size: a size of 1 to 9 digits,
// not 0, with an optional k or m suffix (nginx knows no g here).
func valueProxySize(v string) (string, error) {
	if n, ok := sizeBytes(v); !ok || n == 0 || strings.HasPrefix(v, "0") {
		return "", errors.New(`must be a size: 1 to 9 digits, not 0, with an optional k or m suffix (e.g. "8k")`)
	}
	return v, nil
}
