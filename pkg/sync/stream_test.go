package sync_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// WriteStream records "stream <file>=<endpoints>,…", or "stream removed".
func (f *fakeNginx) WriteStream(_ context.Context, files map[string][]byte) error {
	if files == nil {
		return f.record("stream", "removed")
	}
	var keys []string
	for name, data := range files {
		var eps []string
		if err := json.Unmarshal(data, &eps); err != nil {
			return err
		}
		keys = append(keys, strings.TrimSuffix(name, ".json")+"="+strings.Join(eps, "+"))
	}
	slices.Sort(keys)
	return f.record("stream", strings.Join(keys, ","))
}

var streamCM = model.ObjectRef{Kind: "ConfigMap", Namespace: "ingress-nginx", Name: "tcp-services"}

// streamConfig is a config with one TCP service per port, each with one
// endpoint at 10.0.0.<last>:<port>; conf stands for its nginx.conf, which
// differs exactly when the ports do.
func streamState(last string, ports ...int) ksync.State {
	c := config([]string{"_"}, false)
	var conf []byte
	for _, p := range ports {
		c.Stream.Services = append(c.Stream.Services, model.StreamService{
			Protocol: model.ProtocolTCP, Port: p, ConfigMap: streamCM,
			Service: model.ObjectRef{Kind: "Service", Namespace: "db", Name: "pg"}, ServicePort: "5432",
			Endpoints: []model.Endpoint{{Address: "10.0.0." + last, Port: p}},
		})
		conf = append(conf, byte(p))
	}
	return ksync.State{Config: c, NGINXConf: conf}
}

func TestPlanStreamEndpointChangeIsDynamic(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("2", 5432)
	p := ksync.NewPlan(running, desired)
	if p.Verdict != ksync.DynamicOnly || !p.PushStream || p.PushBackends {
		t.Fatalf("verdict %v, push stream %v, backends %v: want dynamic, stream only", p.Verdict, p.PushStream, p.PushBackends)
	}
	if len(p.Reasons) != 1 || p.Reasons[0].Reload || !strings.Contains(p.Reasons[0].String(), "endpoints of stream server tcp/5432 changed") {
		t.Errorf("reasons %v", p.Reasons)
	}
	f := &fakeNginx{}
	if err := ksync.Apply(context.Background(), p, running, desired, f, f, f); err != nil {
		t.Fatal(err)
	}
	if want := []string{"stream tcp-5432=10.0.0.2:5432"}; !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestPlanStreamPortChangeReloads(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("1", 6432)
	p := ksync.NewPlan(running, desired)
	if p.Verdict != ksync.ReloadRequired {
		t.Fatalf("verdict %v, want reload", p.Verdict)
	}
	var msgs []string
	for _, r := range p.Reasons {
		if r.Reload {
			msgs = append(msgs, r.String())
		}
	}
	want := []string{
		"configmap ingress-nginx/tcp-services: stream server tcp/5432 removed",
		"configmap ingress-nginx/tcp-services: stream server tcp/6432 added (service db/pg:5432)",
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("reload reasons %q, want %q", msgs, want)
	}
	f := &fakeNginx{}
	if err := ksync.Apply(context.Background(), p, running, desired, f, f, f); err != nil {
		t.Fatal(err)
	}
	// Before the reload both ports find endpoints (old workers drain on
	// 5432); after it only the desired one is left.
	if len(f.calls) < 3 || f.calls[0] != "stream tcp-5432=10.0.0.1:5432,tcp-6432=10.0.0.1:6432" ||
		!strings.HasPrefix(f.calls[1], "reload") || f.calls[len(f.calls)-1] != "stream tcp-6432=10.0.0.1:6432" {
		t.Errorf("calls %q: want bridge stream, reload, …, desired stream", f.calls)
	}
}

func TestPlanStreamRemovedLast(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("1")
	p := ksync.NewPlan(running, desired)
	f := &fakeNginx{}
	if err := ksync.Apply(context.Background(), p, running, desired, f, f, f); err != nil {
		t.Fatal(err)
	}
	if last := f.calls[len(f.calls)-1]; last != "stream removed" {
		t.Errorf("calls %q: the payload of a config without stream servers must be removed", f.calls)
	}
}

func TestApplyStreamWithoutWriter(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("2", 5432)
	f := &fakeNginx{}
	err := ksync.Apply(context.Background(), ksync.NewPlan(running, desired), running, desired, f, f, nil)
	var ae *ksync.ApplyError
	if !errors.As(err, &ae) || ae.Stage != ksync.StageStream {
		t.Fatalf("err %v, want an ApplyError at stage stream", err)
	}
	// Without stream servers no writer is needed.
	plain := ksync.State{Config: config([]string{"_"}, false, "b"), NGINXConf: []byte("x")}
	if err := ksync.Apply(context.Background(), ksync.NewPlan(ksync.State{}, plain), ksync.State{}, plain, f, f, nil); err != nil {
		t.Errorf("apply without stream servers and writer: %v", err)
	}
}

func TestApplyStreamFailureBeforeReloadIsBridge(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("1", 6432)
	f := &fakeNginx{fail: func(call string, n int) error {
		if call == "stream" {
			return errors.New("disk full")
		}
		return nil
	}}
	err := ksync.Apply(context.Background(), ksync.NewPlan(running, desired), running, desired, f, f, f)
	var ae *ksync.ApplyError
	if !errors.As(err, &ae) || ae.Stage != ksync.StageBridge {
		t.Fatalf("err %v, want stage bridge (nothing reloaded)", err)
	}
	if slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, "reload") }) {
		t.Errorf("reloaded after the stream bridge failed: %q", f.calls)
	}
}

// While nginx -t rejects the desired config, the running stream servers
// keep getting current endpoints: the bridge holds both configs' entries.
func TestWriteStreamBridge(t *testing.T) {
	running, desired := streamState("1", 5432), streamState("2", 5432, 6432)
	f := &fakeNginx{}
	if err := ksync.WriteStreamBridge(context.Background(), running.Config, desired.Config, f); err != nil {
		t.Fatal(err)
	}
	if want := []string{"stream tcp-5432=10.0.0.2:5432,tcp-6432=10.0.0.2:6432"}; !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	plain := config([]string{"_"}, false)
	if err := ksync.WriteStreamBridge(context.Background(), plain, plain, nil); err != nil {
		t.Errorf("no stream servers, no writer: %v", err)
	}
}
