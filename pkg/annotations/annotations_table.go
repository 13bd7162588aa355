package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// valueKind names the kind of value an annotation or ConfigMap key takes,
// for the generated documentation.
type valueKind string

// The kinds of values.
const (
	kindBool        valueKind = `"true" or "false"`
	kindOnOff       valueKind = `"on" or "off"`
	kindInt         valueKind = "integer"
	kindSeconds     valueKind = "seconds (integer)"
	kindSize        valueKind = `nginx size ("8k", "1m")`
	kindBufferSize  valueKind = `nginx buffer size ("4k", "16k")`
	kindEnum        valueKind = "one of a set"
	kindHostList    valueKind = "comma separated DNS names"
	kindHostPort    valueKind = "DNS name[:port]"
	kindURL         valueKind = "absolute http(s) URL"
	kindPath        valueKind = "URL path"
	kindRewrite     valueKind = "URL path with $1..$9"
	kindCIDRList    valueKind = "comma separated CIDRs or IPs"
	kindOriginList  valueKind = "comma separated origins"
	kindTokenList   valueKind = "comma separated tokens"
	kindHashBy      valueKind = "nginx variable expression"
	kindToken       valueKind = "token (RFC 7230)"
	kindHeaderValue valueKind = "header value"
	kindRegexp      valueKind = "regular expression"
	kindServiceName valueKind = "Service name"
	kindCookieDom   valueKind = "cookie domain"
	kindMIMEList    valueKind = "space separated MIME types"
	kindWorkers     valueKind = `"auto" or integer`
)

// annotationSpec describes one supported annotation.
type annotationSpec struct {
	// Name is the annotation without annotationPrefix.
	Name string
	// Description is one line for the documentation.
	Description string
	// Kind is the kind of value.
	Kind valueKind
	// Default describes the value used when the annotation is absent or
	// invalid; "" when there is none (the setting is off).
	Default string
	// OnInvalid, when set, says what happens to an invalid value instead of
	// the usual "using the default".
	OnInvalid string
	// CanaryOnly annotations are read only when canary is "true".
	CanaryOnly bool

	set func(s *annotationState, v string) error
}

// onInvalid says what happens when the value is invalid.
func (a *annotationSpec) onInvalid() string {
	switch {
	case a.OnInvalid != "":
		return a.OnInvalid
	case a.Default != "":
		return "using the default (" + a.Default + ")"
	}
	return "the annotation is ignored"
}

// lookupAnnotationSpec returns the spec of name, or nil.
func lookupAnnotationSpec(name string) *annotationSpec {
	i := sort.Search(len(annotationSpecs), func(i int) bool { return annotationSpecs[i].Name >= name })
	if i < len(annotationSpecs) && annotationSpecs[i].Name == name {
		return &annotationSpecs[i]
	}
	return nil
}

// Setter builders: each returns a setter that validates v and stores the
// result in the field that field returns.

func annBool(field func(*annotationState) *bool) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		b, err := valueBool(v)
		if err == nil {
			*field(s) = b
		}
		return err
	}
}

func annBoolPtr(field func(*annotationState) **bool) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		b, err := valueBool(v)
		if err == nil {
			*field(s) = &b
		}
		return err
	}
}

func annInt(min, max int, field func(*annotationState) *int) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		n, err := valueInt(v, min, max)
		if err == nil {
			*field(s) = n
		}
		return err
	}
}

func annSeconds(field func(*annotationState) *int) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		n, err := valueSeconds(v)
		if err == nil {
			*field(s) = n
		}
		return err
	}
}

func annString(check func(string) (string, error), field func(*annotationState) *string) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		r, err := check(v)
		if err == nil {
			*field(s) = r
		}
		return err
	}
}

func annOneOf(fold bool, field func(*annotationState) *string, options ...string) func(*annotationState, string) error {
	return annString(func(v string) (string, error) { return valueOneOf(v, fold, options...) }, field)
}

// annTokenList checks a comma separated list of tokens and stores it joined
// with sep. With star, "*" is a valid entry.
func annTokenList(sep string, star bool, field func(*annotationState) *string) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		list := valueList(v)
		if len(list) == 0 {
			return errors.New("holds no entry")
		}
		for _, e := range list {
			if star && e == "*" {
				continue
			}
			if _, err := valueToken(e); err != nil {
				return fmt.Errorf("entry %s %v", ValueQuote(e), err)
			}
		}
		joined := strings.Join(list, sep)
		if len(joined) > valueMaxLen {
			// One nginx parameter: nginx refuses 4096 bytes.
			return fmt.Errorf("is longer than %d bytes", valueMaxLen)
		}
		*field(s) = joined
		return nil
	}
}

// annotationFamily is the part of the annotation table that one file
// holds: the annotations of one feature, read together.
type annotationFamily struct {
	// Name names the family (its file, without .go), for tests.
	Name  string
	Specs []annotationSpec
}

// annotationFamilies returns the table of each family of annotations.
func annotationFamilies() []annotationFamily {
	return []annotationFamily{
		{"access", accessAnnotations},
		{"affinity", affinityAnnotations},
		{"alias", aliasAnnotations},
		{"backend", backendAnnotations},
		{"canary", canaryAnnotations},
		{"cors", corsAnnotations},
		{"proxy", proxyAnnotations},
		{"ratelimit", rateLimitAnnotations},
		{"redirect", redirectAnnotations},
		{"rewrite", rewriteAnnotations},
		{"ssl", sslAnnotations},
	}
}

// annotationSpecs is the table of supported annotations: the tables of
// annotationFamilies joined and sorted by name, for lookupAnnotationSpec's
// binary search. It is never modified.
var annotationSpecs = joinAnnotationSpecs(annotationFamilies())

// joinAnnotationSpecs returns the specs of families in one new slice sorted
// by name. A name in two families is a bug that TestAnnotationSpecTable
// reports.
func joinAnnotationSpecs(families []annotationFamily) []annotationSpec {
	var all []annotationSpec
	for _, f := range families {
		all = append(all, f.Specs...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// unsupportedAnnotation is an ingress-nginx annotation that kubectl-ingress
// knows of but does not implement.
type unsupportedAnnotation struct {
	Name string
	// Hint names what to use instead, when there is something.
	Hint string
}

// lookupUnsupportedAnnotation returns the entry of name, or nil.
func lookupUnsupportedAnnotation(name string) *unsupportedAnnotation {
	i := sort.Search(len(unsupportedAnnotations), func(i int) bool { return unsupportedAnnotations[i].Name >= name })
	if i < len(unsupportedAnnotations) && unsupportedAnnotations[i].Name == name {
		return &unsupportedAnnotations[i]
	}
	return nil
}

// unsupportedAnnotations are the ingress-nginx annotations (snippets
// aside) that kubectl-ingress does not implement, sorted. Each one on an
// Ingress is a Problem saying it is ignored. It is never modified.
var unsupportedAnnotations = []unsupportedAnnotation{
	{Name: "affinity-canary-behavior"},
	{Name: "auth-always-set-cookie"},
	{Name: "auth-cache-duration"},
	{Name: "auth-cache-key"},
	{Name: "auth-keepalive"},
	{Name: "auth-keepalive-requests"},
	{Name: "auth-keepalive-share-vars"},
	{Name: "auth-keepalive-timeout"},
	{Name: "auth-method"},
	{Name: "auth-proxy-set-headers"},
	{Name: "auth-realm"},
	{Name: "auth-request-redirect"},
	{Name: "auth-response-headers"},
	{Name: "auth-secret"},
	{Name: "auth-secret-type"},
	{Name: "auth-signin"},
	{Name: "auth-signin-redirect-param"},
	{Name: "auth-tls-error-page"},
	{Name: "auth-tls-match-cn"},
	{Name: "auth-tls-pass-certificate-to-upstream"},
	{Name: "auth-tls-secret"},
	{Name: "auth-tls-verify-client"},
	{Name: "auth-tls-verify-depth"},
	{Name: "auth-type"},
	{Name: "auth-url"},
	{Name: "client-body-buffer-size"},
	{Name: "connection-proxy-header"},
	{Name: "custom-headers"},
	{Name: "custom-http-errors"},
	{Name: "disable-proxy-intercept-errors"},
	{Name: "enable-access-log"},
	{Name: "enable-global-auth"},
	{Name: "enable-influxdb"},
	{Name: "enable-modsecurity"},
	{Name: "enable-opentelemetry"},
	{Name: "enable-opentracing"},
	{Name: "enable-owasp-core-rules"},
	{Name: "enable-rewrite-log"},
	{Name: "fastcgi-index"},
	{Name: "fastcgi-params-configmap"},
	{Name: "from-to-www-redirect", Hint: "use server-alias and permanent-redirect on a separate Ingress"},
	{Name: "global-rate-limit", Hint: "use limit-rps (per controller replica)"},
	{Name: "global-rate-limit-ignored-cidrs"},
	{Name: "global-rate-limit-key"},
	{Name: "global-rate-limit-window"},
	{Name: "http2-push-preload"},
	{Name: "influxdb-host"},
	{Name: "influxdb-measurement"},
	{Name: "influxdb-port"},
	{Name: "influxdb-server-name"},
	{Name: "limit-allowlist"},
	{Name: "limit-rate"},
	{Name: "limit-rate-after"},
	{Name: "limit-rpm", Hint: "use limit-rps"},
	{Name: "limit-whitelist"},
	{Name: "mirror-host"},
	{Name: "mirror-request-body"},
	{Name: "mirror-target"},
	{Name: "modsecurity-transaction-id"},
	{Name: "opentelemetry-operation-name"},
	{Name: "opentelemetry-trust-incoming-span"},
	{Name: "opentracing-trust-incoming-span"},
	{Name: "preserve-trailing-slash"},
	{Name: "proxy-buffers-number"},
	{Name: "proxy-busy-buffers-size"},
	{Name: "proxy-cookie-domain"},
	{Name: "proxy-cookie-path"},
	{Name: "proxy-http-version"},
	{Name: "proxy-max-temp-file-size"},
	{Name: "proxy-next-upstream"},
	{Name: "proxy-next-upstream-timeout"},
	{Name: "proxy-next-upstream-tries"},
	{Name: "proxy-redirect-from"},
	{Name: "proxy-redirect-to"},
	{Name: "proxy-request-buffering"},
	{Name: "proxy-ssl-ciphers"},
	{Name: "proxy-ssl-name"},
	{Name: "proxy-ssl-protocols"},
	{Name: "proxy-ssl-secret"},
	{Name: "proxy-ssl-server-name"},
	{Name: "proxy-ssl-verify"},
	{Name: "proxy-ssl-verify-depth"},
	{Name: "relative-redirects"},
	{Name: "satisfy"},
	{Name: "service-upstream"},
	{Name: "session-cookie-partitioned"},
	{Name: "ssl-ciphers"},
	{Name: "ssl-prefer-server-ciphers"},
}

// snippetHints name the typed annotations to use instead of a snippet,
// where there are some.
var snippetHints = []unsupportedAnnotation{
	{Name: "configuration-snippet", Hint: "use the typed annotations instead: rewrite-target, x-forwarded-prefix, upstream-vhost, enable-cors, permanent-redirect, temporal-redirect, limit-rps, allowlist-source-range"},
	{Name: "server-snippet", Hint: "use the typed annotations instead: server-alias, ssl-redirect, force-ssl-redirect, permanent-redirect, temporal-redirect"},
}
