package model

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Snippet is a snippet annotation (configuration-snippet, server-snippet)
// translated by pkg/snippet into typed directives. No byte of the snippet's
// text reaches nginx.conf: the writer writes these values through its one
// quoting function, as it writes every annotation. Every string here was
// validated by pkg/snippet (header names are HTTP tokens, variables come
// from the snippet allowlist, regexes are PCRE2-checked, CIDRs parsed).
//
// The writer emits the directives of a location after its own settings and
// before the proxying (where ingress-nginx put the snippet text), in this
// order: Access, RewritePhase, the header lists, the sub_filter lines, the
// flags; a server's directives at the end of its server block, its
// Locations after the Ingress locations.
type Snippet struct {
	// Annotation is "configuration-snippet" or "server-snippet".
	Annotation string
	// Ingress is the Ingress whose annotation this is.
	Ingress ObjectRef

	// Access are allow/deny lines in their order (nginx takes the first
	// that matches).
	Access []SnippetAccess
	// RewritePhase are rewrite and return lines in their order (nginx runs
	// them in order in its rewrite phase; a return ends it).
	RewritePhase []SnippetRewriteStep

	// AddHeaders are add_header lines (response headers).
	AddHeaders []SnippetAddHeader
	// MoreSetHeaders and MoreClearHeaders are headers-more's
	// more_set_headers / more_clear_headers lines.
	MoreSetHeaders   []SnippetMoreHeaders
	MoreClearHeaders []SnippetMoreHeaders
	// HideHeaders are proxy_hide_header names (headers of the backend's
	// response not passed to the client).
	HideHeaders []string
	// ProxySetHeaders are proxy_set_header lines (request headers to the
	// backend); Header.Vars is always true (values may hold allowlisted
	// variables).
	ProxySetHeaders []Header

	// SubFilters are sub_filter lines; SubFilterOnce and SubFilterTypes
	// are sub_filter_once and sub_filter_types (nil/empty: nginx's default).
	SubFilters     []SnippetSubFilter
	SubFilterOnce  *bool
	SubFilterTypes []string

	// ServerTokens is server_tokens on|off (nil: unset).
	ServerTokens *bool
	// ProxyInterceptErrors is proxy_intercept_errors (nil: unset).
	ProxyInterceptErrors *bool
	// ChunkedTransferEncoding is chunked_transfer_encoding (nil: unset).
	ChunkedTransferEncoding *bool

	// Proxy holds the timeouts and sizes that have an annotation too
	// (proxy_read_timeout, client_max_body_size …); a zero field is unset.
	Proxy SnippetProxy

	// Locations are the nested location blocks of a server-snippet (empty
	// in a configuration-snippet); their Snippet has no Locations.
	Locations []SnippetLocation

	// Translated counts the translated directives by name, for the notice
	// render writes ("3 directives translated: add_header ×3").
	Translated map[string]int
}

// SnippetAccess is one allow or deny line.
type SnippetAccess struct {
	Deny bool
	// Source is "all" or a validated IP address or CIDR.
	Source string
}

// SnippetRewriteStep is a rewrite or a return line; exactly one of Rewrite
// and Return is set.
type SnippetRewriteStep struct {
	Rewrite *SnippetRewrite
	Return  *SnippetReturn
}

// SnippetRewrite is "rewrite Regex Replacement [Flag]".
type SnippetRewrite struct {
	// Regex is a PCRE2-checked regex; Replacement may hold $1..$9 and
	// allowlisted variables.
	Regex       string
	Replacement string
	// Flag is "", "last", "break", "redirect" or "permanent".
	Flag string
}

// SnippetReturn is "return Code [Text]" or "return URL" (Code 302).
type SnippetReturn struct {
	Code int
	// Text is the body (codes other than 301, 302, 303, 307, 308) or the
	// redirect URL; it may hold allowlisted variables; "" for none.
	Text string
}

// SnippetAddHeader is "add_header Name Value [always]".
type SnippetAddHeader struct {
	Header
	Always bool
}

// SnippetMoreHeaders is one more_set_headers or more_clear_headers line:
// its -s status codes, -t content types and "Name: value" (or, to clear,
// "Name") arguments.
type SnippetMoreHeaders struct {
	Statuses []int
	Types    []string
	// Headers hold Name and, for more_set_headers, Value (Vars true).
	Headers []Header
}

// SnippetSubFilter is "sub_filter Match Replacement".
type SnippetSubFilter struct {
	Match       string
	Replacement string // may hold allowlisted variables
}

// SnippetProxy are the settings a snippet may set that annotations set
// too; "" is unset. Durations are nginx times ("60s"), sizes nginx sizes
// ("8m"), as validated.
type SnippetProxy struct {
	ConnectTimeout    string // proxy_connect_timeout
	SendTimeout       string // proxy_send_timeout
	ReadTimeout       string // proxy_read_timeout
	BodySize          string // client_max_body_size
	BufferSize        string // proxy_buffer_size
	Buffering         *bool  // proxy_buffering
	RequestBuffering  *bool  // proxy_request_buffering
	ClientBodyBufSize string // client_body_buffer_size
}

// SnippetLocation is a location block nested in a server-snippet.
type SnippetLocation struct {
	// Modifier is "=" (exact), "" (prefix), "^~" (prefix, no regex after
	// it), "~" (regex) or "~*" (case-insensitive regex).
	Modifier string
	// Path is the location's path or PCRE2-checked regex.
	Path string
	// Body is what the block holds (never nested Locations).
	Body Snippet
}

// ShapeBlocker names the first directive of a configuration-snippet that
// the Lua router (--routing=lua) cannot serve in a shape location
// (LocationShape.Snippet), "" when it can. Such a snippet keeps its host
// in a classic server block:
//   - a return of a code below 200 (the router answers 200 to 599 and 444)
//     or of a redirect without a URL;
//     the other rewrite and return lines the router runs itself, in the
//     classic location's order (luaapi's RouteSettings.Rewrites), and the
//     shape location has none of them (ShapePart);
//   - proxy_connect_timeout, proxy_send_timeout and proxy_read_timeout:
//     the router sets a route's own timeouts in the balancer, over the
//     location's;
//   - client_max_body_size and proxy_request_buffering: the router checks a
//     route's body size itself unless the shape streams the body;
//   - proxy_buffer_size: the busy and temporary sizes that must fit it are
//     the location's (writeSnippetBuffers);
//   - location: a configuration-snippet has none (pkg/snippet), checked
//     all the same.
func (sn *Snippet) ShapeBlocker() string {
	for _, st := range sn.RewritePhase {
		if r := st.Return; r != nil && (r.Code < 200 || isRedirectCode(r.Code) && r.Text == "") {
			return "return"
		}
	}
	p := &sn.Proxy
	for _, d := range []struct {
		set  bool
		name string
	}{
		{p.ConnectTimeout != "", "proxy_connect_timeout"},
		{p.SendTimeout != "", "proxy_send_timeout"},
		{p.ReadTimeout != "", "proxy_read_timeout"},
		{p.BodySize != "", "client_max_body_size"},
		{p.RequestBuffering != nil, "proxy_request_buffering"},
		{p.BufferSize != "", "proxy_buffer_size"},
		{len(sn.Locations) > 0, "location"},
	} {
		if d.set {
			return d.name
		}
	}
	return ""
}

// ShapePart is what of sn a shape location of the Lua router writes: sn
// without its rewrite and return lines, which the router runs itself
// before it enters the shape location's later phases (nginx would run
// them in the shape location's rewrite phase, before the router, on a URI
// the router then matches again); nil when nothing else is left.
func (sn *Snippet) ShapePart() *Snippet {
	if sn == nil || len(sn.RewritePhase) == 0 {
		return sn
	}
	c := *sn
	c.RewritePhase = nil
	c.Translated = maps.Clone(sn.Translated)
	delete(c.Translated, "rewrite")
	delete(c.Translated, "return")
	if c.ShapeKey() == emptySnippetKey {
		return nil
	}
	return &c
}

// emptySnippetKey is the ShapeKey of a snippet without directives.
var emptySnippetKey = (&Snippet{}).ShapeKey()

// ShapeKey is a canonical text of the directives of sn (not its
// annotation, Ingress or counts): equal snippets of different Ingresses
// share one shape location.
func (sn *Snippet) ShapeKey() string {
	if sn == nil {
		return ""
	}
	c := *sn
	c.Annotation, c.Ingress, c.Translated = "", ObjectRef{}, nil
	b, err := json.Marshal(c) // pointers by their values
	if err != nil {
		panic("model: a Snippet does not encode: " + err.Error()) // plain data
	}
	return string(b)
}

// DirectiveNames are the names of the directives of sn, sorted, each once
// ("add_header", "proxy_set_header"), for the reasons of diff.
func (sn *Snippet) DirectiveNames() []string {
	return slices.Sorted(maps.Keys(sn.Translated))
}

// NamesResponseHeader tells whether sn's add_header, more_set_headers or
// more_clear_headers lines name the response header name (case aside),
// and whether it replaces it on every answer: named by more_set_headers or
// more_clear_headers lines without -s or -t only. A classic location
// writes custom-headers before the snippet, so the snippet's lines win
// them; the Lua router leaves out of a route's custom-headers those the
// snippet always replaces, and keeps a host with any other overlap
// classic (an add_header beside a more_set_headers, or a line for some
// statuses or types only, cannot be ordered from Lua).
func (sn *Snippet) NamesResponseHeader(name string) (named, always bool) {
	if sn == nil {
		return false, false
	}
	always = true
	for _, h := range sn.AddHeaders {
		if strings.EqualFold(h.Name, name) {
			named, always = true, false
		}
	}
	for _, lines := range [][]SnippetMoreHeaders{sn.MoreSetHeaders, sn.MoreClearHeaders} {
		for _, m := range lines {
			for _, h := range m.Headers {
				if strings.EqualFold(h.Name, name) {
					named = true
					always = always && len(m.Statuses) == 0 && len(m.Types) == 0
				}
			}
		}
	}
	return named, named && always
}
