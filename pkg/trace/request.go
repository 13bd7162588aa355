package trace

import (
	"net/netip"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// reqView is a Request as nginx's variables read it.
type reqView struct {
	Request
	c *model.Config
}

// header is $http_<name>: the first request header whose name, lower
// case with "-" as "_", is name's. A header whose own name holds "_" is
// dropped by nginx (ignore-invalid-headers) unless
// enable-underscores-in-headers.
func (r reqView) header(name string) (string, bool) {
	want := headerVar(name)
	for _, h := range r.Headers {
		if strings.Contains(h.Name, "_") && !r.c.Global.EnableUnderscoresInHeaders && r.c.Global.IgnoreInvalidHeaders {
			continue
		}
		if headerVar(h.Name) == want {
			return h.Value, true
		}
	}
	return "", false
}

func headerVar(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

// cookie is $cookie_<name>: the first cookie of that name (ignoring case).
func (r reqView) cookie(name string) (string, bool) {
	for _, c := range r.Cookies {
		if strings.EqualFold(c.Name, name) {
			return c.Value, true
		}
	}
	return "", false
}

// passScheme is $pass_access_scheme: the scheme, or with
// use-forwarded-headers the client's X-Forwarded-Proto when it sends one.
func (r reqView) passScheme() string {
	if r.c.Global.UseForwardedHeaders {
		if v, ok := r.header("X-Forwarded-Proto"); ok && v != "" {
			return v
		}
	}
	return r.Scheme
}

// redirectHost is $kubectl_ingress_redirect_host (nginxconf_headers.go):
// $host, or with use-forwarded-headers the first entry of
// X-Forwarded-Host (else the Host header) up to its first ":".
func (r reqView) redirectHost(host string) string {
	if !r.c.Global.UseForwardedHeaders {
		return host
	}
	best := r.Host
	if v, ok := r.header("X-Forwarded-Host"); ok && v != "" {
		best, _, _ = strings.Cut(v, ",")
	} else if best == "" {
		best = host
	}
	b, _, _ := strings.Cut(best, ":")
	return b
}

// remoteAddr is $remote_addr: the client address, or the one the realip
// module takes from forwarded-for-header when the client is a trusted
// proxy (use-forwarded-headers or enable-real-ip; real_ip_recursive on:
// the rightmost untrusted address, else the leftmost).
func (r reqView) remoteAddr() string {
	g := r.c.Global
	if !(g.UseForwardedHeaders || g.RealIP.EnableRealIP) || g.RealIP.UseProxyProtocol {
		return r.ClientIP
	}
	trusted := func(a string) bool { return inCIDRs(a, g.RealIP.ProxyRealIPCIDR) }
	if !trusted(r.ClientIP) {
		return r.ClientIP
	}
	v, ok := r.header(g.RealIP.ForwardedForHeader)
	if !ok || v == "" {
		return r.ClientIP
	}
	parts := strings.Split(v, ",")
	addr := r.ClientIP
	for i := len(parts) - 1; i >= 0; i-- {
		a := strings.TrimSpace(parts[i])
		if _, err := netip.ParseAddr(a); err != nil {
			break
		}
		addr = a
		if !trusted(a) {
			break
		}
	}
	return addr
}

// inCIDRs says whether addr is in one of the networks (or equal to one
// of the addresses) of list.
func inCIDRs(addr string, list []string) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, c := range list {
		if p, err := netip.ParsePrefix(c); err == nil {
			if p.Contains(a) {
				return true
			}
			continue
		}
		if b, err := netip.ParseAddr(c); err == nil && b.Unmap() == a {
			return true
		}
	}
	return false
}
