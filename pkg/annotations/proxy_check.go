package annotations

import (
	"fmt"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// nginx checks the buffer sizes of the proxy module together when it
// merges a location with what it inherits (ngx_http_proxy_merge_loc_conf;
// checked with nginx 1.22.1's nginx -t):
//
//   - proxy_buffers takes at least 2 buffers;
//   - proxy_busy_buffers_size (default: twice proxy_buffer_size) must be
//     at least proxy_buffer_size and one of proxy_buffers, and at most the
//     size of all proxy_buffers but one ("4 4k" takes 4k to 12k);
//   - proxy_max_temp_file_size must be 0 or at least proxy_buffer_size
//     and one of proxy_buffers.
//
// The writer always sizes proxy_buffers like proxy_buffer_size (as
// ingress-nginx does), so "the buffer size" below is both. A value that
// breaks a rule would fail nginx -t for every tenant: a location's own
// value that does is a Problem and is dropped; an inherited one (the
// ConfigMap's, or nginx's default) that a location's own buffers do not
// fit is replaced in that location by nginx's default for its buffers.

// CheckProxy checks the proxy settings of an Ingress's locations against
// the ConfigMap's g as nginx will, drops the values nginx would refuse
// (each a Problem) and completes what the location writes: the busy and
// temporary file sizes its own buffers need, and the proxy_redirect of
// proxy-redirect-from and -to with the ConfigMap's.
func CheckProxy(ing model.ObjectRef, g model.Global, loc *model.LocationSettings) []model.Problem {
	var problems []model.Problem
	p := &loc.Proxy
	invalid := func(name, v, reason string) {
		problems = append(problems, model.Problemf(ing, Field(name), "invalid value %s: %s; %s",
			ValueQuote(v), reason, lookupAnnotationSpec(name).onInvalid()))
	}

	size, _ := sizeBytes(g.ProxyBufferSize)
	if p.BufferSize != "" {
		size, _ = sizeBytes(p.BufferSize)
	}
	num := g.ProxyBuffersNumber
	if p.BuffersNumber != 0 {
		num = p.BuffersNumber
	}
	own := p.BufferSize != "" || p.BuffersNumber != 0
	lo, hi := size, int64(num-1)*size
	if p.BusyBuffersSize != "" {
		if busy, _ := sizeBytes(p.BusyBuffersSize); busy < lo || busy > hi {
			invalid("proxy-busy-buffers-size", p.BusyBuffersSize, fmt.Sprintf(
				"with a buffer size of %s and %d buffers nginx takes from %s to %s (nginx -t refuses other values)",
				formatSize(size), num, formatSize(lo), formatSize(hi)))
			p.BusyBuffersSize = ""
		}
	}
	if p.BusyBuffersSize == "" && own {
		inherited := 2 * size // nginx's default
		if g.ProxyBusyBuffersSize != "" {
			inherited, _ = sizeBytes(g.ProxyBusyBuffersSize)
		}
		if inherited < lo || inherited > hi {
			p.BusyBuffersSize = formatSize(min(2*size, hi))
		}
	}
	if p.MaxTempFileSize != "" {
		if n, _ := sizeBytes(p.MaxTempFileSize); p.MaxTempFileSize != "0" && n < size {
			invalid("proxy-max-temp-file-size", p.MaxTempFileSize, fmt.Sprintf(
				`must be "0" or at least the buffer size, %s (nginx -t refuses a smaller one)`, formatSize(size)))
			p.MaxTempFileSize = ""
		}
	}
	if p.MaxTempFileSize == "" && own {
		if n, _ := sizeBytes(g.ProxyMaxTempFileSize); g.ProxyMaxTempFileSize != "0" && n < size {
			p.MaxTempFileSize = formatSize(size)
		}
	}

	from, to := g.ProxyRedirectFrom, g.ProxyRedirectTo
	if p.RedirectFrom != "" {
		from = p.RedirectFrom
	}
	if p.RedirectTo != "" {
		to = p.RedirectTo
	}
	if r := redirectRewrite(from, to); !r.Off {
		p.Redirect = &r
		if r.Default && from != "default" && p.RedirectFrom != "" {
			problems = append(problems, model.Problemf(ing, Field("proxy-redirect-from"),
				`%s is replaced by nothing: proxy-redirect-to is "off", so nginx's default rewrite ("default") applies, as in ingress-nginx`,
				ValueQuote(from)))
		}
	}
	return problems
}

// finishProxyConfig checks the ConfigMap's buffer sizes together as nginx
// will (see CheckProxy): an invalid busy or temporary file size is a
// Problem and its default applies; with 2 buffers, whose busy size nginx's
// default (twice the buffer) does not fit, the busy size is one buffer.
func finishProxyConfig(cm model.ObjectRef, g *model.Global) []model.Problem {
	var problems []model.Problem
	invalid := func(key, v, reason, fallback string) {
		problems = append(problems, model.Problem{Object: cm, Field: ConfigField(key),
			Reason: fmt.Sprintf("invalid value %s: %s; %s", ValueQuote(v), reason, fallback)})
	}
	size, _ := sizeBytes(g.ProxyBufferSize)
	lo, hi := size, int64(g.ProxyBuffersNumber-1)*size
	if g.ProxyBusyBuffersSize != "" {
		if busy, _ := sizeBytes(g.ProxyBusyBuffersSize); busy < lo || busy > hi {
			invalid("proxy-busy-buffers-size", g.ProxyBusyBuffersSize, fmt.Sprintf(
				"must be from %s to %s with proxy-buffer-size %s and proxy-buffers-number %d (nginx -t refuses other values)",
				formatSize(lo), formatSize(hi), g.ProxyBufferSize, g.ProxyBuffersNumber),
				"the key is ignored: nginx's default (twice proxy-buffer-size) applies")
			g.ProxyBusyBuffersSize = ""
		}
	}
	if g.ProxyBusyBuffersSize == "" && 2*size > hi {
		g.ProxyBusyBuffersSize = formatSize(hi)
	}
	if n, _ := sizeBytes(g.ProxyMaxTempFileSize); g.ProxyMaxTempFileSize != "0" && n < size {
		def := model.DefaultProxyGlobals().ProxyMaxTempFileSize
		invalid("proxy-max-temp-file-size", g.ProxyMaxTempFileSize, fmt.Sprintf(
			`must be "0" or at least proxy-buffer-size, %s (nginx -t refuses a smaller one)`, g.ProxyBufferSize), "using the default ("+def+")")
		g.ProxyMaxTempFileSize = def
	}
	return problems
}
