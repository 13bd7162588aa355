package sync

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestConfReasonsWWWAndServerTLS(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "shop", Name: "a"}
	on := true
	old := &model.Config{Servers: []model.Server{{Hostname: "a.example.com"}}}
	cur := &model.Config{
		Servers:      []model.Server{{Hostname: "a.example.com", SSLCiphers: "HIGH", SSLPreferServerCiphers: &on}},
		WWWRedirects: []model.WWWRedirect{{From: "www.a.example.com", To: "a.example.com", Ingress: ing}},
	}
	rs, changed := confReasons(old, cur, nil)
	var msgs []string
	for _, r := range rs {
		msgs = append(msgs, r.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"TLS settings of a.example.com changed", "from-to-www-redirect server www.a.example.com added (to a.example.com)"} {
		if !strings.Contains(all, want) {
			t.Errorf("reasons %q lack %q", all, want)
		}
	}
	if len(changed) != 1 || changed[0] != "a.example.com" {
		t.Errorf("changed servers %v", changed)
	}
	rs, _ = confReasons(cur, old, nil)
	if len(rs) != 2 || !strings.Contains(rs[1].Message, "www.a.example.com removed") || rs[1].Object != ing {
		t.Errorf("removal reasons %+v", rs)
	}
}
