package sync

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// A changed htpasswd (same name) is applied without reload; a new CA
// (a new name in a new nginx.conf) reloads.
func TestPlanFiles(t *testing.T) {
	secret := model.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "users"}
	running := &model.Config{Files: []model.File{
		{Name: "auth/u-file.htpasswd", Content: []byte("a:{PLAIN}a\n"), Secret: secret},
		{Name: "ca/c-1111.pem", Content: []byte("old"), ReadAtLoad: true, Secret: secret},
	}}
	htpasswd := &model.Config{Files: []model.File{
		{Name: "auth/u-file.htpasswd", Content: []byte("b:{PLAIN}b\n"), Secret: secret},
		running.Files[1],
	}}
	p := NewPlan(State{Config: running, NGINXConf: []byte("conf")}, State{Config: htpasswd, NGINXConf: []byte("conf")})
	if p.Verdict != DynamicOnly || !p.PushFiles || len(p.Reasons) != 1 || p.Reasons[0].Reload || !strings.Contains(p.Reasons[0].String(), "no reload") {
		t.Errorf("htpasswd edit: %v, push files %v, reasons %v", p.Verdict, p.PushFiles, p.Reasons)
	}
	ca := &model.Config{Files: []model.File{running.Files[0], {Name: "ca/c-2222.pem", Content: []byte("new"), ReadAtLoad: true, Secret: secret}}}
	p = NewPlan(State{Config: running, NGINXConf: []byte("conf")}, State{Config: ca, NGINXConf: []byte("conf with ca/c-2222.pem")})
	if p.Verdict != ReloadRequired || p.PushFiles {
		t.Errorf("CA change: %v, push files %v", p.Verdict, p.PushFiles)
	}
	var msgs []string
	for _, r := range p.Reasons {
		if !r.Reload {
			t.Errorf("a dynamic reason for a CA change: %v", r)
		}
		msgs = append(msgs, r.String())
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "file ca/c-2222.pem added") || !strings.Contains(all, "reads it at load") || !strings.Contains(all, "secret ns/users") {
		t.Errorf("CA change reasons:\n%s", all)
	}
}

// TestPlanFilesAddedPerRequest: an htpasswd file that comes (or goes)
// with the same nginx.conf (a Lua-routed host gains auth-type basic) is
// written (pruned) without a reload: nginx reads it per request, and the
// route that names it is posted after the write.
func TestPlanFilesAddedPerRequest(t *testing.T) {
	secret := model.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "users"}
	none := &model.Config{}
	one := &model.Config{Files: []model.File{{Name: "auth/u-file.htpasswd", Content: []byte("a:{PLAIN}a\n"), Secret: secret}}}
	for _, tc := range []struct {
		name          string
		running, want *model.Config
		message       string
	}{
		{"added", none, one, "file auth/u-file.htpasswd added"},
		{"removed", one, none, "file auth/u-file.htpasswd removed"},
	} {
		p := NewPlan(State{Config: tc.running, NGINXConf: []byte("conf")}, State{Config: tc.want, NGINXConf: []byte("conf")})
		if p.Verdict != DynamicOnly || !p.PushFiles || len(p.Reasons) != 1 || p.Reasons[0].Reload || !strings.Contains(p.Reasons[0].String(), tc.message) {
			t.Errorf("%s: %v, push files %v, reasons %v", tc.name, p.Verdict, p.PushFiles, p.Reasons)
		}
	}
}
