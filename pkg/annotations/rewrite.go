package annotations

// Paths: regex paths (use-regex), the path sent to the backend
// (rewrite-target, x-forwarded-prefix) and the redirect of "/" (app-root).

// rewriteAnnotations are the annotations of this family, sorted by name.
var rewriteAnnotations = []annotationSpec{
	{Name: "app-root", Kind: kindPath, Description: `Redirect requests for "/" to this path.`,
		set: annString(func(v string) (string, error) { return valuePath(v, true) }, func(s *annotationState) *string { return &s.out.Location.AppRoot })},
	{Name: "rewrite-target", Kind: kindRewrite, Description: "Rewrite the path sent to the backend; $1..$9 are the captures of the path regex.",
		set: annString(valueRewriteTarget, func(s *annotationState) *string { return &s.out.Location.RewriteTarget })},
	{Name: "use-regex", Kind: kindBool, Default: "false", Description: "Match the paths of the host as case-insensitive regexes: those of the Ingresses of the same namespace (every path of the host with --allow-cross-namespace-host-sharing, as in ingress-nginx).",
		set: annBool(func(s *annotationState) *bool { return &s.out.UseRegex })},
	{Name: "x-forwarded-prefix", Kind: kindPath, Description: "Value of the X-Forwarded-Prefix header sent to the backend.",
		set: annString(func(v string) (string, error) { return valuePath(v, false) }, func(s *annotationState) *string { return &s.out.Location.XForwardedPrefix })},
}
