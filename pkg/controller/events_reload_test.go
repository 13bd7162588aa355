package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// TestReloadEventsWhichSyncs: only a reload that served or that failed at
// the reload step makes a RELOAD Event; a held config, a bridge push that
// failed before the reload, a cancelled sync, or a sync without reload
// make none; the message is bounded.
func TestReloadEventsWhichSyncs(t *testing.T) {
	rejected := &ksync.ApplyError{Stage: ksync.StageReload, Err: &nginx.TestError{Output: strings.Repeat("nginx: [emerg] x ", 200), Err: errors.New("exit status 1")}}
	cases := []struct {
		name string
		r    SyncResult
		want string // "" for no Event
	}{
		{"reloaded", SyncResult{Verdict: ksync.ReloadRequired, Reloaded: true}, "Normal RELOAD " + MessageReloaded},
		{"rejected", SyncResult{Verdict: ksync.ReloadRequired, Err: rejected}, "Warning RELOAD Error reloading NGINX: nginx -t: exit status 1: nginx: [emerg] x"},
		{"held", SyncResult{Verdict: ksync.ReloadRequired, Err: fmt.Errorf("sync: %w", errHeld)}, ""},
		{"bridge", SyncResult{Verdict: ksync.ReloadRequired, Err: &ksync.ApplyError{Stage: ksync.StageBridge, Err: errors.New("503")}}, ""},
		{"cancelled", SyncResult{Verdict: ksync.ReloadRequired, Err: &ksync.ApplyError{Stage: ksync.StageReload, Err: context.Canceled}}, ""},
		{"dynamic", SyncResult{Verdict: ksync.DynamicOnly}, ""},
	}
	pod := &corev1.ObjectReference{Kind: "Pod", Namespace: "ingress-nginx", Name: "c-0"}
	for _, tc := range cases {
		rec := record.NewFakeRecorder(10)
		tc.r.Desired = &model.Config{}
		NewReloadEvents(rec, pod).Synced(context.Background(), tc.r)
		NewReloadEvents(rec, nil).Synced(context.Background(), tc.r) // no pod: never an Event
		close(rec.Events)
		var got []string
		for e := range rec.Events {
			got = append(got, e)
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: events %q, want none", tc.name, got)
		case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
			t.Errorf("%s: events %q, want one starting %q", tc.name, got, tc.want)
		case len(got) == 1 && len(got[0]) > len("Warning RELOAD ")+maxMessage:
			t.Errorf("%s: message of %d bytes", tc.name, len(got[0]))
		}
	}
}
