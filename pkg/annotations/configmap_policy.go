package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The ConfigMap's policy on annotations, as ingress-nginx v1.12+ applies
// it: annotations-risk-level refuses annotations riskier than the level,
// annotation-value-word-blocklist refuses values holding a listed word. An
// Ingress with such an annotation is left out entirely, as ingress-nginx
// leaves it out (dropping only the annotation could drop an auth-url and
// open the paths it protects). configuration-snippet and server-snippet
// are Critical, as in ingress-nginx: at the default level (Critical) they
// are translated into typed settings (pkg/snippet), below it an Ingress
// with one is left out; allow-snippet-annotations: "false" makes them
// Problems (the Ingress stays, without the snippet).

// policyConfigKeys are the ConfigMap keys of this family, sorted by key.
var policyConfigKeys = []configKeySpec{
	{Key: "allow-snippet-annotations", Kind: kindBool, Default: "true", Description: `"false" makes every configuration-snippet and server-snippet a Problem instead of translating it. The default differs from ingress-nginx's ("false" since v1.9) on purpose: a snippet here is translated through an allowlist into the typed settings the other annotations make, never passed to nginx as text, so it is as safe as those annotations.`,
		set: func(g *model.Global, v string) error {
			b, err := valueBool(v)
			if err != nil {
				return errors.New(`must be "true" or "false"`)
			}
			g.Policy.DisableSnippets = !b
			return nil
		}},
	{Key: "annotation-value-word-blocklist", Kind: kindTokenList, NoDefault: true, Description: "Comma separated words no annotation value may hold; an Ingress with one is left out, as in ingress-nginx.",
		set: func(g *model.Global, v string) error {
			words := valueList(v)
			if len(words) > 256 {
				return errors.New("must hold at most 256 words")
			}
			for _, w := range words {
				if err := valueNoControl(w); err != nil {
					return fmt.Errorf("entry %s %v", ValueQuote(w), err)
				}
			}
			g.Policy.WordBlocklist = words
			return nil
		}},
	{Key: "annotations-risk-level", Kind: kindEnum, Default: "Critical", Description: `Highest risk of annotation accepted: "Low", "Medium", "High" or "Critical" (ingress-nginx's risk of each annotation); an Ingress with a riskier one is left out. configuration-snippet and server-snippet are Critical: at the default they are translated (see allow-snippet-annotations); below it an Ingress with one is left out, as in ingress-nginx.`,
		set: func(g *model.Global, v string) error {
			l, err := valueOneOf(v, true, riskLevels...)
			if err == nil {
				g.Policy.RiskLevel = l
			}
			return err
		}},
}

// riskLevels are the levels, from the least risky.
var riskLevels = []string{"Low", "Medium", "High", "Critical"}

// annotationRisks are ingress-nginx's risks of its annotations (its
// docs/user-guide/nginx-configuration/annotations-risk.md) above Low;
// every other annotation is Low. Sorted by name.
var annotationRisks = map[string]string{
	"affinity-mode": "Medium", "allowlist-source-range": "Medium", "app-root": "Medium",
	"auth-cache-duration": "Medium", "auth-cache-key": "Medium", "auth-proxy-set-headers": "Medium",
	"auth-realm": "Medium", "auth-request-redirect": "Medium", "auth-response-headers": "Medium",
	"auth-secret": "Medium", "auth-signin": "High", "auth-signin-redirect-param": "Medium",
	"auth-snippet": "Critical", "auth-tls-error-page": "High", "auth-tls-match-cn": "High",
	"auth-tls-secret": "Medium", "auth-tls-verify-client": "Medium", "auth-url": "High",
	"canary-by-cookie": "Medium", "canary-by-header": "Medium", "canary-by-header-pattern": "Medium",
	"canary-by-header-value": "Medium", "configuration-snippet": "Critical", "cors-allow-headers": "Medium",
	"cors-allow-methods": "Medium", "cors-allow-origin": "Medium", "cors-expose-headers": "Medium",
	"custom-headers": "Medium", "denylist-source-range": "Medium", "fastcgi-index": "Medium",
	"fastcgi-params-configmap": "Medium", "force-ssl-redirect": "Medium", "mirror-host": "High",
	"mirror-target": "High", "modsecurity-snippet": "Critical", "modsecurity-transaction-id": "High",
	"opentelemetry-operation-name": "Medium", "permanent-redirect": "Medium", "preserve-trailing-slash": "Medium",
	"proxy-body-size": "Medium", "proxy-cookie-domain": "Medium", "proxy-cookie-path": "Medium",
	"proxy-next-upstream": "Medium", "proxy-redirect-from": "Medium", "proxy-redirect-to": "Medium",
	"proxy-ssl-ciphers": "Medium", "proxy-ssl-name": "High", "proxy-ssl-secret": "Medium",
	"rewrite-target": "Medium", "server-alias": "High", "server-snippet": "Critical",
	"session-cookie-domain": "Medium", "session-cookie-expires": "Medium", "session-cookie-max-age": "Medium",
	"session-cookie-name": "Medium", "session-cookie-path": "Medium", "stream-snippet": "Critical",
	"temporal-redirect": "Medium", "upstream-hash-by": "High", "whitelist-source-range": "Medium",
	"x-forwarded-prefix": "Medium",
}

// riskRank is the index of level in riskLevels.
func riskRank(level string) int {
	for i, l := range riskLevels {
		if l == level {
			return i
		}
	}
	return len(riskLevels) - 1
}

// CheckPolicy applies the ConfigMap's policy to the annotations of the
// Ingress ing: a Problem for each annotation riskier than p.RiskLevel and
// for each value that holds a word of p.WordBlocklist. Any Problem means
// that the Ingress is left out, as ingress-nginx leaves it out.
func CheckPolicy(ing model.ObjectRef, annotations map[string]string, p model.Policy) []model.Problem {
	if riskRank(p.RiskLevel) == len(riskLevels)-1 && len(p.WordBlocklist) == 0 {
		return nil
	}
	names := make([]string, 0, len(annotations))
	for k := range annotations {
		if strings.HasPrefix(k, annotationPrefix) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var problems []model.Problem
	for _, k := range names {
		name := strings.TrimPrefix(k, annotationPrefix)
		risk, ok := annotationRisks[name]
		if !ok {
			risk = "Low"
		}
		if riskRank(risk) > riskRank(p.RiskLevel) {
			problems = append(problems, model.Problem{Object: ing, Field: Field(name),
				Reason: fmt.Sprintf("its risk (%s) is above the ConfigMap's annotations-risk-level (%s); the Ingress is left out, as ingress-nginx leaves it out", risk, p.RiskLevel)})
			continue
		}
		v := annotations[k]
		for _, w := range p.WordBlocklist {
			if strings.Contains(v, w) {
				problems = append(problems, model.Problem{Object: ing, Field: Field(name),
					Reason: fmt.Sprintf("the value holds %s, a word of the ConfigMap's annotation-value-word-blocklist; the Ingress is left out, as ingress-nginx leaves it out", ValueQuote(w))})
				break
			}
		}
	}
	return problems
}
