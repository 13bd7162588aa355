package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Setters of ConfigMap keys may return, instead of a validation error, a
// reason why the value is taken but not applied: configNotSupported (a
// feature we do not have: "not supported by kubectl-ingress: …") or
// configIgnored (a value that nginx or ingress-nginx ignores: the reason as
// it is). ParseConfigMap words the Problem from them; the runner of the
// migration corpus classifies by these words, so they stay stable.

// configNotSupported is a value of a known key that asks for a feature
// kubectl-ingress does not have.
type configNotSupported struct{ hint string }

func (e configNotSupported) Error() string { return e.hint }

// configIgnored is a value that changes nothing, with the reason.
type configIgnored struct{ reason string }

func (e configIgnored) Error() string { return e.reason }

// configProblemReason words the Problem of err returned by the setter of a
// key, or returns "" when err is an ordinary validation error.
func configProblemReason(err error) string {
	var ns configNotSupported
	if errors.As(err, &ns) {
		return "not supported by kubectl-ingress: " + ns.hint + "; the key is ignored"
	}
	var ig configIgnored
	if errors.As(err, &ig) {
		return ig.reason
	}
	return ""
}

// configOffOnly is the setter of a boolean key whose "true" needs a feature
// we lack: "false" (the default) is taken silently, "true" is not
// supported for the reason hint.
func configOffOnly(hint string) func(*model.Global, string) error {
	return func(_ *model.Global, v string) error {
		b, err := valueBool(v)
		if err != nil {
			return err
		}
		if b {
			return configNotSupported{hint}
		}
		return nil
	}
}

// configList parses a comma separated list with check applied to each
// entry; an empty entry is dropped. max bounds the number of entries.
func configList(v string, max int, check func(string) (string, error)) ([]string, error) {
	entries := valueList(v)
	if len(entries) > max {
		return nil, fmt.Errorf("must hold at most %d entries (found %d)", max, len(entries))
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		c, err := check(e)
		if err != nil {
			return nil, fmt.Errorf("entry %s %v", ValueQuote(e), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// configStringList is the setter of a comma separated list key.
func configStringList(max int, check func(string) (string, error), field func(*model.Global) *[]string) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		l, err := configList(v, max, check)
		if err == nil {
			*field(g) = l
		}
		return err
	}
}

// valueNoControl refuses control characters and values over valueMaxLen.
func valueNoControl(v string) error {
	if len(v) > valueMaxLen {
		return fmt.Errorf("must be at most %d bytes", valueMaxLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("must not hold the control character %q", c)
		}
	}
	return nil
}

// valueLogPath checks a log file: "/dev/stdout", "/dev/stderr",
// "/dev/null", or a file under the prefix's logs directory ("logs/x.log").
// ingress-nginx's defaults, /var/log/nginx/access.log and error.log,
// which its image links to /dev/stdout and /dev/stderr, are taken as
// those. nginx -t opens every log file and fails on one it cannot open,
// for every tenant: no other path is written.
func valueLogPath(v string) (string, error) {
	switch v {
	case "/dev/stdout", "/dev/stderr", "/dev/null":
		return v, nil
	case "/var/log/nginx/access.log":
		return "/dev/stdout", nil
	case "/var/log/nginx/error.log":
		return "/dev/stderr", nil
	}
	bad := errors.New(`must be "/dev/stdout", "/dev/stderr", "/dev/null" or a file in the logs directory of the nginx prefix ("logs/access.log": letters, digits, ".", "_", "-"); nginx -t fails on a file it cannot open`)
	name, ok := strings.CutPrefix(v, "logs/")
	if !ok || name == "" || len(name) > 128 || name[0] == '.' {
		return "", bad
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", bad
		}
	}
	return v, nil
}
