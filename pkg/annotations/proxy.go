package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// Proxying to the backend: request body size, buffering, timeouts, and the
// Host header sent (upstream-vhost). Each proxy-* annotation defaults to
// the ConfigMap key of the same name.

// proxyAnnotations are the annotations of this family, sorted by name.
var proxyAnnotations = []annotationSpec{
	{Name: "proxy-body-size", Kind: kindSize, Default: "ConfigMap proxy-body-size", Description: `Largest request body accepted ("0": no limit).`,
		set: annString(valueSize, func(s *annotationState) *string { return &s.out.Location.Proxy.BodySize })},
	{Name: "proxy-buffer-size", Kind: kindBufferSize, Default: "ConfigMap proxy-buffer-size", Description: "Size of the buffer for the first part of the backend's answer (its headers), at most 1024m.",
		set: annString(valueBufferSize, func(s *annotationState) *string { return &s.out.Location.Proxy.BufferSize })},
	{Name: "proxy-buffering", Kind: kindOnOff, Default: "ConfigMap proxy-buffering", Description: "Buffer the backend's answers.",
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.out.Location.Proxy.Buffering = &b
			}
			return err
		}},
	{Name: "proxy-connect-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-connect-timeout", Description: "Timeout to connect to the backend.",
		set: annSeconds(func(s *annotationState) *int { return &s.out.Location.Proxy.ConnectTimeout })},
	{Name: "proxy-read-timeout", Kind: kindSeconds, Default: "ConfigMap proxy-read-timeout", Description: "Timeout between two reads from the backend.",
		set: annSeconds(func(s *annotationState) *int { return &s.out.Location.Proxy.ReadTimeout })},
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
	{Key: "proxy-buffering", Kind: kindOnOff, Default: "off", Description: "Buffer the backends' answers.",
		set: func(g *model.Global, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				g.ProxyBuffering = b
			}
			return err
		}},
	{Key: "proxy-connect-timeout", Kind: kindSeconds, Default: "5", Description: "Timeout to connect to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyConnectTimeout })},
	{Key: "proxy-read-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two reads from a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyReadTimeout })},
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
}
