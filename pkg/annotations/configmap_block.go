package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Blocking clients everywhere (403) and hiding backend headers.

// blockConfigKeys are the ConfigMap keys of this family, sorted by key.
var blockConfigKeys = []configKeySpec{
	{Key: "allow-backend-server-header", Kind: kindBool, Default: "false", Description: "Pass the backend's Server header to clients instead of nginx's.",
		set: configBool(func(g *model.Global) *bool { return &g.Block.AllowBackendServerHeader })},
	{Key: "block-cidrs", Kind: kindCIDRList, NoDefault: true, Description: "Client networks answered 403 everywhere (comma separated IPs or CIDRs).",
		set: configStringList(1024, valueCIDR, func(g *model.Global) *[]string { return &g.Block.CIDRs })},
	{Key: "block-referers", Kind: kindMatchList, NoDefault: true, Description: `Referer headers answered 403 everywhere: comma separated, each an exact value, or a regex after "~" (case-sensitive) or "~*".`,
		set: configStringList(256, valueBlockPattern, func(g *model.Global) *[]string { return &g.Block.Referers })},
	{Key: "block-user-agents", Kind: kindMatchList, NoDefault: true, Description: `User-Agent headers answered 403 everywhere: comma separated, each an exact value, or a regex after "~" (case-sensitive) or "~*".`,
		set: configStringList(256, valueBlockPattern, func(g *model.Global) *[]string { return &g.Block.UserAgents })},
	{Key: "hide-headers", Kind: kindTokenList, NoDefault: true, Description: "Backend response headers not passed to clients (comma separated names).",
		set: configStringList(64, valueHideHeader, func(g *model.Global) *[]string { return &g.Block.HideHeaders })},
}

const kindMatchList valueKind = "comma separated values or ~regexes"

// valueBlockPattern checks an entry of block-user-agents or
// block-referers: an exact value of printable characters (at most 1024
// bytes), or "~" / "~*" and a regex that nginx's PCRE2 compiles as Go
// reads it (CheckRegex).
func valueBlockPattern(v string) (string, error) {
	if err := valueNoControl(v); err != nil {
		return "", err
	}
	if len(v) > 1024 {
		return "", errors.New("must be at most 1024 bytes")
	}
	if re, ok := strings.CutPrefix(v, "~"); ok {
		re = strings.TrimPrefix(re, "*")
		if re == "" {
			return "", errors.New(`must have a regex after "~"`)
		}
		if err := CheckRegex(re); err != nil {
			return "", fmt.Errorf("must be a regex nginx accepts: %v", err)
		}
	}
	return v, nil
}

// valueHideHeader checks a header name: an RFC 7230 token of at most 64
// bytes.
func valueHideHeader(v string) (string, error) {
	if len(v) > 64 {
		return "", errors.New("must be a header name of at most 64 bytes")
	}
	return valueToken(v)
}
