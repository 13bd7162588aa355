package annotations

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/pcrecases"
)

// regexCases are patterns with the verdict of nginx 1.22.1 -t, shared
// with the nginx -t tests (internal/pcrecases).
var regexCases = pcrecases.Cases

func TestCheckRegex(t *testing.T) {
	for _, c := range regexCases {
		err := CheckRegex(c.Re)
		switch {
		case c.Want == "" && err != nil:
			t.Errorf("CheckRegex(%q) = %v, want accepted", c.Re, err)
		case c.Want != "" && err == nil:
			t.Errorf("CheckRegex(%q) accepted, want an error with %q", c.Re, c.Want)
		case c.Want != "" && !strings.Contains(err.Error(), c.Want):
			t.Errorf("CheckRegex(%q) = %v, want an error with %q", c.Re, err, c.Want)
		}
	}
}

func TestValueRegexpPCRE(t *testing.T) {
	for _, v := range []string{`^(?P<v>beta)$`, `\x{100}`, `[\d-z]`} {
		if _, err := valueRegexp(v); err == nil {
			t.Errorf("valueRegexp(%q) accepted", v)
		}
	}
	if _, err := valueRegexp(`^(beta|canary)-[0-9]+$`); err != nil {
		t.Errorf("valueRegexp refused a plain pattern: %v", err)
	}
}
