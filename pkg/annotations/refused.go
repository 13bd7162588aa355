package annotations

import "sort"

// Refused annotations: the ingress-nginx annotations kubectl-ingress knows
// and does not implement, and the snippets, refused by their suffix. Each
// one on an Ingress is a Problem saying it is ignored.

// snippetReason explains why a snippet annotation is refused.
func snippetReason(name string) string {
	reason := "snippet annotations other than configuration-snippet and server-snippet are not supported: they inject raw nginx configuration, " +
		"the cause of the CVE-2025-1974 class of injection vulnerabilities; the annotation is ignored"
	for _, h := range snippetHints {
		if h.Name == name {
			return reason + "; " + h.Hint
		}
	}
	return reason
}

// unsupportedAnnotation is an ingress-nginx annotation that kubectl-ingress
// knows of but does not implement.
type unsupportedAnnotation struct {
	Name string
	// Hint names what to use instead, when there is something.
	Hint string
	// NoOp, when set, is the value ("true"/"false" or "on"/"off", parsed
	// as ingress-nginx does) with which ingress-nginx behaves exactly as
	// kubectl-ingress does without the annotation: that value is no
	// Problem.
	NoOp string
}

// isNoOp says whether v is the NoOp value of u.
func (u *unsupportedAnnotation) isNoOp(v string) bool {
	switch u.NoOp {
	case "true", "false":
		b, err := valueBool(v)
		return err == nil && b == (u.NoOp == "true")
	case "on", "off":
		b, err := valueOnOff(v)
		return err == nil && b == (u.NoOp == "on")
	}
	return false
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
// Ingress is a Problem saying it is ignored, unless its value is the NoOp
// one: ingress-nginx's default where that is off and we do not have the
// feature (from-to-www-redirect "false",
// proxy-ssl-verify "off", …), and enable-global-auth "false", an opt-out
// of the global auth we never do. It is never modified.
var unsupportedAnnotations = []unsupportedAnnotation{
	{Name: "enable-influxdb", NoOp: "false", Hint: "InfluxDB metrics need the nginx-influxdb module, which Debian does not ship (ingress-nginx removed it in v1.10)"},
	{Name: "enable-opentelemetry", NoOp: "false", Hint: "OpenTelemetry tracing needs an nginx OpenTelemetry module, which Debian does not ship"},
	{Name: "enable-opentracing", NoOp: "false", Hint: "OpenTracing needs the nginx OpenTracing module, which Debian does not ship and ingress-nginx removed in v1.10"},
	{Name: "global-rate-limit", Hint: "use limit-rps (per controller replica)"},
	{Name: "global-rate-limit-ignored-cidrs"},
	{Name: "global-rate-limit-key"},
	{Name: "global-rate-limit-window"},
	{Name: "http2-push-preload", NoOp: "false"},
	{Name: "influxdb-host"},
	{Name: "influxdb-measurement"},
	{Name: "influxdb-port"},
	{Name: "influxdb-server-name"},
	{Name: "opentelemetry-operation-name", Hint: "OpenTelemetry tracing needs an nginx OpenTelemetry module, which Debian does not ship"},
	{Name: "opentelemetry-trust-incoming-span", NoOp: "true", Hint: "OpenTelemetry tracing needs an nginx OpenTelemetry module, which Debian does not ship"},
	{Name: "opentracing-trust-incoming-span", NoOp: "true", Hint: "OpenTracing needs the nginx OpenTracing module, which Debian does not ship and ingress-nginx removed in v1.10"},
	{Name: "relative-redirects"},
	{Name: "session-cookie-partitioned", NoOp: "false"},
}

// snippetHints name the typed annotations to use instead of a snippet,
// where there are some.
var snippetHints = []unsupportedAnnotation{
	{Name: "auth-snippet", Hint: "use the typed annotations instead: auth-proxy-set-headers, auth-response-headers, auth-cache-key"},
}
