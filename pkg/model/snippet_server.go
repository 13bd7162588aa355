package model

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A server-snippet that the Lua router (--routing=lua) serves without a
// classic server block: server_tokens at the ConfigMap's value (nothing
// to write), rewrite and return lines (the router runs them before it
// matches the path, as nginx's server rewrite phase), proxy_hide_header
// (the router hides those headers of every answer of the host's routes),
// and locations that only answer, each a route of its own
// after the host's Ingress paths (the classic writer writes them after
// the Ingress locations, so their regexes are tried after the paths').
// A location answers when its rewrite phase is one return without
// variables (nginx runs it before the access phase, so its allow/deny
// lines never apply) or its access lines are "deny all" alone (403).
// Anything else — a rewrite, headers, proxy settings, a location that
// serves files — keeps the host classic (ServerLuaBlocker says why).

// ServerLuaBlocker names the first thing of a server-snippet that the Lua
// router cannot serve ("" when it can): a server-level directive other
// than server_tokens at g's value, rewrite, return (of a code from 200),
// proxy_hide_header and client_max_body_size (the limit of the snippet's
// own locations only: Server.BodySize), or a location that does more
// than answer (see above) or is a prefix "/" (it replaces the fallback).
func (sn *Snippet) ServerLuaBlocker(g *Global) string {
	if sn == nil {
		return ""
	}
	if sn.ServerTokens != nil && *sn.ServerTokens != g.ServerTokens {
		return "server_tokens"
	}
	if f := snippetFieldSet(sn, "ServerTokens", "Locations", "Proxy", "RewritePhase", "HideHeaders"); f != "" {
		return f
	}
	for _, st := range sn.RewritePhase {
		if r := st.Return; r != nil && (r.Code < 200 || isRedirectCode(r.Code) && r.Text == "") {
			return "return " + strconv.Itoa(r.Code)
		}
	}
	if p := sn.Proxy; p != (SnippetProxy{BodySize: p.BodySize}) {
		return "proxy settings but client_max_body_size"
	}
	for i := range sn.Locations {
		if b := sn.Locations[i].luaBlocker(); b != "" {
			return b
		}
	}
	return ""
}

// luaBlocker is ServerLuaBlocker for one location of a server-snippet.
func (l *SnippetLocation) luaBlocker() string {
	where := "location " + strings.TrimSpace(l.Modifier+" "+l.Path)
	switch l.Modifier {
	case "=", "~", "~*":
	case "", "^~":
		if l.Path == "/" {
			return where + ": the fallback location"
		}
	default:
		return where
	}
	if f := snippetFieldSet(&l.Body, "RewritePhase", "Access"); f != "" {
		return where + ": " + f
	}
	if ret := l.Return(); ret != nil {
		if ret.Code < 200 || ret.Code > 599 {
			return where + ": return " + strconv.Itoa(ret.Code)
		}
		if strings.Contains(ret.Text, "$") {
			return where + ": return with a variable"
		}
		if isRedirectCode(ret.Code) && ret.Text == "" {
			return where + ": return of a redirect without a URL"
		}
		return ""
	}
	if len(l.Body.RewritePhase) > 0 {
		return where + ": rewrite"
	}
	if len(l.Body.Access) == 1 && l.Body.Access[0] == (SnippetAccess{Deny: true, Source: "all"}) {
		return ""
	}
	return where + ": neither a return nor deny all (it would serve files)"
}

// Return is the answer of a server-snippet location whose rewrite phase
// is one return line, nil otherwise.
func (l *SnippetLocation) Return() *SnippetReturn {
	if rp := l.Body.RewritePhase; len(rp) == 1 && rp[0].Return != nil {
		return rp[0].Return
	}
	return nil
}

func isRedirectCode(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// snippetFieldSet names the first directive field of sn that is set,
// leaving out allowed and what is not a directive (the annotation, the
// Ingress, the counts): a field added to Snippet blocks until it is
// allowed here.
func snippetFieldSet(sn *Snippet, allowed ...string) string {
	v := reflect.ValueOf(sn).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		switch name {
		case "Annotation", "Ingress", "Translated":
			continue
		}
		if !v.Field(i).IsZero() && !slices.Contains(allowed, name) {
			if d := snippetFieldDirectives[name]; d != "" {
				return d
			}
			return name
		}
	}
	return ""
}

// snippetFieldDirectives name the directives of Snippet's fields.
var snippetFieldDirectives = map[string]string{
	"Access": "allow/deny", "RewritePhase": "rewrite/return", "AddHeaders": "add_header",
	"MoreSetHeaders": "more_set_headers", "MoreClearHeaders": "more_clear_headers",
	"HideHeaders": "proxy_hide_header", "ProxySetHeaders": "proxy_set_header",
	"SubFilters": "sub_filter", "SubFilterOnce": "sub_filter_once", "SubFilterTypes": "sub_filter_types",
	"ServerTokens": "server_tokens", "ProxyInterceptErrors": "proxy_intercept_errors",
	"ChunkedTransferEncoding": "chunked_transfer_encoding", "Proxy": "proxy settings", "Locations": "location",
}

// BodySize is the client_max_body_size of s's server block: its
// server-snippet's, else the ConfigMap's. As in ingress-nginx, whose every
// location writes its own (the annotation's, else the ConfigMap's), it is
// the limit of the server-snippet's locations alone: an Ingress path and
// the fallback "/" keep theirs.
func (s *Server) BodySize(g *Global) string {
	if sn := s.Snippet; sn != nil && sn.Proxy.BodySize != "" {
		return sn.Proxy.BodySize
	}
	return g.ProxyBodySize
}
