package nginx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
)

// confTemplate is a hand-made nginx.conf following lua/CONTRACT.md. The
// proxy server picks its backend from the X-Backend header so that one
// location covers every case. The status server keeps request bodies in
// memory only up to 1k, so that the tests also read bodies buffered to
// files. %[1]d: http port, %[2]d: https port, %[3]d: status port, %[4]s:
// extra http-level text.
const confTemplate = `load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
worker_processes 2;
pid nginx.pid;
error_log logs/error.log notice;
events { worker_connections 128; }
http {
    access_log logs/access.log;
    client_body_temp_path tmp/client_body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;

    lua_package_path "$prefix/lua/?.lua;;";
    lua_shared_dict configuration_data 4m;
    lua_shared_dict certificate_data 2m;
    lua_shared_dict certificate_servers 1m;
    init_by_lua_block {
        require("resty.core")
        configuration = require("configuration")
        balancer = require("balancer")
        certificate = require("certificate")
        certificate.init()
        configuration.init()
    }
    init_worker_by_lua_block { balancer.init_worker() }

    upstream upstream_balancer {
        server 0.0.0.1;
        balancer_by_lua_block { balancer.balance() }
        keepalive 8;
    }

    ssl_certificate     certs/default.crt;
    ssl_certificate_key certs/default.key;
    ssl_certificate_by_lua_block { certificate.call() }

    server {
        listen 127.0.0.1:%[1]d;
        listen 127.0.0.1:%[2]d ssl;
        location / {
            set $proxy_upstream_name $http_x_backend;
            rewrite_by_lua_block { balancer.rewrite() }
            proxy_http_version 1.1;
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
            proxy_set_header Connection "";
            proxy_pass http://upstream_balancer;
        }
    }

    server {
        listen 127.0.0.1:%[3]d;
        client_max_body_size 64m;
        client_body_buffer_size 1k;
        location = /healthz { return 200; }
        location = /nginx_status { stub_status on; }
        location /configuration { content_by_lua_block { configuration.call() } }
        location / { return 404; }
    }
%[4]s
}
`

// env is one running nginx with its ports.
type env struct {
	in                  *Instance
	http, https, status int
	client              *http.Client
}

func requireNginx(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("nginx is not on PATH: install the Debian packages nginx, libnginx-mod-http-lua, lua-resty-core and lua-cjson to run this test")
	}
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	return testports.Free(t, n)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// newEnv lays out a prefix in a temp dir and starts nginx on it.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := layoutEnv(t)
	if err := e.in.Start(ctxFor(t, 20*time.Second), e.conf("")); err != nil {
		t.Fatal(err)
	}
	return e
}

// layoutEnv lays out a prefix in a temp dir for nginx; the test starts it.
func layoutEnv(t *testing.T) *env {
	t.Helper()
	requireNginx(t)
	p := freePorts(t, 3)
	e := &env{http: p[0], https: p[1], status: p[2]}
	e.in = New(t.TempDir(), Options{StatusURL: e.statusURL()})
	e.client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	t.Cleanup(e.client.CloseIdleConnections)
	if err := e.in.Layout(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.in.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
		if t.Failed() || os.Getenv("NGINX_TEST_LOG") != "" {
			t.Logf("%s:\n%s", errorLogName, readFrom(e.in.errorLogPath(), 0, 16<<10))
		}
	})
	return e
}

func (e *env) conf(extra string) []byte {
	return fmt.Appendf(nil, confTemplate, e.http, e.https, e.status, extra)
}

func (e *env) statusURL() string { return "http://127.0.0.1:" + strconv.Itoa(e.status) }

func (e *env) do(t *testing.T, method, url, body string, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data), resp.Header
}

// api calls the status server.
func (e *env) api(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	code, out, _ := e.do(t, method, e.statusURL()+path, body, nil)
	return code, out
}

// proxy sends GET / through the proxy server to backend.
func (e *env) proxy(t *testing.T, backend string) (int, string) {
	t.Helper()
	code, out, _ := e.do(t, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(e.http)+"/", "", http.Header{"X-Backend": {backend}})
	return code, out
}

// workers returns the worker pids once exactly 2 run, none of them an old
// one draining after a reload (nginx titles it "worker process is
// shutting down"), and two readings agree: the kernel's children lists
// may miss a process forked or exiting meanwhile, so a reload under way
// could read as 2 workers.
func (e *env) workers(t *testing.T) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last []int
	for {
		pids, err := e.in.WorkerPids()
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) == 2 && !slices.ContainsFunc(pids, shuttingDown) {
			if slices.Equal(pids, last) {
				return pids
			}
			last = pids
		} else {
			last = nil
		}
		if time.Now().After(deadline) {
			t.Fatalf("want 2 workers, got %v", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// shuttingDown tells whether process pid is an nginx worker draining after
// a reload (or gone).
func shuttingDown(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err != nil || bytes.Contains(cmdline, []byte("shutting down"))
}

// upstream starts an HTTP server answering its name; it returns its port.
func upstream(t *testing.T, name string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, name)
	}))
	t.Cleanup(s.Close)
	_, port, err := net.SplitHostPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port
}
