package trace

import (
	"errors"
	"strings"
)

// errBadRequest is nginx's 400: a request line or Host it refuses.
var errBadRequest = errors.New("nginx refuses the request (400)")

// splitTarget splits a request target as sent into its path and its
// query at the first "?" (a "#" ends the target).
func splitTarget(target string) (path, args string) {
	if target == "" {
		target = "/"
	}
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	path, args, _ = strings.Cut(target, "?")
	return path, args
}

// normalizePath is $uri: the path as nginx's ngx_http_parse_complex_uri
// makes it, percent-decoded (a decoded "%", NUL or "?" is kept as a
// character; any other decoded byte is read again, so "%2F" is a "/" and
// "%2E%2E" a ".." segment), with runs of "/" merged (merge_slashes on, the
// default the writer keeps) and "." and ".." segments resolved. A ".."
// above the root or a bad "%" escape is a 400.
func normalizePath(raw string) (string, error) {
	if !strings.HasPrefix(raw, "/") {
		return "", errBadRequest
	}
	const (
		usual = iota
		slash
		dot
		dotDot
	)
	u := make([]byte, 0, len(raw))
	state := usual
	// back resolves a ".." segment: u ends in "/..", drop it and the
	// segment before.
	back := func() error {
		n := len(u) - 4
		for {
			if n < 0 {
				return errBadRequest
			}
			if u[n] == '/' {
				u = u[:n+1]
				return nil
			}
			n--
		}
	}
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		if ch == '%' {
			if i+2 >= len(raw) {
				return "", errBadRequest
			}
			hi, ok1 := unhex(raw[i+1])
			lo, ok2 := unhex(raw[i+2])
			if !ok1 || !ok2 {
				return "", errBadRequest
			}
			i += 2
			ch = hi<<4 | lo
			if ch == '%' || ch == 0 || ch == '?' {
				u = append(u, ch)
				state = usual
				continue
			}
		}
		switch state {
		case usual:
			if ch == '/' {
				state = slash
			}
			u = append(u, ch)
		case slash:
			switch ch {
			case '/': // merge_slashes
			case '.':
				state = dot
				u = append(u, ch)
			default:
				state = usual
				u = append(u, ch)
			}
		case dot:
			switch ch {
			case '/':
				state = slash
				u = u[:len(u)-1]
			case '.':
				state = dotDot
				u = append(u, ch)
			default:
				state = usual
				u = append(u, ch)
			}
		case dotDot:
			if ch == '/' {
				state = slash
				if err := back(); err != nil {
					return "", err
				}
				continue
			}
			state = usual
			u = append(u, ch)
		}
	}
	switch state {
	case dot:
		u = u[:len(u)-1]
	case dotDot:
		if err := back(); err != nil {
			return "", err
		}
	}
	return string(u), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// normalizeHost is the host nginx looks servers up by
// (ngx_http_validate_host): lower case, without the port and a trailing
// dot. "" with ok for no Host at all; a Host with "/", a NUL or ".." is
// refused (400), as is an empty one.
func normalizeHost(h string) (host string, ok bool) {
	if h == "" {
		return "", false
	}
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", false
		}
		return strings.ToLower(h[:end+1]), true
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= 0x20 || c == 0x7f || c == '/' {
			return "", false
		}
	}
	if strings.Contains(h, "..") {
		return "", false
	}
	if i := strings.IndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", false
	}
	return strings.ToLower(h), true
}
