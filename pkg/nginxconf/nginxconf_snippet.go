package nginxconf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Translated snippets (model.Snippet): the typed directives pkg/snippet
// made of a configuration-snippet or server-snippet. Every value goes
// through q like every annotation's; no byte of the snippet text is
// written. A location's snippet comes after its own settings and before
// its rewrite-target and proxy_pass (where ingress-nginx's template put
// the snippet text); a server's at the end of its server block, its
// nested locations after the Ingress locations. Within a block the order
// is model.Snippet's: Access, RewritePhase, the header lists, sub_filter,
// the flags, then the proxy settings.
//
// nginx inherits some directives only into blocks that set none of them
// (proxy_set_header, add_header, proxy_hide_header): a block that sets one
// drops every inherited line. So where a snippet sets one, its block
// writes the inherited lines again first (http level's, then the
// server-snippet's), the snippet's own last, each header once (a
// snippet's header replaces a same-named one). allow/deny and sub_filter
// keep nginx's rule (a location's own lines replace the server's), as
// ingress-nginx's raw snippets did.
//
// A snippet's value wins over the annotation's or ConfigMap's in its
// block: the writer leaves out its own line of a directive the snippet
// sets there (snippetDrop), since nginx refuses a directive twice in one
// block ("directive is duplicate") and sends a header set twice twice.
// A snippet's proxy_buffer_size comes with the busy and temporary file
// sizes nginx -t requires of it (writeSnippetBuffers).
//
// ingress-nginx's per-location variables ($namespace, $ingress_name,
// $service_name, $service_port) exist only where the config sets them: a
// block whose snippet reads one sets it first (writeSnippetVars).

// snippetState is what the writer knows of snippets while it writes a
// server: the server (for its server-snippet) and the lines to leave out.
type snippetState struct {
	server *model.Server
	drop   *snippetDrop
}

// snippetDrop names the writer's own lines that a snippet overrides in the
// block at depth: whole directives, and header directives by header name
// (lower case).
type snippetDrop struct {
	depth      int
	directives map[string]bool
	headers    map[string]map[string]bool
}

// drops tells whether line leaves out the directive of tokens written at
// depth (nil: none).
func (d *snippetDrop) drops(depth int, tokens []string) bool {
	if d == nil || depth != d.depth || len(tokens) == 0 {
		return false
	}
	if d.directives[tokens[0]] {
		return true
	}
	if names := d.headers[tokens[0]]; names != nil && len(tokens) > 1 {
		return names[strings.ToLower(strings.Trim(tokens[1], `"`))]
	}
	return false
}

func (d *snippetDrop) header(directive, name string) {
	if d.headers[directive] == nil {
		d.headers[directive] = map[string]bool{}
	}
	d.headers[directive][strings.ToLower(name)] = true
}

// proxyDirectives are the directives of SnippetProxy that p sets.
func proxyDirectives(p model.SnippetProxy) []string {
	var out []string
	for _, d := range []struct {
		set  bool
		name []string
	}{
		{p.ConnectTimeout != "", []string{"proxy_connect_timeout"}},
		{p.SendTimeout != "", []string{"proxy_send_timeout"}},
		{p.ReadTimeout != "", []string{"proxy_read_timeout"}},
		{p.BodySize != "", []string{"client_max_body_size"}},
		// the lines that must fit proxy_buffer_size come with it
		// (writeSnippetBuffers)
		{p.BufferSize != "", []string{"proxy_buffer_size", "proxy_buffers", "proxy_busy_buffers_size", "proxy_max_temp_file_size"}},
		{p.Buffering != nil, []string{"proxy_buffering"}},
		{p.RequestBuffering != nil, []string{"proxy_request_buffering"}},
		{p.ClientBodyBufSize != "", []string{"client_body_buffer_size"}},
	} {
		if d.set {
			out = append(out, d.name...)
		}
	}
	return out
}

// newSnippetDrop is the drop of a block at depth in which own is written
// after outer (either may be nil).
func newSnippetDrop(depth int, outer, own *model.Snippet) *snippetDrop {
	d := &snippetDrop{depth: depth, directives: map[string]bool{}, headers: map[string]map[string]bool{}}
	for _, sn := range []*model.Snippet{outer, own} {
		if sn == nil {
			continue
		}
		for _, h := range sn.ProxySetHeaders {
			d.header("proxy_set_header", h.Name)
		}
		for _, h := range sn.AddHeaders {
			d.header("add_header", h.Name)
		}
	}
	if own != nil {
		for _, name := range proxyDirectives(own.Proxy) {
			d.directives[name] = true
		}
		for _, f := range []struct {
			set  bool
			name string
		}{
			{own.ServerTokens != nil, "server_tokens"},
			{own.ProxyInterceptErrors != nil, "proxy_intercept_errors"},
			{own.ChunkedTransferEncoding != nil, "chunked_transfer_encoding"},
			{own.SubFilterOnce != nil, "sub_filter_once"},
			{len(own.SubFilterTypes) > 0, "sub_filter_types"},
		} {
			if f.set {
				d.directives[f.name] = true
			}
		}
	}
	return d
}

// beginServerSnippet notes the server being written, for its locations.
func beginServerSnippet(w *confWriter, s *model.Server) {
	w.snippet = snippetState{server: s}
}

// serverSnippet is the server-snippet of the server being written (nil
// for none).
func (w *confWriter) serverSnippet() *model.Snippet {
	if w.snippet.server == nil {
		return nil
	}
	return w.snippet.server.Snippet
}

// beginLocationSnippet starts the body of l: while it is written, the
// writer leaves out its own lines that l's snippet (or the server's)
// overrides. It returns the function that ends that.
func beginLocationSnippet(w *confWriter, l *model.Location) func() {
	own, outer := l.Settings.Snippet, w.serverSnippet()
	if own == nil && outer == nil {
		return func() {}
	}
	w.snippet.drop = newSnippetDrop(w.depth, outer, own)
	if serverBuffers(own, outer) {
		w.snippet.drop.directives["proxy_busy_buffers_size"] = true
		w.snippet.drop.directives["proxy_max_temp_file_size"] = true
	}
	return func() { w.snippet.drop = nil }
}

// serverBuffers tells whether a location inherits the proxy_buffer_size of
// its server-snippet: its proxy_busy_buffers_size and
// proxy_max_temp_file_size, which must fit its buffers, are then the
// snippet writer's (writeBufferFit).
func serverBuffers(own, outer *model.Snippet) bool {
	return outer != nil && outer.Proxy.BufferSize != "" && (own == nil || own.Proxy.BufferSize == "")
}

// snippetProxyHeaders tells whether l's snippet or its server's sets a
// request header: the location then writes its whole proxy_set_header set
// (writeLocationBody), which the snippets' headers join.
func snippetProxyHeaders(w *confWriter, l *model.Location) bool {
	own, outer := l.Settings.Snippet, w.serverSnippet()
	return (own != nil && len(own.ProxySetHeaders) > 0) || (outer != nil && len(outer.ProxySetHeaders) > 0)
}

// snippetScope is what a block of snippet directives inherits.
type snippetScope struct {
	g *model.Global
	// outer is the server-snippet around a location (nil at server level).
	outer *model.Snippet
	// server is true at server level, where the whole proxy_set_header set
	// is written again before the snippet's.
	server bool
	// proxies is true in an Ingress location, which has written the whole
	// proxy_set_header set when a snippet sets a request header
	// (snippetProxyHeaders); the server-snippet's join it.
	proxies bool
	// authHSTS is true when the block wrote the HSTS add_header itself
	// (external authentication: writeAuthRequest).
	authHSTS bool
	// buffersNumber is the proxy_buffers number of the block, maxTemp its
	// proxy_max_temp_file_size.
	buffersNumber int
	maxTemp       string
}

// writeLocationSnippet writes l's configuration-snippet (and what l must
// write again of its server-snippet), owned by the snippet's Ingress.
func writeLocationSnippet(w *confWriter, c *model.Config, l *model.Location) {
	own, outer := l.Settings.Snippet, w.serverSnippet()
	if own == nil && outer == nil {
		return
	}
	owner := outer
	if own != nil {
		owner = own
	}
	host, location := "", ""
	if w.snippet.server != nil {
		host = w.snippet.server.Hostname
	}
	if w.owners != nil && len(w.owners.blocks) > 0 {
		location = w.owners.blocks[len(w.owners.blocks)-1].Location
	}
	drop := w.snippet.drop
	w.snippet.drop = nil
	block := w.beginOwned(host, location, []model.ObjectRef{owner.Ingress})
	num, maxTemp := blockBuffers(&c.Global, &l.Settings.Proxy)
	writeSnippetVars(w, func(v string) (string, bool) {
		if logFormatReads(c.Global.Logging.FormatUpstream, v) || (w.monitor && slices.Contains(monitorVars, v)) {
			return "", false // writeLogLocationVars has set it
		}
		return map[string]string{"namespace": l.Ingress.Namespace, "ingress_name": l.Ingress.Name,
			"service_name": l.Service, "service_port": l.ServicePort}[v], true
	}, own, outer)
	if own == nil {
		own = &model.Snippet{}
	}
	writeSnippetDirectives(w, own, snippetScope{g: &c.Global, outer: outer, proxies: true, authHSTS: c.AuthOf(l) != nil, buffersNumber: num, maxTemp: maxTemp})
	if serverBuffers(l.Settings.Snippet, outer) {
		// the location's own buffers (writeLocationProxy), else the
		// server-snippet's
		size := c.Global.ProxyBufferSize
		if b := l.Settings.Proxy.BufferSize; b != "" {
			size = b
		}
		if size == c.Global.ProxyBufferSize && num == c.Global.ProxyBuffersNumber {
			size, num = outer.Proxy.BufferSize, max(c.Global.ProxyBuffersNumber, 2)
		}
		writeBufferFit(w, size, num, maxTemp)
	}
	w.endOwned(block)
	w.snippet.drop = drop
}

// blockBuffers are the proxy_buffers number and proxy_max_temp_file_size
// of a location with proxy settings p: its own, else the ConfigMap's.
func blockBuffers(g *model.Global, p *model.ProxySettings) (int, string) {
	num, maxTemp := g.ProxyBuffersNumber, g.ProxyMaxTempFileSize
	if p.BuffersNumber != 0 {
		num = p.BuffersNumber
	}
	if p.MaxTempFileSize != "" {
		maxTemp = p.MaxTempFileSize
	}
	return num, maxTemp
}

// snippetHasRoot tells whether s's server-snippet has a prefix location
// "/", which then takes the place of the server's fallback location.
func snippetHasRoot(s *model.Server) bool {
	if s.Snippet == nil {
		return false
	}
	for _, l := range s.Snippet.Locations {
		if l.Path == "/" && (l.Modifier == "" || l.Modifier == "^~") {
			return true
		}
	}
	return false
}

// writeServerSnippet writes s's server-snippet at the end of its server
// block: its nested locations, then its server-level directives, all
// owned by the snippet's Ingress.
func writeServerSnippet(w *confWriter, c *model.Config, s *model.Server) {
	sn := s.Snippet
	w.snippet = snippetState{}
	if sn == nil {
		return
	}
	g := &c.Global
	for i := range sn.Locations {
		l := &sn.Locations[i]
		args := []string{"location"}
		if l.Modifier != "" {
			switch l.Modifier {
			case "=", "^~", "~", "~*":
			default:
				w.fail(snippetError("location modifier " + strconv.Quote(l.Modifier)))
				return
			}
			args = append(args, l.Modifier)
		}
		args = append(args, w.q(l.Path))
		if len(l.Body.Locations) > 0 {
			w.fail(snippetError("location " + strconv.Quote(l.Path) + " holds nested locations"))
			return
		}
		block := w.beginOwned(s.Hostname, strings.Join(args[1:], " "), []model.ObjectRef{sn.Ingress})
		w.open(args...)
		// it proxies nothing: not the server's balancer.rewrite(), which
		// would answer 503 before the location's allow/deny (nginx's
		// access phase) or files
		w.open("rewrite_by_lua_block")
		w.close()
		writeSnippetVars(w, snippetIngressVars(sn.Ingress), &l.Body)
		writeSnippetDirectives(w, &l.Body, snippetScope{g: g, outer: sn, buffersNumber: g.ProxyBuffersNumber, maxTemp: g.ProxyMaxTempFileSize})
		w.close()
		w.endOwned(block)
	}
	block := w.beginOwned(s.Hostname, "", []model.ObjectRef{sn.Ingress})
	writeSnippetVars(w, snippetIngressVars(sn.Ingress), sn)
	writeSnippetDirectives(w, sn, snippetScope{g: g, server: true, buffersNumber: g.ProxyBuffersNumber, maxTemp: g.ProxyMaxTempFileSize})
	w.endOwned(block)
}

// snippetVarNames are ingress-nginx's per-location variables that a
// snippet may read. nginx knows a variable only where the config declares
// it, so a block whose snippet reads one sets it first (writeSnippetVars).
var snippetVarNames = []string{"namespace", "ingress_name", "service_name", "service_port"}

// snippetIngressVars gives the values of snippetVarNames in a block of a
// server-snippet: the snippet's Ingress; no Service there.
func snippetIngressVars(ing model.ObjectRef) func(string) (string, bool) {
	return func(v string) (string, bool) {
		switch v {
		case "namespace":
			return ing.Namespace, true
		case "ingress_name":
			return ing.Name, true
		}
		return "", true
	}
}

// writeSnippetVars sets each variable of snippetVarNames that a value of
// the snippets reads, to value(name) unless value says it is set already.
func writeSnippetVars(w *confWriter, value func(string) (string, bool), sns ...*model.Snippet) {
	var texts []string
	for _, sn := range sns {
		if sn != nil {
			texts = append(texts, snippetTexts(sn)...)
		}
	}
	all := strings.Join(texts, "\x00")
	for _, v := range snippetVarNames {
		if !logFormatReads(all, v) {
			continue
		}
		if val, ok := value(v); ok {
			w.line("set", "$"+v, w.q(noVars(val)))
		}
	}
}

// snippetTexts are the values of sn that may hold variables.
func snippetTexts(sn *model.Snippet) []string {
	var out []string
	for _, st := range sn.RewritePhase {
		if st.Rewrite != nil {
			out = append(out, st.Rewrite.Replacement)
		}
		if st.Return != nil {
			out = append(out, st.Return.Text)
		}
	}
	for _, h := range sn.AddHeaders {
		out = append(out, h.Value)
	}
	for _, m := range sn.MoreSetHeaders {
		for _, h := range m.Headers {
			out = append(out, h.Value)
		}
	}
	for _, h := range sn.ProxySetHeaders {
		out = append(out, h.Value)
	}
	for _, f := range sn.SubFilters {
		out = append(out, f.Match, f.Replacement)
	}
	return out
}

type snippetError string

func (e snippetError) Error() string { return "snippet: " + string(e) }

// writeSnippetDirectives writes the directives of sn in a block that
// inherits sc, in model.Snippet's order.
func writeSnippetDirectives(w *confWriter, sn *model.Snippet, sc snippetScope) {
	for _, a := range sn.Access {
		verb := "allow"
		if a.Deny {
			verb = "deny"
		}
		if a.Source == "all" {
			w.line(verb, "all")
		} else {
			w.line(verb, w.q(a.Source))
		}
	}
	for _, st := range sn.RewritePhase {
		writeSnippetRewriteStep(w, st)
	}
	writeSnippetAddHeaders(w, sn, sc)
	for _, m := range sn.MoreSetHeaders {
		writeMoreHeaders(w, "more_set_headers", m, true)
	}
	for _, m := range sn.MoreClearHeaders {
		writeMoreHeaders(w, "more_clear_headers", m, false)
	}
	writeSnippetHideHeaders(w, sn, sc)
	writeSnippetProxyHeaders(w, sn, sc)
	for _, f := range sn.SubFilters {
		w.line("sub_filter", w.q(f.Match), w.q(f.Replacement))
	}
	if sn.SubFilterOnce != nil {
		w.line("sub_filter_once", onOff(*sn.SubFilterOnce))
	}
	if len(sn.SubFilterTypes) > 0 {
		line := []string{"sub_filter_types"}
		for _, t := range sn.SubFilterTypes {
			line = append(line, w.q(t))
		}
		w.line(line...)
	}
	if sn.ServerTokens != nil {
		w.line("server_tokens", onOff(*sn.ServerTokens))
	}
	if sn.ProxyInterceptErrors != nil {
		w.line("proxy_intercept_errors", onOff(*sn.ProxyInterceptErrors))
	}
	if sn.ChunkedTransferEncoding != nil {
		w.line("chunked_transfer_encoding", onOff(*sn.ChunkedTransferEncoding))
	}
	writeSnippetProxy(w, sn.Proxy, sc)
}

func writeSnippetRewriteStep(w *confWriter, st model.SnippetRewriteStep) {
	switch {
	case st.Rewrite != nil && st.Return == nil:
		r := st.Rewrite
		line := []string{"rewrite", w.q(r.Regex), w.q(r.Replacement)}
		switch r.Flag {
		case "":
		case "last", "break", "redirect", "permanent":
			line = append(line, r.Flag)
		default:
			w.fail(snippetError("rewrite flag " + strconv.Quote(r.Flag)))
			return
		}
		w.line(line...)
	case st.Return != nil && st.Rewrite == nil:
		r := st.Return
		if r.Code < 0 || r.Code > 999 {
			w.fail(snippetError("return code " + strconv.Itoa(r.Code)))
			return
		}
		if r.Text == "" {
			w.line("return", strconv.Itoa(r.Code))
		} else {
			w.line("return", strconv.Itoa(r.Code), w.q(r.Text))
		}
	default:
		w.fail(snippetError("a rewrite step sets both or neither of rewrite and return"))
	}
}

// writeMoreHeaders writes a more_set_headers or more_clear_headers line:
// its -s and -t options, then each header.
func writeMoreHeaders(w *confWriter, directive string, m model.SnippetMoreHeaders, set bool) {
	line := []string{directive}
	if len(m.Statuses) > 0 {
		codes := make([]string, len(m.Statuses))
		for i, s := range m.Statuses {
			codes[i] = strconv.Itoa(s)
		}
		line = append(line, "-s", w.q(strings.Join(codes, " ")))
	}
	if len(m.Types) > 0 {
		line = append(line, "-t", w.q(strings.Join(m.Types, " ")))
	}
	for _, h := range m.Headers {
		if set {
			line = append(line, w.q(h.Name+": "+headerValue(h)))
		} else {
			line = append(line, w.q(h.Name))
		}
	}
	w.line(line...)
}

// writeSnippetAddHeaders writes the add_header lines of a block: when the
// block sets one (its snippet's, or at a location with external
// authentication, which writes its own), the inherited ones again first:
// HSTS (http level) and the server-snippet's, each unless the snippet sets
// that header itself.
func writeSnippetAddHeaders(w *confWriter, sn *model.Snippet, sc snippetScope) {
	inherited := sc.outer != nil && len(sc.outer.AddHeaders) > 0
	if len(sn.AddHeaders) == 0 && !(sc.authHSTS && inherited) {
		return
	}
	own := map[string]bool{}
	for _, h := range sn.AddHeaders {
		own[strings.ToLower(h.Name)] = true
	}
	if !sc.authHSTS && !own["strict-transport-security"] && !(sc.outer != nil && namesHeader(sc.outer.AddHeaders, "Strict-Transport-Security")) {
		w.line("add_header", "Strict-Transport-Security", "$hsts_header", "always")
	}
	if sc.outer != nil {
		for _, h := range sc.outer.AddHeaders {
			if !own[strings.ToLower(h.Name)] {
				writeAddHeader(w, h)
			}
		}
	}
	for _, h := range sn.AddHeaders {
		writeAddHeader(w, h)
	}
}

func namesHeader(hs []model.SnippetAddHeader, name string) bool {
	return slices.ContainsFunc(hs, func(h model.SnippetAddHeader) bool { return strings.EqualFold(h.Name, name) })
}

func writeAddHeader(w *confWriter, h model.SnippetAddHeader) {
	line := []string{"add_header", w.q(h.Name), w.q(headerValue(h.Header))}
	if h.Always {
		line = append(line, "always")
	}
	w.line(line...)
}

// writeSnippetHideHeaders writes the proxy_hide_header lines of a block
// whose snippet sets one: http level's (HSTS, hide-headers) and the
// server-snippet's again first, each name once.
func writeSnippetHideHeaders(w *confWriter, sn *model.Snippet, sc snippetScope) {
	if len(sn.HideHeaders) == 0 {
		return
	}
	var names []string
	if sc.g.HSTS {
		names = append(names, "Strict-Transport-Security")
	}
	names = append(names, sc.g.Block.HideHeaders...)
	if sc.outer != nil {
		names = append(names, sc.outer.HideHeaders...)
	}
	names = append(names, sn.HideHeaders...)
	seen := map[string]bool{}
	for _, n := range names {
		if k := strings.ToLower(n); !seen[k] {
			seen[k] = true
			w.line("proxy_hide_header", w.q(n))
		}
	}
}

// writeSnippetProxyHeaders writes the request headers of a block. At
// server level the whole set of the http level comes first (a server that
// sets one inherits none), less the headers the snippet sets; in an
// Ingress location, writeLocationBody has written that set (less the
// same) and the server-snippet's headers come again before the
// location's own. A nested location of a server-snippet does not proxy:
// its own lines only.
func writeSnippetProxyHeaders(w *confWriter, sn *model.Snippet, sc snippetScope) {
	inherited := sc.proxies && sc.outer != nil && len(sc.outer.ProxySetHeaders) > 0
	if len(sn.ProxySetHeaders) == 0 && !inherited {
		return
	}
	own := map[string]bool{}
	for _, h := range sn.ProxySetHeaders {
		own[strings.ToLower(h.Name)] = true
	}
	if sc.server {
		w.snippet.drop = newSnippetDrop(w.depth, nil, &model.Snippet{ProxySetHeaders: sn.ProxySetHeaders})
		writeProxyHeaders(w, "")
		writeBackendHeaders(w, sc.g.BackendHeaders)
		w.snippet.drop = nil
	}
	if inherited {
		for _, h := range sc.outer.ProxySetHeaders {
			if !own[strings.ToLower(h.Name)] {
				w.line("proxy_set_header", w.q(h.Name), w.q(headerValue(h)))
			}
		}
	}
	for _, h := range sn.ProxySetHeaders {
		w.line("proxy_set_header", w.q(h.Name), w.q(headerValue(h)))
	}
}

// writeSnippetProxy writes the proxy settings of a snippet; the block's
// own lines of the same directives were left out (snippetDrop).
func writeSnippetProxy(w *confWriter, p model.SnippetProxy, sc snippetScope) {
	for _, d := range []struct{ name, value string }{
		{"proxy_connect_timeout", p.ConnectTimeout},
		{"proxy_send_timeout", p.SendTimeout},
		{"proxy_read_timeout", p.ReadTimeout},
		{"client_max_body_size", p.BodySize},
	} {
		if d.value != "" {
			w.line(d.name, w.q(d.value))
		}
	}
	if p.BufferSize != "" {
		writeSnippetBuffers(w, p.BufferSize, sc)
	}
	if p.Buffering != nil {
		w.line("proxy_buffering", onOff(*p.Buffering))
	}
	if p.RequestBuffering != nil {
		w.line("proxy_request_buffering", onOff(*p.RequestBuffering))
	}
	if p.ClientBodyBufSize != "" {
		w.line("client_body_buffer_size", w.q(p.ClientBodyBufSize))
	}
}

// shapesNeedDollar reports whether the snippet of a shape location
// (--routing=lua) holds a literal "$".
func shapesNeedDollar(shapes []model.LocationShape) bool {
	return slices.ContainsFunc(shapes, func(s model.LocationShape) bool { return snippetHasDollar(s.Snippet) })
}

// snippetNeedsDollar reports whether a snippet header of c holds a literal
// "$" (a Header without Vars), which needs dollarVar.
func snippetNeedsDollar(c *model.Config) bool {
	for i := range c.Servers {
		s := &c.Servers[i]
		if snippetHasDollar(s.Snippet) {
			return true
		}
		for j := range s.Locations {
			if snippetHasDollar(s.Locations[j].Settings.Snippet) {
				return true
			}
		}
	}
	return false
}

// snippetHasDollar reports whether a header of sn (or of its nested
// locations) holds a literal "$" (nil: none).
func snippetHasDollar(sn *model.Snippet) bool {
	if sn == nil {
		return false
	}
	literal := func(hs []model.Header) bool {
		return slices.ContainsFunc(hs, func(h model.Header) bool { return !h.Vars && strings.Contains(h.Value, "$") })
	}
	if literal(sn.ProxySetHeaders) {
		return true
	}
	for _, h := range sn.AddHeaders {
		if literal([]model.Header{h.Header}) {
			return true
		}
	}
	for _, m := range sn.MoreSetHeaders {
		if literal(m.Headers) {
			return true
		}
	}
	for i := range sn.Locations {
		if snippetHasDollar(&sn.Locations[i].Body) {
			return true
		}
	}
	return false
}

// writeSnippetBuffers writes a snippet's proxy_buffer_size as the
// annotation proxy-buffer-size is written (the body buffers the same size)
// with what nginx -t requires of the block's other sizes
// (annotations.CheckProxy): proxy_busy_buffers_size from one buffer to all
// but one (twice the buffer, nginx's default, where that fits), and
// proxy_max_temp_file_size 0 or at least one buffer. Both are written, so
// that the block does not depend on what it inherits.
func writeSnippetBuffers(w *confWriter, size string, sc snippetScope) {
	num := max(sc.buffersNumber, 2)
	writeProxyBuffers(w, num, size)
	writeBufferFit(w, size, num, sc.maxTemp)
}

// writeBufferFit writes the proxy_busy_buffers_size and
// proxy_max_temp_file_size (maxTemp where it fits) of num buffers of size.
func writeBufferFit(w *confWriter, size string, num int, maxTemp string) {
	n, unit, ok := splitSize(size)
	if !ok {
		w.fail(snippetError("proxy_buffer_size " + strconv.Quote(size)))
		return
	}
	busy := 2 * n
	if num < 3 {
		busy = n
	}
	w.line("proxy_busy_buffers_size", w.q(strconv.FormatInt(busy, 10)+unit))
	if m, mu, ok := splitSize(maxTemp); !ok || (maxTemp != "0" && m*unitBytes(mu) < n*unitBytes(unit)) {
		maxTemp = size
	}
	w.line("proxy_max_temp_file_size", w.q(maxTemp))
}

// splitSize splits an nginx size ("8k", "1m", "4096") into its number and
// unit.
func splitSize(s string) (int64, string, bool) {
	unit := ""
	if s != "" && strings.ContainsAny(s[len(s)-1:], "kKmMgG") {
		s, unit = s[:len(s)-1], s[len(s)-1:]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, unit, err == nil && n >= 0 && n < 1<<40
}

func unitBytes(unit string) int64 {
	switch strings.ToLower(unit) {
	case "k":
		return 1 << 10
	case "m":
		return 1 << 20
	case "g":
		return 1 << 30
	}
	return 1
}
