package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// ConfigMap keys of the client side: how nginx reads requests (buffers,
// timeouts, header names), the status codes of the limits and the default
// response rate limit. Each is written at http level only where it
// differs from nginx's own default.

// clientConfigKeys are the ConfigMap keys of this family, sorted by key.
var clientConfigKeys = []configKeySpec{
	{Key: "client-body-buffer-size", Kind: kindBufferSize, Default: "8k", Description: "Buffer for a request body; a larger body goes to a temporary file.",
		set: func(g *model.Global, v string) error {
			s, err := valueBufferSize(v)
			if err == nil {
				g.ClientBodyBufferSize = s
			}
			return err
		}},
	{Key: "client-body-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two reads of a request body.",
		set: configSeconds(func(g *model.Global) *int { return &g.ClientBodyTimeout })},
	{Key: "client-header-buffer-size", Kind: kindBufferSize, Default: "1k", Description: "Buffer for a request's headers; longer headers use large-client-header-buffers.",
		set: func(g *model.Global, v string) error {
			s, err := valueBufferSize(v)
			if err == nil {
				g.ClientHeaderBufferSize = s
			}
			return err
		}},
	{Key: "client-header-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout to read a request's headers.",
		set: configSeconds(func(g *model.Global) *int { return &g.ClientHeaderTimeout })},
	{Key: "enable-underscores-in-headers", Kind: kindBool, Default: "false", Description: "Accept request header names with underscores.",
		set: configBool(func(g *model.Global) *bool { return &g.EnableUnderscoresInHeaders })},
	{Key: "ignore-invalid-headers", Kind: kindBool, Default: "true", Description: "Drop request headers whose names are invalid.",
		set: configBool(func(g *model.Global) *bool { return &g.IgnoreInvalidHeaders })},
	{Key: "large-client-header-buffers", Kind: kindBuffers, Default: "4 8k", Description: "Number and size of the buffers for long request lines and headers; a line or header longer than one buffer is refused (414, 400).",
		set: func(g *model.Global, v string) error {
			b, err := valueBuffers(v)
			if err == nil {
				g.LargeClientHeaderBuffers = b
			}
			return err
		}},
	{Key: "limit-conn-status-code", Kind: kindStatusCode, Default: "503", Description: "Status of a request refused by limit-connections.",
		set: configInt(400, 599, func(g *model.Global) *int { return &g.LimitConnStatusCode })},
	{Key: "limit-rate", Kind: kindKilobytes, Default: "0", Description: "Default of the limit-rate annotation: kilobytes per second sent to a client per request (0: no limit).",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.LimitRate })},
	{Key: "limit-rate-after", Kind: kindKilobytes, Default: "0", Description: "Default of the limit-rate-after annotation: kilobytes sent at full speed before limit-rate applies.",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.LimitRateAfter })},
	{Key: "limit-req-status-code", Kind: kindStatusCode, Default: "503", Description: "Status of a request refused by limit-rps or limit-rpm.",
		set: configInt(400, 599, func(g *model.Global) *int { return &g.LimitReqStatusCode })},
	{Key: "preserve-trailing-slash", Kind: kindBool, Default: "false", Description: "Default of the preserve-trailing-slash annotation: keep the trailing \"/\" of the URI in HTTPS redirects.",
		set: configBool(func(g *model.Global) *bool { return &g.PreserveTrailingSlash })},
	{Key: "use-port-in-redirects", Kind: kindBool, Default: "false", Description: "Default of the use-port-in-redirects annotation: name the client's port (but 80 and 443) in the redirects nginx makes absolute.",
		set: configBool(func(g *model.Global) *bool { return &g.UsePortInRedirects })},
}
