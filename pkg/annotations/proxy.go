package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// Proxying to the backend: request body size, buffering, timeouts,
// retries, the rewrites of the answer's headers (cookies, Location) and
// the Host header sent (upstream-vhost). Each proxy-* annotation defaults
// to the ConfigMap key of the same name; proxy_check.go checks the buffer
// sizes together as nginx will, proxy_values.go holds the validators.

// proxyAnnotations are the annotations of this family, sorted by name.
var proxyAnnotations = []annotationSpec{
	{Name: "proxy-body-size", Kind: kindSize, Default: "ConfigMap proxy-body-size", Description: `Largest request body accepted ("0": no limit).`,
		set: annString(valueSize, func(s *annotationState) *string { return &s.out.Location.Proxy.BodySize })},
	{Name: "proxy-buffer-size", Kind: kindBufferSize, Default: "ConfigMap proxy-buffer-size", Description: "Size of the buffer for the first part of the backend's answer (its headers), at most 1024m.",
		set: annString(valueBufferSize, func(s *annotationState) *string { return &s.out.Location.Proxy.BufferSize })},
	{Name: "proxy-buffers-number", Kind: kindInt, Default: "ConfigMap proxy-buffers-number", Description: "Number of body buffers of proxy-buffer-size each (proxy_buffers), 2 to 4096.",
		set: annInt(2, MaxProxyBuffers, func(s *annotationState) *int { return &s.out.Location.Proxy.BuffersNumber })},
	{Name: "proxy-buffering", Kind: kindOnOff, Default: "ConfigMap proxy-buffering", Description: "Buffer the backend's answers.",
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.out.Location.Proxy.Buffering = &b
			}
			return err
		}},
	{Name: "proxy-busy-buffers-size", Kind: kindSize, Default: "ConfigMap proxy-busy-buffers-size, else twice proxy-buffer-size", Description: "Most of the buffers busy sending to the client while the answer is still read: from proxy-buffer-size to (proxy-buffers-number - 1) × proxy-buffer-size (nginx -t refuses other values).",
		set: annString(valueProxySize, func(s *annotationState) *string { return &s.out.Location.Proxy.BusyBuffersSize })},
	{Name: "proxy-connect-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-connect-timeout", Description: "Timeout to connect to the backend.",
		set: annSeconds(func(s *annotationState) *int { return &s.out.Location.Proxy.ConnectTimeout })},
	{Name: "proxy-cookie-domain", Kind: kindRewrite2, Default: "ConfigMap proxy-cookie-domain", Description: `"off" or "from to": replace the domain from by to in the backend's Set-Cookie headers (literal domains; no regex, no variable).`,
		set: func(s *annotationState, v string) error {
			r, err := valueTextRewrite(v, valueRewriteDomain)
			if err == nil {
				s.out.Location.Proxy.CookieDomain = &r
			}
			return err
		}},
	{Name: "proxy-cookie-path", Kind: kindRewrite2, Default: "ConfigMap proxy-cookie-path", Description: `"off" or "from to": replace the path prefix from by to in the backend's Set-Cookie headers (literal paths; no regex, no variable).`,
		set: func(s *annotationState, v string) error {
			r, err := valueTextRewrite(v, valueCookiePath)
			if err == nil {
				s.out.Location.Proxy.CookiePath = &r
			}
			return err
		}},
	{Name: "proxy-http-version", Kind: kindEnum, Default: "ConfigMap proxy-http-version", Description: `HTTP version towards the backend: "1.0" or "1.1" (keep-alive needs 1.1).`,
		set: annOneOf(false, func(s *annotationState) *string { return &s.out.Location.Proxy.HTTPVersion }, "1.0", "1.1")},
	{Name: "proxy-max-temp-file-size", Kind: kindSize, Default: "ConfigMap proxy-max-temp-file-size", Description: `Largest temporary file of a buffered answer ("0": none), at least proxy-buffer-size.`,
		set: annString(valueTempFileSize, func(s *annotationState) *string { return &s.out.Location.Proxy.MaxTempFileSize })},
	{Name: "proxy-next-upstream", Kind: kindNextUpstream, Default: "ConfigMap proxy-next-upstream", Description: "When to retry the request on the next endpoint: error timeout invalid_header http_500 http_502 http_503 http_504 http_403 http_404 http_429 non_idempotent, or off.",
		set: func(s *annotationState, v string) error {
			cases, err := valueNextUpstream(v)
			if err == nil {
				s.out.Location.Proxy.NextUpstream = cases
			}
			return err
		}},
	{Name: "proxy-next-upstream-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-next-upstream-timeout", Description: "Time allowed for the retries, seconds (0: no limit).",
		set: func(s *annotationState, v string) error {
			n, err := valueSecondsOrZero(v)
			if err == nil {
				s.out.Location.Proxy.NextUpstreamTimeout = &n
			}
			return err
		}},
	{Name: "proxy-next-upstream-tries", Kind: kindInt, Default: "ConfigMap proxy-next-upstream-tries", Description: "Most tries of a request, the first included (0: no limit); each retry goes to another endpoint.",
		set: func(s *annotationState, v string) error {
			n, err := valueInt(v, 0, MaxInt32)
			if err == nil {
				s.out.Location.Proxy.NextUpstreamTries = &n
			}
			return err
		}},
	{Name: "proxy-read-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-read-timeout", Description: "Timeout between two reads from the backend.",
		set: annSeconds(func(s *annotationState) *int { return &s.out.Location.Proxy.ReadTimeout })},
	{Name: "proxy-redirect-from", Kind: kindRedirectText, Default: "ConfigMap proxy-redirect-from", Description: `Start of the backend's Location and Refresh headers to replace by proxy-redirect-to; "off" (none) or "default" (nginx's); literal text, no regex, no variable.`,
		set: annString(valueRedirectFrom, func(s *annotationState) *string { return &s.out.Location.Proxy.RedirectFrom })},
	{Name: "proxy-redirect-to", Kind: kindRedirectText, Default: "ConfigMap proxy-redirect-to", Description: `Replacement of proxy-redirect-from; "off" leaves nginx's default ("default").`,
		set: annString(valueRedirectTo, func(s *annotationState) *string { return &s.out.Location.Proxy.RedirectTo })},
	{Name: "proxy-request-buffering", Kind: kindOnOff, Default: "ConfigMap proxy-request-buffering", Description: `Read the whole request body before sending it to the backend ("off": stream it).`,
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.out.Location.Proxy.RequestBuffering = &b
			}
			return err
		}},
	{Name: "proxy-send-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-send-timeout", Description: "Timeout between two writes to the backend.",
		set: annSeconds(func(s *annotationState) *int { return &s.out.Location.Proxy.SendTimeout })},
	{Name: "upstream-vhost", Kind: kindHostPort, Description: "Host header sent to the backend; may use $service_name, $namespace and $service_port (the path's backend), no other variable.",
		set: annString(valueUpstreamVhost, func(s *annotationState) *string { return &s.out.Location.UpstreamVhost })},
}

// proxyConfigKeys are the ConfigMap keys of this family, sorted by key:
// the defaults of the proxy-* annotations.
var proxyConfigKeys = []configKeySpec{
	{Key: "proxy-body-size", Kind: kindSize, Default: "1m", Description: `Largest request body accepted ("0": no limit).`,
		set: configSize(func(g *model.Global) *string { return &g.ProxyBodySize })},
	{Key: "proxy-buffer-size", Kind: kindBufferSize, Default: "4k", Description: "Size of the buffer for the first part of a backend's answer, at most 1024m.",
		set: func(g *model.Global, v string) error {
			s, err := valueBufferSize(v)
			if err == nil {
				g.ProxyBufferSize = s
			}
			return err
		}},
	{Key: "proxy-buffers-number", Kind: kindInt, Default: "4", Description: "Number of body buffers of proxy-buffer-size each (proxy_buffers), 2 to 4096.",
		set: configInt(2, MaxProxyBuffers, func(g *model.Global) *int { return &g.ProxyBuffersNumber })},
	{Key: "proxy-buffering", Kind: kindOnOff, Default: "off", Description: "Buffer the backends' answers.",
		set: func(g *model.Global, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				g.ProxyBuffering = b
			}
			return err
		}},
	{Key: "proxy-busy-buffers-size", Kind: kindSize, NoDefault: true, Description: "Most of the buffers busy sending to a client while the answer is still read, from proxy-buffer-size to (proxy-buffers-number - 1) × proxy-buffer-size; unset: nginx's default (twice proxy-buffer-size). A location with its own buffers that it does not fit gets nginx's default for them.",
		set: func(g *model.Global, v string) error {
			s, err := valueProxySize(v)
			if err == nil {
				g.ProxyBusyBuffersSize = s
			}
			return err
		}},
	{Key: "proxy-connect-timeout", Kind: kindSeconds, Default: "5", Description: "Timeout to connect to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyConnectTimeout })},
	{Key: "proxy-cookie-domain", Kind: kindRewrite2, Default: "off", Description: `"off" or "from to": replace the domain from by to in the backends' Set-Cookie headers.`,
		set: func(g *model.Global, v string) error {
			r, err := valueTextRewrite(v, valueRewriteDomain)
			if err == nil {
				g.ProxyCookieDomain = r
			}
			return err
		}},
	{Key: "proxy-cookie-path", Kind: kindRewrite2, Default: "off", Description: `"off" or "from to": replace the path prefix from by to in the backends' Set-Cookie headers.`,
		set: func(g *model.Global, v string) error {
			r, err := valueTextRewrite(v, valueCookiePath)
			if err == nil {
				g.ProxyCookiePath = r
			}
			return err
		}},
	{Key: "proxy-http-version", Kind: kindEnum, Default: "1.1", Description: `HTTP version towards the backends: "1.0" or "1.1".`,
		set: func(g *model.Global, v string) error {
			s, err := valueOneOf(v, false, "1.0", "1.1")
			if err == nil {
				g.ProxyHTTPVersion = s
			}
			return err
		}},
	{Key: "proxy-max-temp-file-size", Kind: kindSize, Default: "1024m", Description: `Largest temporary file of a buffered answer ("0": none), at least proxy-buffer-size. A location with a larger buffer of its own gets a limit of one buffer.`,
		set: func(g *model.Global, v string) error {
			s, err := valueTempFileSize(v)
			if err == nil {
				g.ProxyMaxTempFileSize = s
			}
			return err
		}},
	{Key: "proxy-next-upstream", Kind: kindNextUpstream, Default: "error timeout", Description: "When to retry a request on the next endpoint (see the annotation).",
		set: func(g *model.Global, v string) error {
			cases, err := valueNextUpstream(v)
			if err == nil {
				g.ProxyNextUpstream = cases
			}
			return err
		}},
	{Key: "proxy-next-upstream-timeout", Kind: kindSecondsOrZero, Default: "0", Description: "Time allowed for the retries, seconds (0: no limit).",
		set: func(g *model.Global, v string) error {
			n, err := valueSecondsOrZero(v)
			if err == nil {
				g.ProxyNextUpstreamTimeout = n
			}
			return err
		}},
	{Key: "proxy-next-upstream-tries", Kind: kindInt, Default: "3", Description: "Most tries of a request, the first included (0: no limit).",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.ProxyNextUpstreamTries })},
	{Key: "proxy-read-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two reads from a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyReadTimeout })},
	{Key: "proxy-redirect-from", Kind: kindRedirectText, Default: "off", Description: `Start of the backends' Location and Refresh headers to replace by proxy-redirect-to; "off" or "default" (nginx's).`,
		set: func(g *model.Global, v string) error {
			s, err := valueRedirectFrom(v)
			if err == nil {
				g.ProxyRedirectFrom = s
			}
			return err
		}},
	{Key: "proxy-redirect-to", Kind: kindRedirectText, Default: "off", Description: "Replacement of proxy-redirect-from.",
		set: func(g *model.Global, v string) error {
			s, err := valueRedirectTo(v)
			if err == nil {
				g.ProxyRedirectTo = s
			}
			return err
		}},
	{Key: "proxy-request-buffering", Kind: kindOnOff, Default: "on", Description: `Read the whole request body before sending it to a backend ("off": stream it).`,
		set: func(g *model.Global, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				g.ProxyRequestBuffering = b
			}
			return err
		}},
	{Key: "proxy-send-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two writes to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxySendTimeout })},
	{Key: "proxy-stream-responses", Kind: kindInt, Default: "1", Description: "Answers a UDP service's backend sends per datagram (0: any number until the timeout).",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.ProxyStreamResponses })},
	{Key: "retry-non-idempotent", Kind: kindBool, Default: "false", Description: "Retry POST, LOCK and PATCH requests too (adds non_idempotent to proxy-next-upstream).",
		set: configBool(func(g *model.Global) *bool { return &g.RetryNonIdempotent })},
}
