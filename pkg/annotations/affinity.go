package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Session affinity: affinity "cookie" makes the backends of the Ingress
// sticky, affinity-mode and the session-cookie-* annotations shape it.

// Defaults of the affinity annotations, as in ingress-nginx.
const (
	defaultAffinityMode      = "balanced"
	defaultSessionCookieName = "INGRESSCOOKIE"
)

// affinityState stages the affinity annotations until finishAffinity.
type affinityState struct {
	affinity     string
	affinityMode string
	cookie       model.SessionCookie
}

func newAffinityState() affinityState {
	return affinityState{
		affinityMode: defaultAffinityMode,
		cookie:       model.SessionCookie{Name: defaultSessionCookieName},
	}
}

// finishAffinity sets the backends' session affinity when affinity is
// "cookie".
func (s *annotationState) finishAffinity() {
	if s.affinity == "cookie" {
		s.out.Backend.SessionAffinity = model.SessionAffinity{
			Type:   s.affinity,
			Mode:   s.affinityMode,
			Cookie: s.cookie,
		}
	}
}

// affinityAnnotations are the annotations of this family, sorted by name.
var affinityAnnotations = []annotationSpec{
	{Name: "affinity", Kind: kindEnum, Description: `Sticky sessions for the backends of the Ingress; only "cookie" is supported.`,
		set: annOneOf(false, func(s *annotationState) *string { return &s.affinity }, "cookie")},
	{Name: "affinity-canary-behavior", Kind: kindEnum, Default: "sticky", Description: `On a canary Ingress: "sticky" makes its backend use the primary's affinity, so canary answers carry the affinity cookie and keep the client on the canary; "legacy" leaves the canary backend without it.`,
		set: annCanaryBehavior},
	{Name: "affinity-mode", Kind: kindEnum, Default: defaultAffinityMode, Description: `"balanced" moves some sessions when the backend scales up; "persistent" never does.`,
		set: annOneOf(false, func(s *annotationState) *string { return &s.affinityMode }, "balanced", "persistent")},
	{Name: "session-cookie-change-on-failure", Kind: kindBool, Default: "false", Description: "Point the affinity cookie to another endpoint when a request fails.",
		set: annBool(func(s *annotationState) *bool { return &s.cookie.ChangeOnFailure })},
	{Name: "session-cookie-conditional-samesite-none", Kind: kindBool, Default: "false", Description: "Leave out SameSite=None for browsers known to mishandle it.",
		set: annBool(func(s *annotationState) *bool { return &s.cookie.ConditionalSameSiteNone })},
	{Name: "session-cookie-domain", Kind: kindCookieDom, Description: "Domain attribute of the affinity cookie.",
		set: annString(valueCookieDomain, func(s *annotationState) *string { return &s.cookie.Domain })},
	{Name: "session-cookie-expires", Kind: kindSeconds, Description: "Expires attribute of the affinity cookie, in seconds from now.",
		set: annString(valueCookieSeconds, func(s *annotationState) *string { return &s.cookie.Expires })},
	{Name: "session-cookie-max-age", Kind: kindSeconds, Description: "Max-Age attribute of the affinity cookie.",
		set: annString(valueCookieSeconds, func(s *annotationState) *string { return &s.cookie.MaxAge })},
	{Name: "session-cookie-name", Kind: kindToken, Default: defaultSessionCookieName, Description: "Name of the affinity cookie.",
		set: annString(valueToken, func(s *annotationState) *string { return &s.cookie.Name })},
	{Name: "session-cookie-path", Kind: kindPath, Description: "Path attribute of the affinity cookie (needed with use-regex).",
		set: annString(func(v string) (string, error) { return valuePath(v, true) }, func(s *annotationState) *string { return &s.cookie.Path })},
	{Name: "session-cookie-samesite", Kind: kindEnum, Description: `SameSite attribute of the affinity cookie: "None", "Lax" or "Strict" (any case).`,
		set: annOneOf(true, func(s *annotationState) *string { return &s.cookie.SameSite }, "None", "Lax", "Strict")},
	{Name: "session-cookie-secure", Kind: kindBool, Default: "false", Description: "Set the Secure attribute of the affinity cookie even on plain HTTP.",
		set: annBool(func(s *annotationState) *bool { return &s.cookie.Secure })},
}

// valueCookieDomain checks session-cookie-domain: a DNS name, optionally
// with the leading dot of old cookie syntax.
func valueCookieDomain(v string) (string, error) {
	h, err := valueHostname(strings.TrimPrefix(v, "."), false)
	if err != nil {
		return "", errors.New(`must be a DNS name (RFC 1123), optionally starting with "."`)
	}
	if strings.HasPrefix(v, ".") {
		h = "." + h
	}
	return h, nil
}

// valueCookieSeconds checks session-cookie-expires and -max-age: a
// whole number of seconds, kept as written.
func valueCookieSeconds(v string) (string, error) {
	if _, err := valueInt(v, 0, MaxInt32); err != nil {
		return "", fmt.Errorf("must be a whole number of seconds from 0 to %d", MaxInt32)
	}
	return v, nil
}

// annCanaryBehavior sets affinity-canary-behavior: "sticky" or "legacy".
func annCanaryBehavior(s *annotationState, v string) error {
	r, err := valueOneOf(v, false, "sticky", "legacy")
	if err == nil {
		s.out.Canary.AffinityLegacy = r == "legacy"
	}
	return err
}
