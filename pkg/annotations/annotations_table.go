package annotations

import (
	"sort"
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
	kindTokenList   valueKind = "tokens separated by commas or spaces"
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
		{"authexternal", authExternalAnnotations},
		{"authbasic", authBasicAnnotations},
		{"authtls", authTLSAnnotations},
		{"alias", aliasAnnotations},
		{"backend", backendAnnotations},
		{"canary", canaryAnnotations},
		{"cors", corsAnnotations},
		{"errorpages", errorPageAnnotations},
		{"fastcgi", fastCGIAnnotations},
		{"headers", headersAnnotations},
		{"mirror", mirrorAnnotations},
		{"modsecurity", modSecurityAnnotations},
		{"proxy", proxyAnnotations},
		{"proxy_location", proxyLocationAnnotations},
		{"proxyssl", proxySSLAnnotations},
		{"ratelimit", rateLimitAnnotations},
		{"redirect", redirectAnnotations},
		{"rewrite", rewriteAnnotations},
		{"snippets", snippetAnnotations},
		{"ssl", sslAnnotations},
		{"sslciphers", sslCipherAnnotations},
		{"wwwredirect", wwwRedirectAnnotations},
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
