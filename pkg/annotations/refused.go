package annotations

import "sort"

// Refused annotations: the ingress-nginx annotations kubectl-ingress knows
// and does not implement, and the snippets, refused by their suffix. Each
// one on an Ingress is a Problem saying it is ignored.

// snippetReason explains why a snippet annotation is refused.
func snippetReason(name string) string {
	reason := "snippet annotations are not supported: they inject raw nginx configuration, " +
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
// feature (enable-modsecurity "false", from-to-www-redirect "false",
// proxy-ssl-verify "off", …) or on and we always do it (enable-access-log
// "true"), and enable-global-auth "false", an opt-out of the global auth we
// never do. preserve-trailing-slash "false" is not one: ingress-nginx drops
// the slash that our redirect keeps. It is never modified.
var unsupportedAnnotations = []unsupportedAnnotation{
	{Name: "affinity-canary-behavior"},
	{Name: "auth-always-set-cookie", NoOp: "false"},
	{Name: "auth-cache-duration"},
	{Name: "auth-cache-key"},
	{Name: "auth-keepalive"},
	{Name: "auth-keepalive-requests"},
	{Name: "auth-keepalive-share-vars", NoOp: "false"},
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
	{Name: "auth-tls-pass-certificate-to-upstream", NoOp: "false"},
	{Name: "auth-tls-secret"},
	{Name: "auth-tls-verify-client"},
	{Name: "auth-tls-verify-depth"},
	{Name: "auth-type"},
	{Name: "auth-url"},
	{Name: "client-body-buffer-size"},
	{Name: "connection-proxy-header"},
	{Name: "custom-headers"},
	{Name: "custom-http-errors"},
	{Name: "disable-proxy-intercept-errors", NoOp: "false"},
	{Name: "enable-access-log", NoOp: "true"},
	{Name: "enable-global-auth", NoOp: "false"},
	{Name: "enable-influxdb", NoOp: "false"},
	{Name: "enable-modsecurity", NoOp: "false"},
	{Name: "enable-opentelemetry", NoOp: "false"},
	{Name: "enable-opentracing", NoOp: "false"},
	{Name: "enable-owasp-core-rules", NoOp: "false"},
	{Name: "enable-rewrite-log", NoOp: "false"},
	{Name: "fastcgi-index"},
	{Name: "fastcgi-params-configmap"},
	{Name: "from-to-www-redirect", Hint: "use server-alias and permanent-redirect on a separate Ingress", NoOp: "false"},
	{Name: "global-rate-limit", Hint: "use limit-rps (per controller replica)"},
	{Name: "global-rate-limit-ignored-cidrs"},
	{Name: "global-rate-limit-key"},
	{Name: "global-rate-limit-window"},
	{Name: "http2-push-preload", NoOp: "false"},
	{Name: "influxdb-host"},
	{Name: "influxdb-measurement"},
	{Name: "influxdb-port"},
	{Name: "influxdb-server-name"},
	{Name: "limit-rate"},
	{Name: "limit-rate-after"},
	{Name: "limit-rpm", Hint: "use limit-rps"},
	{Name: "mirror-host"},
	{Name: "mirror-request-body"},
	{Name: "mirror-target"},
	{Name: "modsecurity-transaction-id"},
	{Name: "opentelemetry-operation-name"},
	{Name: "opentelemetry-trust-incoming-span", NoOp: "true"},
	{Name: "opentracing-trust-incoming-span", NoOp: "true"},
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
	{Name: "proxy-ssl-ciphers"},
	{Name: "proxy-ssl-name"},
	{Name: "proxy-ssl-protocols"},
	{Name: "proxy-ssl-secret"},
	{Name: "proxy-ssl-server-name", NoOp: "off"},
	{Name: "proxy-ssl-verify", NoOp: "off"},
	{Name: "proxy-ssl-verify-depth"},
	{Name: "relative-redirects"},
	{Name: "satisfy"},
	{Name: "session-cookie-partitioned", NoOp: "false"},
	{Name: "ssl-ciphers"},
	{Name: "ssl-prefer-server-ciphers"},
}

// snippetHints name the typed annotations to use instead of a snippet,
// where there are some.
var snippetHints = []unsupportedAnnotation{
	{Name: "configuration-snippet", Hint: "use the typed annotations instead: rewrite-target, x-forwarded-prefix, upstream-vhost, enable-cors, permanent-redirect, temporal-redirect, limit-rps, allowlist-source-range"},
	{Name: "server-snippet", Hint: "use the typed annotations instead: server-alias, ssl-redirect, force-ssl-redirect, permanent-redirect, temporal-redirect"},
}
