package annotations

// Per-location settings around proxying: the request body buffer, the
// Connection header sent to the backend, the access and rewrite logs, and
// the trailing slash of the HTTPS redirect, the port in nginx's redirects.

// The kinds of values of the proxy family.
const (
	kindRewrite2      valueKind = `"off" or "from to"`
	kindNextUpstream  valueKind = "cases separated by spaces"
	kindRedirectText  valueKind = `"off", "default" or literal text`
	kindBuffers       valueKind = `"number size" ("4 8k")`
	kindStatusCode    valueKind = "HTTP status code (400 to 599)"
	kindKilobytes     valueKind = "kilobytes (integer)"
	kindSecondsOrZero valueKind = "seconds (integer, 0: none)"
)

// MaxProxyBuffers bounds proxy-buffers-number: nginx needs at least 2;
// 4096 buffers of the largest size are more memory than any pod has.
const MaxProxyBuffers = 4096

// proxyLocationAnnotations are the annotations of this family, sorted by
// name.
var proxyLocationAnnotations = []annotationSpec{
	{Name: "client-body-buffer-size", Kind: kindBufferSize, Default: "ConfigMap client-body-buffer-size", Description: "Buffer for the request body; a larger body goes to a temporary file.",
		set: annString(valueBufferSize, func(s *annotationState) *string { return &s.out.Location.Proxy.ClientBodyBufferSize })},
	{Name: "connection-proxy-header", Kind: kindToken, Description: `Connection header sent to the backend ("keep-alive", "close", …) instead of "upgrade" for WebSocket requests and "" otherwise.`,
		set: annString(valueToken, func(s *annotationState) *string { return &s.out.Location.Proxy.ConnectionHeader })},
	{Name: "enable-access-log", Kind: kindBool, Default: "true", Description: `"false" writes no access log line for the location's requests.`,
		set: func(s *annotationState, v string) error {
			b, err := valueBool(v)
			if err == nil {
				s.out.Location.Logs.AccessOff = !b
			}
			return err
		}},
	{Name: "enable-rewrite-log", Kind: kindBool, Default: "false", Description: "Log the location's rewrites (rewrite_log) to the error log at notice level (seen while error-log-level is notice or lower).",
		set: annBool(func(s *annotationState) *bool { return &s.out.Location.Logs.Rewrite })},
	{Name: "preserve-trailing-slash", Kind: kindBool, Default: "ConfigMap preserve-trailing-slash", Description: `Keep the trailing "/" of the URI in the HTTPS redirect (by default https://host/a/ redirects to https://host/a, as in ingress-nginx).`,
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.Location.PreserveTrailingSlash })},
	{Name: "use-port-in-redirects", Kind: kindBool, Default: "ConfigMap use-port-in-redirects", Description: `"true" names the port the client connected to (unless it is 80 for http, 443 for https) in the redirects nginx makes absolute: a backend's or a redirect's Location that starts with "/", the 301 to a path's trailing "/".`,
		set: annBoolPtr(func(s *annotationState) **bool { return &s.out.Location.UsePortInRedirects })},
}
