package sync_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// fakeNginx records the calls of Apply in order, as
// "reload", "backends a,b" and "servers host=cert,…".
type fakeNginx struct {
	calls []string
	// fail, when set, decides the error of each call by its name.
	fail func(call string, n int) error
	n    map[string]int
}

func (f *fakeNginx) record(call, detail string) error {
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[call]++
	f.calls = append(f.calls, strings.TrimSpace(call+" "+detail))
	if f.fail != nil {
		return f.fail(call, f.n[call])
	}
	return nil
}

func (f *fakeNginx) Reload(_ context.Context, conf []byte) error {
	return f.record("reload", string(conf))
}

func (f *fakeNginx) PostBackends(_ context.Context, bs []luaapi.Backend) error {
	names := make([]string, 0, len(bs))
	for _, b := range bs {
		names = append(names, b.Name)
	}
	sort.Strings(names)
	return f.record("backends", strings.Join(names, ","))
}

func (f *fakeNginx) PostServers(_ context.Context, s luaapi.Servers) error {
	var pairs []string
	for host, id := range s.Servers {
		pairs = append(pairs, host+"="+id)
	}
	sort.Strings(pairs)
	var ids []string
	for id := range s.Certificates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return f.record("servers", strings.Join(pairs, ",")+" certs "+strings.Join(ids, ","))
}

// config is a model with one server per host (each with a certificate
// named after it when tls) and one backend per name.
func config(hosts []string, tls bool, backends ...string) *model.Config {
	c := &model.Config{}
	for _, h := range hosts {
		s := model.Server{Hostname: h}
		if tls {
			s.CertificateID = "ns/" + h
			c.Certificates = append(c.Certificates, model.Certificate{ID: s.CertificateID, PEM: "pem of " + h})
		}
		c.Servers = append(c.Servers, s)
	}
	for _, b := range backends {
		c.Backends = append(c.Backends, model.Backend{Name: b, Endpoints: []model.Endpoint{{Address: "10.0.0.1", Port: 80}}})
	}
	return c
}

func st(c *model.Config, conf string) ksync.State {
	return ksync.State{Config: c, NGINXConf: []byte(conf)}
}

func TestApplyOrder(t *testing.T) {
	base := st(config([]string{"a.example"}, true, "ns-a-80", "ns-old-80"), "conf1")
	moreEndpoints := config([]string{"a.example"}, true, "ns-a-80", "ns-old-80")
	moreEndpoints.Backends[0].Endpoints = append(moreEndpoints.Backends[0].Endpoints, model.Endpoint{Address: "10.0.0.2", Port: 80})
	cases := []struct {
		name             string
		running, desired ksync.State
		want             []string
	}{
		{
			name:    "no change",
			running: base, desired: base,
			want: nil,
		},
		{
			name:    "endpoints: backends only, no reload",
			running: base, desired: st(moreEndpoints, "conf1"),
			want: []string{"backends ns-a-80,ns-old-80"},
		},
		{
			name:    "certificates dropped, nginx.conf the same: servers only",
			running: base, desired: st(config([]string{"a.example"}, false, "ns-a-80", "ns-old-80"), "conf1"),
			want: []string{"servers  certs"},
		},
		{
			name:    "reload adding a backend: bridge first, then reload, then the desired payloads",
			running: base, desired: st(config([]string{"a.example", "b.example"}, true, "ns-a-80", "ns-b-80"), "conf2"),
			want: []string{
				"backends ns-a-80,ns-b-80,ns-old-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
				"reload conf2",
				"backends ns-a-80,ns-b-80",
				"servers a.example=ns/a.example,b.example=ns/b.example certs ns/a.example,ns/b.example",
			},
		},
		{
			name:    "reload that only removes: no bridge",
			running: base, desired: st(config([]string{"a.example"}, true, "ns-a-80"), "conf2"),
			want: []string{
				"reload conf2",
				"backends ns-a-80",
				"servers a.example=ns/a.example certs ns/a.example",
			},
		},
		{
			name:    "initial configuration: reload, then push",
			running: ksync.State{}, desired: base,
			want: []string{
				"reload conf1",
				"backends ns-a-80,ns-old-80",
				"servers a.example=ns/a.example certs ns/a.example",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := ksync.NewPlan(tc.running, tc.desired)
			f := &fakeNginx{}
			if err := ksync.Apply(context.Background(), plan, tc.running, tc.desired, f, f, nil); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.calls, tc.want) {
				t.Errorf("calls (plan %s):\n  %s\nwant:\n  %s", plan.Verdict, strings.Join(f.calls, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestApplyBridgeKeepsWhatOnlyRunningHas(t *testing.T) {
	running := config([]string{"a.example", "gone.example"}, true, "ns-a-80", "ns-gone-80")
	desired := config([]string{"a.example", "new.example"}, true, "ns-a-80", "ns-new-80")
	desired.Certificates[0].PEM = "rotated"
	backends, servers := ksync.Bridge(running, desired)
	var names []string
	for _, b := range backends {
		names = append(names, b.Name)
	}
	if want := []string{"ns-a-80", "ns-new-80", "ns-gone-80"}; !slices.Equal(names, want) {
		t.Errorf("backends %v, want %v", names, want)
	}
	if len(servers.Servers) != 3 || servers.Servers["gone.example"] != "ns/gone.example" || servers.Servers["new.example"] != "ns/new.example" {
		t.Errorf("servers %v", servers.Servers)
	}
	if servers.Certificates["ns/a.example"] != "rotated" {
		t.Errorf("the desired certificate must win, got %q", servers.Certificates["ns/a.example"])
	}
}

func TestApplyFailedReloadKeepsBridge(t *testing.T) {
	running := st(config([]string{"a.example"}, false, "ns-a-80"), "conf1")
	desired := st(config([]string{"a.example"}, false, "ns-a-80", "ns-b-80"), "bad")
	rejected := errors.New("nginx -t: unknown directive")
	f := &fakeNginx{fail: func(call string, _ int) error {
		if call == "reload" {
			return rejected
		}
		return nil
	}}
	err := ksync.Apply(context.Background(), ksync.NewPlan(running, desired), running, desired, f, f, nil)
	var ae *ksync.ApplyError
	if !errors.As(err, &ae) || ae.Stage != ksync.StageReload || !errors.Is(err, rejected) {
		t.Fatalf("want a reload ApplyError wrapping the cause, got %v", err)
	}
	want := []string{"backends ns-a-80,ns-b-80", "servers  certs", "reload bad"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestApplyRetries(t *testing.T) {
	running := st(config(nil, false, "ns-a-80"), "conf")
	desired := st(config(nil, false, "ns-a-80", "ns-b-80"), "conf")
	plan := ksync.NewPlan(running, desired)
	unavailable := &luaapi.StatusError{Code: http.StatusServiceUnavailable}
	cases := []struct {
		name      string
		fail      func(n int) error
		wantCalls int
		wantErr   string
	}{
		{"passes on the third try", func(n int) error {
			if n < 3 {
				return fmt.Errorf("POST: %w", unavailable)
			}
			return nil
		}, 3, ""},
		{"refused payload is not retried", func(int) error {
			return fmt.Errorf("POST: %w", &luaapi.StatusError{Code: http.StatusBadRequest, Body: "bad backends"})
		}, 1, "status 400"},
		{"bounded", func(int) error { return errors.New("connection refused") }, 5, "5 attempts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeNginx{fail: func(_ string, n int) error { return tc.fail(n) }}
			err := ksync.Apply(context.Background(), plan, running, desired, f, f, nil)
			if len(f.calls) != tc.wantCalls {
				t.Errorf("%d calls, want %d", len(f.calls), tc.wantCalls)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ae *ksync.ApplyError
			if !errors.As(err, &ae) || ae.Stage != ksync.StageBackends || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("want a backends ApplyError with %q, got %v", tc.wantErr, err)
			}
		})
	}
}

func TestApplyRetriesStopWithContext(t *testing.T) {
	running := st(config(nil, false, "ns-a-80"), "conf")
	desired := st(config(nil, false, "ns-b-80"), "conf")
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Millisecond)
	defer cancel()
	f := &fakeNginx{fail: func(string, int) error { return errors.New("connection refused") }}
	start := time.Now()
	err := ksync.Apply(ctx, ksync.NewPlan(running, desired), running, desired, f, f, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's error, got %v", err)
	}
	if elapsed := time.Since(start); elapsed > 600*time.Millisecond {
		t.Errorf("Apply took %v after the context ended", elapsed)
	}
	if len(f.calls) >= 5 {
		t.Errorf("%d calls: the context should have stopped the retries", len(f.calls))
	}
}
