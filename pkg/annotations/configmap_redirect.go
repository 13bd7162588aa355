package annotations

import (
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The HTTPS redirect of every location: forced, exempted paths, status.

// redirectConfigKeys are the ConfigMap keys of this family, sorted by key.
var redirectConfigKeys = []configKeySpec{
	{Key: "force-ssl-redirect", Kind: kindBool, Default: "false", Description: "Redirect plain HTTP to HTTPS for every host, with TLS or not, unless its Ingress sets force-ssl-redirect \"false\".",
		set: configBool(func(g *model.Global) *bool { return &g.Redirects.ForceSSLRedirect })},
	{Key: "http-redirect-code", Kind: kindEnum, Default: "308", Description: `Status of the HTTPS redirect: 301, 302, 307 or 308.`,
		set: func(g *model.Global, v string) error {
			c, err := valueOneOf(v, false, "301", "302", "307", "308")
			if err == nil {
				g.Redirects.HTTPRedirectCode, _ = strconv.Atoi(c)
			}
			return err
		}},
	{Key: "no-tls-redirect-locations", Kind: kindPathList, Default: model.DefaultNoTLSRedirectLocations, Description: "Path prefixes (comma separated) never redirected to HTTPS, such as ACME HTTP-01 challenges.",
		set: configStringList(64, func(v string) (string, error) { return valuePath(v, true) }, func(g *model.Global) *[]string { return &g.Redirects.NoTLSRedirectLocations })},
}
