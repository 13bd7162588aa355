package annotations

// TLS: the redirects of HTTP to HTTPS and SSL passthrough.

// sslAnnotations are the annotations of this family, sorted by name.
var sslAnnotations = []annotationSpec{
	{Name: "force-ssl-redirect", Kind: kindBool, Default: "false", Description: "Redirect HTTP to HTTPS even when the host has no TLS certificate of its own.",
		set: annBool(func(s *annotationState) *bool { return &s.out.Location.ForceSSLRedirect })},
	{Name: "ssl-passthrough", Kind: kindBool, Default: "false", Description: "With --enable-ssl-passthrough: pass TLS connections for the hosts to the backend of \"/\" without terminating them (routed by SNI).",
		set: annBool(func(s *annotationState) *bool { return &s.out.SSLPassthrough })},
	{Name: "ssl-redirect", Kind: kindBool, Default: "ConfigMap ssl-redirect", Description: "Redirect HTTP to HTTPS when the host has TLS.",
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.Location.SSLRedirect })},
}
