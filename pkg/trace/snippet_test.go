package trace

import (
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestSnippets(t *testing.T) {
	rw := func(re, repl, flag string) model.SnippetRewriteStep {
		return model.SnippetRewriteStep{Rewrite: &model.SnippetRewrite{Regex: re, Replacement: repl, Flag: flag}}
	}
	ret := func(code int, text string) model.SnippetRewriteStep {
		return model.SnippetRewriteStep{Return: &model.SnippetReturn{Code: code, Text: text}}
	}
	withSnippet := func(path, backend string, sn model.Snippet) model.Location {
		l := loc(path, model.PathPrefix, backend)
		l.Settings.Snippet = &sn
		return l
	}
	c := cfg([]model.Server{{
		Hostname: "h.com",
		Snippet: &model.Snippet{
			RewritePhase: []model.SnippetRewriteStep{rw("^/old/(.*)", "/new/$1", "last")},
			Locations: []model.SnippetLocation{
				{Modifier: "~", Path: "^/(ping|ready)", Body: model.Snippet{RewritePhase: []model.SnippetRewriteStep{ret(404, "")}}},
				{Modifier: "=", Path: "/admin", Body: model.Snippet{Access: []model.SnippetAccess{{Deny: true, Source: "all"}}}},
			},
		},
		Locations: []model.Location{
			withSnippet("/ret", "b", model.Snippet{RewritePhase: []model.SnippetRewriteStep{ret(301, "https://e.com$request_uri")}}),
			withSnippet("/last", "b", model.Snippet{RewritePhase: []model.SnippetRewriteStep{rw("^/last/(.*)", "/new/$1?x=1", "last")}}),
			withSnippet("/brk", "b", model.Snippet{RewritePhase: []model.SnippetRewriteStep{rw("^/brk/(.*)", "/in/$1", "break")}}),
			withSnippet("/deny", "b", model.Snippet{Access: []model.SnippetAccess{{Deny: true, Source: "127.0.0.0/8"}}}),
			loc("/new", model.PathPrefix, "new"),
			loc("/", model.PathPrefix, "b"),
		},
	}}, be("b"), be("new"))
	for _, tc := range []struct {
		name, target, uri string
		want              want
	}{
		{"return with a variable", "/ret/a?q", "", want{status: 301, location: "https://e.com/ret/a?q"}},
		{"rewrite last searches again", "/last/a?q=2", "/new/a?x=1&q=2", want{backend: "new"}},
		{"rewrite break stays", "/brk/a", "/in/a", want{backend: "b"}},
		{"snippet deny", "/deny/a", "", want{status: 403}},
		{"server-snippet rewrite", "/old/a", "/new/a", want{backend: "new"}},
		{"server-snippet location return", "/ping", "", want{status: 404, match: MatchRegex}},
		{"server-snippet location deny", "/admin", "", want{status: 403, match: MatchExact}},
	} {
		d := Route(c, get("h.com", tc.target))
		check(t, tc.name, d, tc.want)
		if tc.uri != "" && d.Outcome.UpstreamURI != tc.uri {
			t.Errorf("%s: upstream URI %q, want %q", tc.name, d.Outcome.UpstreamURI, tc.uri)
		}
	}
}

// TestUnescapeRedirect holds unescapeRedirect to nginx's
// ngx_unescape_uri(NGX_UNESCAPE_REDIRECT) rules.
func TestUnescapeRedirect(t *testing.T) {
	for in, want := range map[string]string{
		"/a%2Bb%20c":       "/a+b%20c",      // printable decoded, a space stays escaped
		"/a%2b%25":         "/a+%25",        // "%" itself stays
		"/x%3Fy%41?q=%41":  "/x?y%41?q=%41", // an escaped "?" ends the path too
		"/p?q=%2B":         "/p?q=%2B",      // the arguments stay as they are
		"/bad%zz/%4/end%":  "/badzz/end",    // no escape: dropped, as nginx does
		"/%7E%7e%7F%C3%A9": "/~~%7F%C3%A9",  // "~" decoded, DEL and non-ASCII stay
	} {
		if got := unescapeRedirect(in); got != want {
			t.Errorf("unescapeRedirect(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeArgs("a+b c&d;e?f#g%h/i=j"); got != "a%2Bb%20c%26d%3Be%3Ff%23g%25h/i=j" {
		t.Errorf("escapeArgs = %q", got)
	}
}
