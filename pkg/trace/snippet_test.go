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
