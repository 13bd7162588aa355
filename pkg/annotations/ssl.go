package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// TLS: the redirects of HTTP to HTTPS and SSL passthrough.

// sslAnnotations are the annotations of this family, sorted by name.
var sslAnnotations = []annotationSpec{
	{Name: "force-ssl-redirect", Kind: kindBool, Default: "ConfigMap force-ssl-redirect", Description: "Redirect HTTP to HTTPS even when the host has no TLS certificate of its own.",
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.Location.ForceSSLRedirect })},
	{Name: "ssl-passthrough", Kind: kindBool, Default: "false", Description: "With --enable-ssl-passthrough: pass TLS connections for the hosts to the backend of \"/\" without terminating them (routed by SNI).",
		set: annBool(func(s *annotationState) *bool { return &s.out.SSLPassthrough })},
	{Name: "ssl-redirect", Kind: kindBool, Default: "ConfigMap ssl-redirect", Description: "Redirect HTTP to HTTPS when the host has TLS.",
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.Location.SSLRedirect })},
}

// sslConfigKeys are the ConfigMap keys of this family, sorted by key.
var sslConfigKeys = []configKeySpec{
	{Key: "hsts", Kind: kindBool, Default: "true", Description: "Send Strict-Transport-Security on HTTPS answers.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTS })},
	{Key: "hsts-include-subdomains", Kind: kindBool, Default: "true", Description: "Add includeSubDomains to Strict-Transport-Security.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTSIncludeSubdomains })},
	{Key: "hsts-max-age", Kind: kindSeconds, Default: "31536000", Description: "max-age of Strict-Transport-Security.",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.HSTSMaxAge })},
	{Key: "hsts-preload", Kind: kindBool, Default: "false", Description: "Add preload to Strict-Transport-Security.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTSPreload })},
	{Key: "ssl-redirect", Kind: kindBool, Default: "true", Description: "Redirect HTTP to HTTPS for hosts with TLS.",
		set: configBool(func(g *model.Global) *bool { return &g.SSLRedirect })},
}
