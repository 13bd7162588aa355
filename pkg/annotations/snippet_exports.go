package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Validators that pkg/snippet reuses to check the arguments of the
// directives it translates, so that a value in a snippet obeys the same
// grammar as the same value in an annotation: header names and values,
// the nginx variables a value may read, timeouts, sizes, CIDRs, MIME types.
// They add no grammar of their own beyond what a snippet needs (the phase
// of a variable).

// SnippetVarPhase says when a directive's value is evaluated, which bounds
// the variables it may read.
type SnippetVarPhase int

const (
	// SnippetRequestPhase: the request is being read or rewritten (rewrite,
	// return, proxy_set_header): the variables of the request and the
	// connection; a response header variable ($upstream_http_*,
	// $sent_http_*) does not exist yet.
	SnippetRequestPhase SnippetVarPhase = iota
	// SnippetResponsePhase: the response is being sent (add_header,
	// more_set_headers, sub_filter): the request's variables and the
	// response's headers.
	SnippetResponsePhase
)

// responseOnlyPrefixes are the variable prefixes of headerVars that hold
// response headers.
var responseOnlyPrefixes = []string{"sent_http_", "upstream_http_"}

// snippetVars is the allowlist of phase plus the extra names.
func snippetVars(phase SnippetVarPhase, extra []string) varList {
	l := varList{names: append([]string(nil), headerVars.names...)}
	for _, p := range headerVars.prefixes {
		if phase == SnippetRequestPhase && inSorted(responseOnlyPrefixes, p) {
			continue
		}
		l.prefixes = append(l.prefixes, p)
	}
	l.names = append(l.names, extra...)
	sort.Strings(l.names)
	return l
}

// CheckSnippetValue checks a value of a snippet directive: at most 2048
// bytes of visible ASCII and spaces (no control character, no newline),
// and every "$name" or "${name}" a variable of the phase's allowlist (the
// variables that add-headers and proxy-set-headers values may read,
// without the response headers in the request phase) or one of extra
// ("1".."9" for the captures of a rewrite, "service_name" …).
func CheckSnippetValue(v string, phase SnippetVarPhase, extra ...string) error {
	if len(v) > valueMaxLen {
		return fmt.Errorf("is longer than %d bytes", valueMaxLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c >= 0x7f {
			return fmt.Errorf("must be visible ASCII and spaces (found %q at byte %d)", c, i)
		}
	}
	err := checkVars(v, snippetVars(phase, extra), true)
	if err != nil {
		// The allowlist is long: name the docs instead of listing it.
		if head, _, cut := strings.Cut(err.Error(), ": variables must be one of"); cut {
			return errors.New(head + ", which is not a variable of the snippet allowlist here (see the Snippets section of docs/annotations.md)")
		}
		if head, _, cut := strings.Cut(err.Error(), "; variables must be one of"); cut {
			return errors.New(head)
		}
	}
	return err
}

// CheckSnippetHeaderName checks a header name as the headers annotations
// and ConfigMaps do: letters, digits, "-" and "_", 1 to 256 bytes.
func CheckSnippetHeaderName(v string) error { return valueAddedHeaderName(v) }

// SnippetSeconds checks an nginx time of whole seconds ("60", "60s",
// "5m", "1h") as the proxy-*-timeout annotations do and returns it in
// seconds with the unit "s" ("300s").
func SnippetSeconds(v string) (string, error) {
	n, err := valueSeconds(v)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%ds", n), nil
}

// SnippetBodySize checks a client_max_body_size as proxy-body-size does
// ("0": no limit).
func SnippetBodySize(v string) (string, error) { return valueSize(v) }

// SnippetBufferSize checks a buffer size as proxy-buffer-size and
// client-body-buffer-size do.
func SnippetBufferSize(v string) (string, error) { return valueBufferSize(v) }

// SnippetOnOff parses nginx's "on" or "off".
func SnippetOnOff(v string) (bool, error) {
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, errors.New(`must be "on" or "off"`)
}

// SnippetCIDR checks an allow/deny source as allowlist-source-range does
// and returns it in CIDR form with the host bits cleared.
func SnippetCIDR(v string) (string, error) { return valueCIDR(v) }

// SnippetMIMEType checks a MIME type ("*" or type/subtype) as gzip-types
// does.
func SnippetMIMEType(v string) (string, error) { return valueMIMEType(v) }
