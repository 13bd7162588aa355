package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// backendsNginx is a real nginx with the project's Lua on loopback ports.
type backendsNginx struct {
	statusURL string
	httpURL   string
	lua       *luaapi.Client
	posted    []luaapi.Backend
	// certificates are the model's, as posted in the servers payload.
	certificates []model.Certificate
	// conf is the nginx.conf nginx started with.
	conf []byte
}

// startBackendsNginx renders examples/, starts nginx on free loopback ports
// and pushes the backends, as the controller does. A port taken by another
// process between the choice and nginx's bind gets one more try.
func startBackendsNginx(t *testing.T) *backendsNginx {
	t.Helper()
	nginxtest.Require(t)
	n, err := tryStartBackendsNginx(t)
	if err != nil && strings.Contains(err.Error(), "Address already in use") {
		t.Logf("retrying with other ports: %v", err)
		n, err = tryStartBackendsNginx(t)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tryStartBackendsNginx(t *testing.T) (*backendsNginx, error) {
	res, err := manifest.Read([]string{"../../examples"}, manifest.Options{})
	if err != nil {
		return nil, err
	}
	cfg, _ := render.Build(res.Snapshot, render.DefaultOptions())
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort = loopbackPort(t), loopbackPort(t)
	co.StatusAddress = "127.0.0.1:" + strconv.Itoa(loopbackPort(t))
	co.WorkerProcesses = "2"
	conf, err := nginxconf.NGINXConf(cfg, co)
	if err != nil {
		return nil, err
	}
	n := &backendsNginx{statusURL: "http://" + co.StatusAddress, httpURL: "http://127.0.0.1:" + strconv.Itoa(co.HTTPPort)}
	in := nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: n.statusURL})
	if err := in.Layout(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := in.Start(ctx, conf); err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = in.Stop(ctx)
	})
	n.lua = luaapi.NewClient(n.statusURL, &http.Client{Timeout: 5 * time.Second})
	var servers luaapi.Servers
	n.posted, servers = luaapi.FromModel(cfg)
	if err := n.lua.PostBackends(ctx, n.posted); err != nil {
		return nil, err
	}
	if err := n.lua.PostServers(ctx, servers); err != nil {
		return nil, err
	}
	n.certificates = cfg.Certificates
	n.conf = conf
	return n, nil
}

func loopbackPort(t *testing.T) int {
	t.Helper()
	return testports.One(t)
}

// postRaw posts body as the backends, byte for byte.
func (n *backendsNginx) postRaw(t *testing.T, body []byte) {
	t.Helper()
	resp, err := http.Post(n.statusURL+luaapi.PathBackends, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST %s: status %d", luaapi.PathBackends, resp.StatusCode)
	}
}

// TestBackendsRealNginx asks a real nginx running our Lua, with --url.
func TestBackendsRealNginx(t *testing.T) {
	n := startBackendsNginx(t)

	// What the controller pushed comes back, field for field.
	code, out, errOut := runCmd(t, "", "backends", "--url", n.statusURL, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []luaapi.Backend
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("-o json is not a backends array: %v\n%s", err, out)
	}
	want := map[string]luaapi.Backend{}
	for _, b := range n.posted {
		want[b.Name] = b
	}
	if len(got) != len(want) {
		t.Fatalf("%d backends, pushed %d", len(got), len(want))
	}
	for _, g := range got {
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(want[g.Name])
		if string(gj) != string(wj) {
			t.Errorf("backend %s:\n got %s\nwant %s", g.Name, gj, wj)
		}
	}

	// The table, as in the golden of the same backends.json.
	code, out, _ = runCmd(t, "", "backends", "--url", n.statusURL+"/")
	golden, err := os.ReadFile(filepath.Join(backendsGoldenDir, "ours-examples", "out.table"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || out != string(golden) {
		t.Errorf("table: exit %d\n%s\nwant\n%s", code, out, golden)
	}

	// The URL of nginx's HTTP port is not a status server.
	code, _, errOut = runCmd(t, "", "backends", "--url", n.httpURL)
	if code != exitFailure || !strings.Contains(errOut, "GET /configuration/backends: status 404 Not Found") ||
		!strings.Contains(errOut, "is this the status server of an ingress controller?") {
		t.Errorf("--url of the HTTP port: exit %d, %s", code, errOut)
	}
	// Nothing listens.
	code, _, errOut = runCmd(t, "", "backends", "--url", "http://127.0.0.1:"+strconv.Itoa(loopbackPort(t)))
	if code != exitFailure || !strings.Contains(errOut, "connection refused") {
		t.Errorf("--url of a closed port: exit %d, %s", code, errOut)
	}
}

// The status server of our nginx holds ingress-nginx's payloads as it
// holds ours, and backends reads them back as from ingress-nginx: every
// golden answer that Lua accepts gives its golden table.
func TestBackendsRealNginxIngressNGINXShapes(t *testing.T) {
	n := startBackendsNginx(t)
	for _, c := range []string{"ingress-nginx-v1", "ingress-nginx-0.20", "canary", "hashing", "endpoints", "ours-examples"} {
		dir := filepath.Join(backendsGoldenDir, c)
		body, err := os.ReadFile(filepath.Join(dir, "answer.json"))
		if err != nil {
			t.Fatal(err)
		}
		n.postRaw(t, body)
		for _, format := range []string{outputTable, outputWide, outputJSON} {
			code, out, errOut := runCmd(t, "", "backends", "--url", n.statusURL, "-o", format)
			want, err := os.ReadFile(filepath.Join(dir, backendsGoldenFormats[format]))
			if err != nil {
				t.Fatal(err)
			}
			if code != 0 || out != string(want) {
				t.Errorf("%s -o %s: exit %d (%s)\n%s\nwant\n%s", c, format, code, errOut, out, want)
			}
		}
	}
}
