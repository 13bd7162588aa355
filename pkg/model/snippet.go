package model

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
