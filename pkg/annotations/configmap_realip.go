package annotations

import (
	"errors"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The client address: which peers are trusted to say it, in which header
// or in the PROXY protocol, what X-Forwarded-For the backends get, and the
// request ID.

// realIPConfigKeys are the ConfigMap keys of this family, sorted by key.
var realIPConfigKeys = []configKeySpec{
	{Key: "compute-full-forwarded-for", Kind: kindBool, Default: "false", Description: "Send backends the client's X-Forwarded-For with the client address appended, instead of the client address alone.",
		set: configBool(func(g *model.Global) *bool { return &g.RealIP.ComputeFullForwardedFor })},
	{Key: "enable-real-ip", Kind: kindBool, Default: "false", Description: "Take the client address from forwarded-for-header when the peer is in proxy-real-ip-cidr.",
		set: configBool(func(g *model.Global) *bool { return &g.RealIP.EnableRealIP })},
	{Key: "forwarded-for-header", Kind: kindToken, Default: "X-Forwarded-For", Description: "Header holding the client address for enable-real-ip and use-forwarded-headers (e.g. CF-Connecting-IP).",
		set: func(g *model.Global, v string) error {
			h, err := valueForwardedHeader(v)
			if err == nil {
				g.RealIP.ForwardedForHeader = h
			}
			return err
		}},
	{Key: "generate-request-id", Kind: kindBool, Default: "true", Description: "Make a request ID ($req_id, X-Request-ID upstream) when the client sends none.",
		set: configBool(func(g *model.Global) *bool { return &g.RealIP.GenerateRequestID })},
	{Key: "proxy-real-ip-cidr", Kind: kindCIDRList, Default: "0.0.0.0/0", Description: "Peers trusted to say the client address (enable-real-ip, use-forwarded-headers, use-proxy-protocol).",
		set: configStringList(256, valueCIDR, func(g *model.Global) *[]string { return &g.RealIP.ProxyRealIPCIDR })},
	{Key: "use-proxy-protocol", Kind: kindBool, Default: "false", Description: "The HTTP and HTTPS ports expect the PROXY protocol (v1 or v2) of a load balancer; the client address is the one it says.",
		set: configBool(func(g *model.Global) *bool { return &g.RealIP.UseProxyProtocol })},
}

// valueForwardedHeader checks an HTTP header name that nginx turns into a
// variable ($http_…): letters, digits and "-" only, at most 64 bytes.
func valueForwardedHeader(v string) (string, error) {
	bad := errors.New(`must be a header name of letters, digits and "-" (at most 64 bytes)`)
	if v == "" || len(v) > 64 {
		return "", bad
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return "", bad
		}
	}
	return v, nil
}
