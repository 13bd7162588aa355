package nginxconf

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeCORS writes enable-cors as ingress-nginx answers it (its nginx.tmpl
// CORS template, checked by its e2e test annotations/cors.go):
//
//   - with cors-allow-origin "*" every answer carries the CORS headers,
//     Access-Control-Allow-Origin "*", with or without an Origin header;
//   - with a list of origins, only a request whose Origin matches one of
//     them (case-insensitively; "*." stands for exactly one DNS label) gets
//     the headers, its own Origin echoed; any other request, with another
//     Origin or none, gets no CORS header at all, and a header the backend
//     sent passes unchanged;
//   - Access-Control-Max-Age is on every CORS answer, not only preflight;
//   - a preflight (OPTIONS) of an allowed origin is answered 204 here; an
//     OPTIONS request of another origin goes to the backend.
//
// The headers are set with headers-more inside the "if" blocks, so they
// replace a backend's own CORS header instead of doubling it, and the
// location's add_header lines (HSTS) still apply: an "if" block that adds
// none inherits them. The list values (methods, headers) are the
// annotations as written, checked to be tokens in pkg/annotations.
func writeCORS(w *confWriter, c *model.CORS) {
	anyOrigin := len(c.AllowOrigins) == 0 || c.AllowOrigins[0] == "*"
	origin := "$http_origin"
	if anyOrigin {
		origin = "*"
		w.line("set", "$cors_match", "true")
	} else {
		w.line("set", "$cors_match", `""`)
		for _, re := range originsRegexes(c.AllowOrigins) {
			w.open("if", "($http_origin", "~*", w.q(re), ")")
			w.line("set", "$cors_match", "true")
			w.close()
		}
	}
	w.open("if", "($request_method", "=", "OPTIONS)")
	w.line("set", "$cors_match", "${cors_match}options")
	w.close()
	w.open("if", "($cors_match", "=", "true)")
	corsHeaders(w, c, origin)
	w.close()
	w.open("if", "($cors_match", "=", "trueoptions)")
	corsHeaders(w, c, origin)
	w.line("more_set_headers", w.q("Content-Type: text/plain; charset=utf-8"))
	w.line("more_set_headers", w.q("Content-Length: 0"))
	w.line("return", "204")
	w.close()
}

func corsHeaders(w *confWriter, c *model.CORS, origin string) {
	set := func(name, value string) {
		w.line("more_set_headers", w.q(name+": "+value))
	}
	set("Access-Control-Allow-Origin", origin)
	if c.AllowCredentials {
		set("Access-Control-Allow-Credentials", "true")
	}
	if c.AllowMethods != "" {
		set("Access-Control-Allow-Methods", c.AllowMethods)
	}
	if c.AllowHeaders != "" {
		set("Access-Control-Allow-Headers", c.AllowHeaders)
	}
	if c.ExposeHeaders != "" {
		set("Access-Control-Expose-Headers", c.ExposeHeaders)
	}
	set("Access-Control-Max-Age", strconv.Itoa(c.MaxAge))
}

// regexMaxParam bounds the regex of one "if" that matches CORS origins
// (see writeCORS); longer lists are split. nginx reads a parameter of at
// most 4095 bytes, quotes included.
const regexMaxParam = 2048

// originsRegexes match the allowed origins exactly, from the first byte to
// the last; "*." in an origin stands for exactly one DNS label, as
// ingress-nginx's regex ([A-Za-z0-9-]+ in place of the "*"):
// "http://*.origin.cors.com" matches http://foo.origin.cors.com, not
// http://bar.foo.origin.cors.com. (ingress-nginx anchors its regex only at
// the end; ours is anchored at both ends, which accepts no origin that
// ingress-nginx refuses and refuses only values that are not an origin of
// the list.) The origins are spread over as many regexes as it takes for
// each to stay below regexMaxParam bytes once quoted: nginx refuses a
// parameter of 4096 bytes, about 90 wildcard origins in one regex.
func originsRegexes(origins []string) []string {
	var out, parts []string
	const frame = len(`"^()$"`)
	size := frame
	for _, o := range origins {
		p := strings.Replace(regexp.QuoteMeta(o), `\*\.`, `[A-Za-z0-9-]+\.`, 1)
		n := len(p) + strings.Count(p, `\`) + 1 // quoted, and a "|"
		if len(parts) > 0 && size+n > regexMaxParam {
			out = append(out, "^("+strings.Join(parts, "|")+")$")
			parts, size = nil, frame
		}
		parts = append(parts, p)
		size += n
	}
	return append(out, "^("+strings.Join(parts, "|")+")$")
}
