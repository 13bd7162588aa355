package snippet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// where is the set of places a directive may stand.
type where uint8

const (
	// atLocation: a configuration-snippet (each location of the Ingress).
	atLocation where = 1 << iota
	// atServer: a server-snippet, outside any block.
	atServer
	// atNested: a location block nested in a server-snippet.
	atNested

	everywhere = atLocation | atServer | atNested
)

// target is the Snippet a block's directives fill, with what the block has
// seen so far.
type target struct {
	s *model.Snippet
	// seen are the single-valued directives already set in this block.
	seen map[string]bool
	// proxyVars are the extra variables proxy_set_header may read here.
	proxyVars []string
}

// spec is one allowlisted directive.
type spec struct {
	name    string
	where   where
	grammar string
	becomes string
	doc     string
	example string
	// single: nginx -t refuses the directive twice in one block.
	single bool
	// apply checks args and fills t; the error is the reason of the
	// Refusal.
	apply func(t *target, args []string) error
}

// serviceVars are the per-location variables of ingress-nginx that a
// configuration-snippet's proxy_set_header may read (Linkerd's
// l5d-dst-override); the writer sets them in each location that reads
// them, to the location's backend.
var serviceVars = []string{"namespace", "service_name", "service_port"}

// rewriteCaptures are the captures a rewrite replacement may read.
var rewriteCaptures = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}

// specs is the allowlist, sorted by name (location is translated by
// Translate itself: its apply is nil).
var specs = []spec{
	{name: "add_header", where: everywhere, grammar: "add_header NAME VALUE [always]",
		becomes: "Snippet.AddHeaders", example: `add_header X-Frame-Options "SAMEORIGIN" always;`,
		doc:   "Adds a response header (to 2xx and 3xx answers; to all with always). VALUE may read the allowlisted request and response variables.",
		apply: applyAddHeader},
	{name: "allow", where: everywhere, grammar: "allow all | ADDRESS | CIDR",
		becomes: "Snippet.Access", example: "allow 10.0.0.0/8;",
		doc:   "Allows clients of an address or network; with deny, the first line that matches decides.",
		apply: applyAccess(false)},
	{name: "chunked_transfer_encoding", where: everywhere, grammar: "chunked_transfer_encoding on | off", single: true,
		becomes: "Snippet.ChunkedTransferEncoding", example: "chunked_transfer_encoding off;",
		doc:   "Whether nginx may answer HTTP/1.1 clients with chunked bodies.",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.ChunkedTransferEncoding })},
	{name: "client_body_buffer_size", where: everywhere, grammar: "client_body_buffer_size SIZE", single: true,
		becomes: "Snippet.Proxy.ClientBodyBufSize", example: "client_body_buffer_size 64k;",
		doc:   "As the annotation client-body-buffer-size.",
		apply: applyProxy(annotations.SnippetBufferSize, func(p *model.SnippetProxy) *string { return &p.ClientBodyBufSize })},
	{name: "client_max_body_size", where: everywhere, grammar: "client_max_body_size SIZE", single: true,
		becomes: "Snippet.Proxy.BodySize", example: "client_max_body_size 0;",
		doc:   `As the annotation proxy-body-size ("0": no limit).`,
		apply: applyProxy(annotations.SnippetBodySize, func(p *model.SnippetProxy) *string { return &p.BodySize })},
	{name: "deny", where: everywhere, grammar: "deny all | ADDRESS | CIDR",
		becomes: "Snippet.Access", example: "deny all;",
		doc:   "Refuses clients of an address or network with 403; with allow, the first line that matches decides.",
		apply: applyAccess(true)},
	{name: "location", where: atServer, grammar: "location [= | ^~ | ~ | ~*] PATH { … }",
		becomes: "Snippet.Locations", example: "location ~ ^/(ping|ready|prometheus) { deny all; return 404; }",
		doc: "Only in a server-snippet, one level deep: a location of the server whose body holds directives of this table (no location in it). " +
			"PATH is a path for = (exact), ^~ and no modifier (prefix), a PCRE2-checked regex for ~ and ~*. It must not repeat a path of an Ingress of the host."},
	{name: "more_clear_headers", where: everywhere, grammar: "more_clear_headers [-s STATUSES] [-t TYPES] NAME…",
		becomes: "Snippet.MoreClearHeaders", example: "more_clear_headers Server X-Powered-By;",
		doc:   "headers-more: removes response headers (a NAME may end in * to match a prefix), for the given statuses and content types only when -s or -t is given.",
		apply: applyMoreHeaders(false)},
	{name: "more_set_headers", where: everywhere, grammar: `more_set_headers [-s STATUSES] [-t TYPES] "NAME: VALUE"…`,
		becomes: "Snippet.MoreSetHeaders", example: `more_set_headers "X-Content-Type-Options: nosniff";`,
		doc:   "headers-more: sets response headers on every answer, replacing the backend's; VALUE may read the allowlisted variables; an empty VALUE removes the header.",
		apply: applyMoreHeaders(true)},
	{name: "proxy_buffer_size", where: everywhere, grammar: "proxy_buffer_size SIZE", single: true,
		becomes: "Snippet.Proxy.BufferSize", example: "proxy_buffer_size 16k;",
		doc:   "As the annotation proxy-buffer-size.",
		apply: applyProxy(annotations.SnippetBufferSize, func(p *model.SnippetProxy) *string { return &p.BufferSize })},
	{name: "proxy_buffering", where: everywhere, grammar: "proxy_buffering on | off", single: true,
		becomes: "Snippet.Proxy.Buffering", example: "proxy_buffering off;",
		doc:   "As the annotation proxy-buffering.",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.Proxy.Buffering })},
	{name: "proxy_connect_timeout", where: everywhere, grammar: "proxy_connect_timeout TIME", single: true,
		becomes: "Snippet.Proxy.ConnectTimeout", example: "proxy_connect_timeout 10s;",
		doc:   `As the annotation proxy-connect-timeout: whole seconds, with no unit or "s", "m", "h".`,
		apply: applyProxy(annotations.SnippetSeconds, func(p *model.SnippetProxy) *string { return &p.ConnectTimeout })},
	{name: "proxy_hide_header", where: everywhere, grammar: "proxy_hide_header NAME",
		becomes: "Snippet.HideHeaders", example: "proxy_hide_header X-Powered-By;",
		doc:   "Does not pass a header of the backend's answer to the client.",
		apply: applyHideHeader},
	{name: "proxy_intercept_errors", where: everywhere, grammar: "proxy_intercept_errors on | off", single: true,
		becomes: "Snippet.ProxyInterceptErrors", example: "proxy_intercept_errors off;",
		doc:   "Whether backend answers of 300 and above go to the error pages (custom-http-errors).",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.ProxyInterceptErrors })},
	{name: "proxy_read_timeout", where: everywhere, grammar: "proxy_read_timeout TIME", single: true,
		becomes: "Snippet.Proxy.ReadTimeout", example: "proxy_read_timeout 300s;",
		doc:   `As the annotation proxy-read-timeout: whole seconds, with no unit or "s", "m", "h".`,
		apply: applyProxy(annotations.SnippetSeconds, func(p *model.SnippetProxy) *string { return &p.ReadTimeout })},
	{name: "proxy_request_buffering", where: everywhere, grammar: "proxy_request_buffering on | off", single: true,
		becomes: "Snippet.Proxy.RequestBuffering", example: "proxy_request_buffering off;",
		doc:   "As the annotation proxy-request-buffering.",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.Proxy.RequestBuffering })},
	{name: "proxy_send_timeout", where: everywhere, grammar: "proxy_send_timeout TIME", single: true,
		becomes: "Snippet.Proxy.SendTimeout", example: "proxy_send_timeout 300s;",
		doc:   `As the annotation proxy-send-timeout: whole seconds, with no unit or "s", "m", "h".`,
		apply: applyProxy(annotations.SnippetSeconds, func(p *model.SnippetProxy) *string { return &p.SendTimeout })},
	{name: "proxy_set_header", where: everywhere, grammar: "proxy_set_header NAME VALUE",
		becomes: "Snippet.ProxySetHeaders", example: "proxy_set_header l5d-dst-override $service_name.$namespace.svc.cluster.local:$service_port;",
		doc: "Sets a request header sent to the backend (an empty VALUE removes it). VALUE may read the allowlisted request variables and, in a configuration-snippet, " +
			"$service_name, $namespace and $service_port, which each location sets to its backend.",
		apply: applyProxySetHeader},
	{name: "proxy_ssl_verify", where: everywhere, grammar: "proxy_ssl_verify off", single: true,
		becomes: "nothing (nginx's default)", example: "proxy_ssl_verify off;",
		doc: `Only "off", nginx's default, which the annotations keep unless proxy-ssl-verify says "on": it is accepted and writes nothing.`,
		apply: func(_ *target, args []string) error {
			if len(args) != 1 || args[0] != "off" {
				return errors.New(`only "off" (nginx's default) is translated; use the annotations proxy-ssl-secret and proxy-ssl-verify to verify the backend's certificate`)
			}
			return nil
		}},
	{name: "return", where: everywhere, grammar: "return CODE [TEXT | URL] | return URL",
		becomes: "Snippet.RewritePhase (Return)", example: "return 301 https://example.com$request_uri;",
		doc:   "Ends the request with CODE (100 to 599, or 444 to close the connection); TEXT is the body, or for 301, 302, 303, 307 and 308 the redirect URL; a lone URL (http://, https:// or $scheme…) redirects with 302. TEXT and URL may read the allowlisted request variables.",
		apply: applyReturn},
	{name: "rewrite", where: everywhere, grammar: "rewrite REGEX REPLACEMENT [last | break | redirect | permanent]",
		becomes: "Snippet.RewritePhase (Rewrite)", example: "rewrite ^/api/(.*) /$1 break;",
		doc:   "Rewrites the URI matching REGEX (PCRE2-checked as nginx reads it); REPLACEMENT may read $1…$9 and the allowlisted request variables.",
		apply: applyRewrite},
	{name: "server_tokens", where: everywhere, grammar: "server_tokens on | off", single: true,
		becomes: "Snippet.ServerTokens", example: "server_tokens off;",
		doc:   "Whether nginx names its version in the Server header and error pages.",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.ServerTokens })},
	{name: "sub_filter", where: everywhere, grammar: "sub_filter MATCH REPLACEMENT",
		becomes: "Snippet.SubFilters", example: `sub_filter '</head>' '<link rel="stylesheet" href="/theme.css"></head>';`,
		doc:   "Replaces MATCH (not empty) by REPLACEMENT in response bodies of sub_filter_types; both may read the allowlisted variables.",
		apply: applySubFilter},
	{name: "sub_filter_once", where: everywhere, grammar: "sub_filter_once on | off", single: true,
		becomes: "Snippet.SubFilterOnce", example: "sub_filter_once on;",
		doc:   "Whether sub_filter replaces the first match only.",
		apply: applyFlag(func(s *model.Snippet) **bool { return &s.SubFilterOnce })},
	{name: "sub_filter_types", where: everywhere, grammar: "sub_filter_types TYPE…", single: true,
		becomes: "Snippet.SubFilterTypes", example: "sub_filter_types text/css application/javascript;",
		doc:   `The content types sub_filter works on besides text/html ("*": all).`,
		apply: applySubFilterTypes},
}

// lookup returns the spec of name, or nil.
func lookup(name string) *spec {
	for i := range specs {
		if specs[i].name == name {
			return &specs[i]
		}
	}
	return nil
}

// DirectiveDoc describes one allowlisted directive, for the docs.
type DirectiveDoc struct {
	Name string
	// Where lists the places it may stand: "configuration-snippet",
	// "server-snippet", "location in a server-snippet".
	Where   []string
	Grammar string
	// Becomes is the model setting it fills.
	Becomes     string
	Description string
	Example     string
}

// Directives returns the allowlist, sorted by name; a new slice each call.
func Directives() []DirectiveDoc {
	out := make([]DirectiveDoc, 0, len(specs))
	for _, s := range specs {
		var w []string
		if s.where&atLocation != 0 {
			w = append(w, "configuration-snippet")
		}
		if s.where&atServer != 0 {
			w = append(w, "server-snippet")
		}
		if s.where&atNested != 0 {
			w = append(w, "location in a server-snippet")
		}
		out = append(out, DirectiveDoc{Name: s.name, Where: w, Grammar: s.grammar, Becomes: s.becomes, Description: s.doc, Example: s.example})
	}
	return out
}

// Argument checks.

func nargs(args []string, min, max int) error {
	if len(args) < min || len(args) > max {
		switch {
		case min == max:
			return fmt.Errorf("takes %d %s, not %d", min, plural(min, "argument", "arguments"), len(args))
		case max > 100:
			return fmt.Errorf("takes at least %d %s", min, plural(min, "argument", "arguments"))
		}
		return fmt.Errorf("takes %d to %d arguments, not %d", min, max, len(args))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func headerName(v string) error {
	if err := annotations.CheckSnippetHeaderName(v); err != nil {
		return fmt.Errorf("header name %s %v", annotations.ValueQuote(v), err)
	}
	return nil
}

func value(what, v string, phase annotations.SnippetVarPhase, extra ...string) error {
	if err := annotations.CheckSnippetValue(v, phase, extra...); err != nil {
		return fmt.Errorf("%s %s %v", what, annotations.ValueQuote(v), err)
	}
	return nil
}

func applyAddHeader(t *target, args []string) error {
	if err := nargs(args, 2, 3); err != nil {
		return err
	}
	if len(args) == 3 && args[2] != "always" {
		return fmt.Errorf(`third argument %s must be "always"`, annotations.ValueQuote(args[2]))
	}
	if err := headerName(args[0]); err != nil {
		return err
	}
	if err := value("value", args[1], annotations.SnippetResponsePhase); err != nil {
		return err
	}
	t.s.AddHeaders = append(t.s.AddHeaders, model.SnippetAddHeader{
		Header: model.Header{Name: args[0], Value: args[1], Vars: true}, Always: len(args) == 3})
	return nil
}

func applyAccess(deny bool) func(*target, []string) error {
	return func(t *target, args []string) error {
		if err := nargs(args, 1, 1); err != nil {
			return err
		}
		src := args[0]
		if src != "all" {
			c, err := annotations.SnippetCIDR(src)
			if err != nil {
				return fmt.Errorf(`%s must be "all", an IP address or a CIDR network`, annotations.ValueQuote(src))
			}
			src = c
		}
		t.s.Access = append(t.s.Access, model.SnippetAccess{Deny: deny, Source: src})
		return nil
	}
}

func applyFlag(field func(*model.Snippet) **bool) func(*target, []string) error {
	return func(t *target, args []string) error {
		if err := nargs(args, 1, 1); err != nil {
			return err
		}
		b, err := annotations.SnippetOnOff(args[0])
		if err != nil {
			return fmt.Errorf("%s %v", annotations.ValueQuote(args[0]), err)
		}
		*field(t.s) = &b
		return nil
	}
}

func applyProxy(check func(string) (string, error), field func(*model.SnippetProxy) *string) func(*target, []string) error {
	return func(t *target, args []string) error {
		if err := nargs(args, 1, 1); err != nil {
			return err
		}
		v, err := check(args[0])
		if err != nil {
			return fmt.Errorf("%s %v", annotations.ValueQuote(args[0]), err)
		}
		*field(&t.s.Proxy) = v
		return nil
	}
}

func applyHideHeader(t *target, args []string) error {
	if err := nargs(args, 1, 1); err != nil {
		return err
	}
	if err := headerName(args[0]); err != nil {
		return err
	}
	t.s.HideHeaders = append(t.s.HideHeaders, args[0])
	return nil
}

func applyProxySetHeader(t *target, args []string) error {
	if err := nargs(args, 2, 2); err != nil {
		return err
	}
	if err := headerName(args[0]); err != nil {
		return err
	}
	if err := value("value", args[1], annotations.SnippetRequestPhase, t.proxyVars...); err != nil {
		return err
	}
	t.s.ProxySetHeaders = append(t.s.ProxySetHeaders, model.Header{Name: args[0], Value: args[1], Vars: true})
	return nil
}

// moreStatusesMax bounds the statuses and types of one -s or -t.
const moreListMax = 32

func applyMoreHeaders(set bool) func(*target, []string) error {
	return func(t *target, args []string) error {
		var m model.SnippetMoreHeaders
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch a {
			case "-s", "-t":
				if i+1 == len(args) {
					return fmt.Errorf("%s needs a value", a)
				}
				i++
				list := strings.Fields(args[i])
				if len(list) == 0 || len(list) > moreListMax {
					return fmt.Errorf("%s must list 1 to %d values", a, moreListMax)
				}
				for _, v := range list {
					if a == "-s" {
						n, err := strconv.Atoi(v)
						if err != nil || n < 100 || n > 599 || strconv.Itoa(n) != v {
							return fmt.Errorf("-s status %s must be a number from 100 to 599", annotations.ValueQuote(v))
						}
						m.Statuses = append(m.Statuses, n)
						continue
					}
					ty, err := annotations.SnippetMIMEType(v)
					if err != nil {
						return fmt.Errorf("-t type %s %v", annotations.ValueQuote(v), err)
					}
					m.Types = append(m.Types, ty)
				}
				continue
			}
			if !set {
				name := strings.TrimSuffix(a, "*")
				if err := headerName(name); err != nil {
					return err
				}
				m.Headers = append(m.Headers, model.Header{Name: a})
				continue
			}
			name, v, ok := strings.Cut(a, ":")
			if !ok {
				return fmt.Errorf(`header %s must be "NAME: VALUE"`, annotations.ValueQuote(a))
			}
			if err := headerName(name); err != nil {
				return err
			}
			v = strings.TrimLeft(v, " \t")
			if err := value("value", v, annotations.SnippetResponsePhase); err != nil {
				return err
			}
			m.Headers = append(m.Headers, model.Header{Name: name, Value: v, Vars: true})
		}
		if len(m.Headers) == 0 {
			return errors.New("names no header")
		}
		if set {
			t.s.MoreSetHeaders = append(t.s.MoreSetHeaders, m)
		} else {
			t.s.MoreClearHeaders = append(t.s.MoreClearHeaders, m)
		}
		return nil
	}
}

// isRedirectCode says whether nginx reads a return's text as a URL.
func isRedirectCode(n int) bool {
	return n == 301 || n == 302 || n == 303 || n == 307 || n == 308
}

func applyReturn(t *target, args []string) error {
	if err := nargs(args, 1, 2); err != nil {
		return err
	}
	r := model.SnippetReturn{}
	code, err := strconv.Atoi(args[0])
	switch {
	case err == nil && strconv.Itoa(code) == args[0]:
		if !(code >= 100 && code <= 599 || code == 444) {
			return fmt.Errorf("code %d must be from 100 to 599, or 444", code)
		}
		r.Code = code
		if len(args) == 2 {
			r.Text = args[1]
		}
	case len(args) == 1 && (strings.HasPrefix(args[0], "http://") || strings.HasPrefix(args[0], "https://") || strings.HasPrefix(args[0], "$scheme")):
		r.Code, r.Text = 302, args[0]
	default:
		return fmt.Errorf("%s must be a status code, or a URL starting with http://, https:// or $scheme", annotations.ValueQuote(args[0]))
	}
	what := "text"
	if isRedirectCode(r.Code) {
		what = "URL"
	}
	if err := value(what, r.Text, annotations.SnippetRequestPhase); err != nil {
		return err
	}
	t.s.RewritePhase = append(t.s.RewritePhase, model.SnippetRewriteStep{Return: &r})
	return nil
}

// checkRegex checks a regex of a rewrite or a location: visible ASCII
// (a "$" is an anchor there, not a variable) read alike by Go and PCRE2.
func checkRegex(v string) error {
	if err := checkVisible("regex", v); err != nil {
		return err
	}
	if err := annotations.CheckRegex(v); err != nil {
		return fmt.Errorf("regex %s is not one nginx reads as Go does: %v", annotations.ValueQuote(v), err)
	}
	return nil
}

// maxValue bounds a path or regex, as annotations bound free-form values.
const maxValue = 2048

// checkVisible refuses an empty value, a control character, a byte above
// 0x7e and a value over maxValue.
func checkVisible(what, v string) error {
	if v == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if len(v) > maxValue {
		return fmt.Errorf("%s is longer than %d bytes", what, maxValue)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c >= 0x7f {
			return fmt.Errorf("%s %s must be visible ASCII and spaces (found %q at byte %d)", what, annotations.ValueQuote(v), c, i)
		}
	}
	return nil
}

func applyRewrite(t *target, args []string) error {
	if err := nargs(args, 2, 3); err != nil {
		return err
	}
	r := model.SnippetRewrite{Regex: args[0], Replacement: args[1]}
	if len(args) == 3 {
		switch args[2] {
		case "last", "break", "redirect", "permanent":
			r.Flag = args[2]
		default:
			return fmt.Errorf(`flag %s must be "last", "break", "redirect" or "permanent"`, annotations.ValueQuote(args[2]))
		}
	}
	if err := checkRegex(r.Regex); err != nil {
		return err
	}
	if r.Replacement == "" {
		return errors.New("replacement is empty")
	}
	if err := value("replacement", r.Replacement, annotations.SnippetRequestPhase, rewriteCaptures...); err != nil {
		return err
	}
	t.s.RewritePhase = append(t.s.RewritePhase, model.SnippetRewriteStep{Rewrite: &r})
	return nil
}

func applySubFilter(t *target, args []string) error {
	if err := nargs(args, 2, 2); err != nil {
		return err
	}
	if args[0] == "" {
		return errors.New("the string to match is empty")
	}
	if err := value("match", args[0], annotations.SnippetResponsePhase); err != nil {
		return err
	}
	if err := value("replacement", args[1], annotations.SnippetResponsePhase); err != nil {
		return err
	}
	t.s.SubFilters = append(t.s.SubFilters, model.SnippetSubFilter{Match: args[0], Replacement: args[1]})
	return nil
}

func applySubFilterTypes(t *target, args []string) error {
	if err := nargs(args, 1, moreListMax); err != nil {
		return err
	}
	for _, a := range args {
		ty, err := annotations.SnippetMIMEType(a)
		if err != nil {
			return fmt.Errorf("type %s %v", annotations.ValueQuote(a), err)
		}
		t.s.SubFilterTypes = append(t.s.SubFilterTypes, ty)
	}
	return nil
}
