package annotations

// from-to-www-redirect: a request for www.<host> (or for <host> when the
// rule's host starts with "www.") gets a 308 redirect to the same URL on
// the rule's host, as ingress-nginx does with a server block of its own.
// Render makes the redirect servers (model.Config.WWWRedirects).

// wwwRedirectAnnotations are the annotations of this family, sorted by name.
var wwwRedirectAnnotations = []annotationSpec{
	{Name: "from-to-www-redirect", Kind: kindBool, Default: "false", Description: `Answer requests for "www." + host (or for host without "www.") with a 308 redirect to the rule's host, same scheme, port and URI (a final "/" dropped); over HTTPS only when the host's certificate covers the other name. No redirect when another rule serves that name.`,
		set: annBool(func(s *annotationState) *bool { return &s.out.FromToWWWRedirect })},
}
