package luaapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestResolveVars(t *testing.T) {
	vars := map[string]string{"server_name": "shop.example.com", "proxy_upstream_name": "shop-web-80"}
	for in, want := range map[string]string{
		"/x":                                  "/x",
		"https://$server_name$request_uri":    "https://shop.example.com$request_uri",
		"${server_name}/$1$2":                 "shop.example.com/$1$2",
		"$server_names $proxy_upstream_name-": "$server_names shop-web-80-", // another name
		"$1server_name":                       "$1server_name",              // a capture, then text
		"cost: $":                             "cost: $",
	} {
		if got := resolveVars(in, vars); got != want {
			t.Errorf("resolveVars(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHostRewritesRoundTrip: a host's server-snippet rewrites and hidden
// headers are in its payload, and a RoutesCache's compact entry gives
// them back.
func TestHostRewritesRoundTrip(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "shop", Name: "web"}
	c := &model.Config{Global: model.DefaultGlobal(), Servers: []model.Server{{
		Hostname: "shop.example.com",
		Snippet: &model.Snippet{Ingress: ing, HideHeaders: []string{"X-Powered-By"}, RewritePhase: []model.SnippetRewriteStep{
			{Rewrite: &model.SnippetRewrite{Regex: "^/old/(.*)", Replacement: "https://$server_name/new/$1", Flag: "permanent"}}}},
		Locations: []model.Location{{Path: "/", PathType: model.PathPrefix, Backend: "shop-web-80", Ingress: ing, Settings: &model.LocationSettings{
			Snippet: &model.Snippet{Ingress: ing, RewritePhase: []model.SnippetRewriteStep{{Return: &model.SnippetReturn{Code: 200, Text: "$proxy_upstream_name"}}}}}}},
	}}}
	h, shape := hostRoutesOf(c, &c.Servers[0])
	if len(h.Rewrites) != 1 || h.Rewrites[0].Replacement != "https://shop.example.com/new/$1" || h.Rewrites[0].Flag != "permanent" {
		t.Errorf("host rewrites %+v", h.Rewrites)
	}
	for _, p := range h.Paths {
		if !reflect.DeepEqual(p.Settings.HideHeaders, []string{"X-Powered-By"}) {
			t.Errorf("path %s: hideHeaders %v", p.Path, p.Settings.HideHeaders)
		}
	}
	if rw := h.Paths[0].Settings.Rewrites; len(rw) != 1 || rw[0].Return == nil || rw[0].Return.Text != "shop-web-80" {
		t.Errorf("path rewrites %+v", rw)
	}
	compact := compacted(h, shape.json)
	back, err := compact.Decoded()
	if err != nil || !reflect.DeepEqual(back, h) {
		t.Errorf("decoded (%v)\n%+v\nwant\n%+v", err, back, h)
	}
	a, err1 := json.Marshal(compact)
	b, err2 := json.Marshal(h)
	if err1 != nil || err2 != nil || string(a) != string(b) {
		t.Errorf("compact JSON\n%s\nwant\n%s", a, b)
	}
}
