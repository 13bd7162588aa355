package e2e

// backend-protocol GRPC and GRPCS through a real nginx, in both routing
// modes (classic: a location with grpc_pass; Lua: the router's shape
// location with grpc_pass, the host Lua-routed): a gRPC call over HTTP/2
// with TLS to nginx reaches an HTTP/2 backend (cleartext for GRPC, TLS for
// GRPCS) with the request headers of ingress-nginx's gRPC location (set
// with grpc_set_header: Host, or upstream-vhost, X-Forwarded-*, X-Real-IP,
// X-Request-ID and the ConfigMap's proxy-set-headers), the answer's
// trailers come back, a bidirectional stream runs message by message (no
// request buffering on the way), proxy-read-timeout bounds the wait for
// the backend (grpc_read_timeout, or the route's timeout through the Lua
// balancer), and a plain HTTP path of the same host goes to its own
// backend.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// grpcWait bounds every call of these tests.
const grpcWait = 10 * time.Second

// grpcSeen is what the gRPC backend answers for a unary call: the
// request's protocol, TLS, host, path and the headers of interest.
type grpcSeen struct {
	Proto   string            `json:"proto"`
	TLS     bool              `json:"tls"`
	Host    string            `json:"host"`
	Path    string            `json:"path"`
	Message string            `json:"message"`
	Headers map[string]string `json:"headers"`
}

// grpcSeenHeaders are the request headers the backend reports.
var grpcSeenHeaders = []string{"X-Forwarded-For", "X-Real-Ip", "X-Forwarded-Proto", "X-Forwarded-Host",
	"X-Forwarded-Port", "X-Request-Id", "X-Grpc-Custom", "Content-Type", "Te", "Proxy"}

// grpcFrame is one length-prefixed gRPC message (uncompressed).
func grpcFrame(msg []byte) []byte {
	out := make([]byte, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:5], uint32(len(msg)))
	copy(out[5:], msg)
	return out
}

// readGRPCFrame reads one gRPC message from r.
func readGRPCFrame(r io.Reader) ([]byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	if head[0] != 0 {
		return nil, fmt.Errorf("compressed gRPC message (flag %d)", head[0])
	}
	msg := make([]byte, binary.BigEndian.Uint32(head[1:5]))
	_, err := io.ReadFull(r, msg)
	return msg, err
}

// grpcHandler is a gRPC service over net/http's HTTP/2 server:
//   - /echo.Echo/Unary answers one message, the JSON of grpcSeen;
//   - /echo.Echo/Chat echoes each message as it arrives ("echo:" before
//     it), flushing each, until the client closes its side;
//   - /echo.Echo/Slow waits delay, then answers as Unary.
//
// Each answer ends with the trailers grpc-status 0 and grpc-message "ok";
// a request that is not HTTP/2 with content-type application/grpc is
// refused with 415.
func grpcHandler(delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			http.Error(w, "not gRPC: "+r.Proto+" "+r.Header.Get("Content-Type"), http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status, Grpc-Message")
		finish := func() {
			w.Header().Set("Grpc-Status", "0")
			w.Header().Set("Grpc-Message", "ok")
		}
		switch r.URL.Path {
		case "/echo.Echo/Chat":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				msg, err := readGRPCFrame(r.Body)
				if err != nil {
					break // io.EOF: the client closed its side
				}
				_, _ = w.Write(grpcFrame(append([]byte("echo:"), msg...)))
				w.(http.Flusher).Flush()
			}
			finish()
			return
		case "/echo.Echo/Slow":
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		msg, err := readGRPCFrame(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		seen := grpcSeen{Proto: r.Proto, TLS: r.TLS != nil, Host: r.Host, Path: r.URL.Path, Message: string(msg), Headers: map[string]string{}}
		for _, h := range grpcSeenHeaders {
			if v, ok := r.Header[h]; ok {
				seen.Headers[h] = strings.Join(v, " | ")
			}
		}
		body, _ := json.Marshal(seen)
		_, _ = w.Write(grpcFrame(body))
		finish()
	}
}

// grpcBackend starts a gRPC backend on loopback: cleartext HTTP/2 with
// prior knowledge (grpc_pass grpc://), or HTTP/2 over TLS (grpcs://).
func grpcBackend(t *testing.T, name string, useTLS bool) *backend {
	t.Helper()
	srv := httptest.NewUnstartedServer(grpcHandler(0))
	if useTLS {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		srv.Config.Protocols = &p
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return &backend{name: name, port: srv.Listener.Addr().(*net.TCPAddr).Port, srv: srv}
}

// grpcClient is an HTTP/2 client of nginx's HTTPS port.
type grpcClient struct {
	n  *liveNginx
	tr *http.Transport
}

func newGRPCClient(t *testing.T, n *liveNginx) *grpcClient {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	return &grpcClient{n: n, tr: tr}
}

// start sends a gRPC request for method on host with body and returns the
// answer (its body unread).
func (c *grpcClient) start(ctx context.Context, host, method string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://127.0.0.1:"+strconv.Itoa(c.n.httpsPort)+method, body)
	if err != nil {
		return nil, err
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	tr := c.tr.Clone()
	tr.TLSClientConfig.ServerName = host
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ProtoMajor != 2 {
		resp.Body.Close()
		return nil, fmt.Errorf("answer over %s, want HTTP/2", resp.Proto)
	}
	return resp, nil
}

// unary calls method on host with one message and returns the status,
// the answer's one message and its grpc-status trailer.
func (c *grpcClient) unary(t *testing.T, host, method, msg string) (int, []byte, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), grpcWait)
	defer cancel()
	resp, err := c.start(ctx, host, method, bytes.NewReader(grpcFrame([]byte(msg))))
	if err != nil {
		t.Fatalf("%s %s: %v", host, method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, ""
	}
	out, err := readGRPCFrame(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", host, method, err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("%s %s: reading to the trailers: %v", host, method, err)
	}
	return resp.StatusCode, out, resp.Trailer.Get("Grpc-Status")
}

func TestGRPCBackends(t *testing.T) {
	plain, secure := grpcBackend(t, "grpc-plain", false), grpcBackend(t, "grpc-tls", true)
	web := startBackend(t, "web", 0)
	m := `apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  proxy-set-headers: "ingress-nginx/grpc-headers"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: grpc-headers, namespace: ingress-nginx}
data:
  X-Grpc-Custom: "from-configmap"
---
` + serviceOf("grpc-plain", plain) + serviceOf("grpc-tls", secure) + serviceOf("web", web) +
		luaIngress("grpc", "grpc.test", true, map[string]string{"backend-protocol": "GRPC"}, "Prefix / grpc-plain") +
		luaIngress("grpcs", "grpcs.test", true, map[string]string{"backend-protocol": "grpcs"}, "Prefix / grpc-tls") +
		luaIngress("vhost", "vhost.test", true, map[string]string{"backend-protocol": "GRPC", "upstream-vhost": "inner.example"}, "Prefix / grpc-plain") +
		luaIngress("slow", "slow.test", true, map[string]string{"backend-protocol": "GRPC", "proxy-read-timeout": "1"}, "Prefix / grpc-plain") +
		luaIngress("mixed-grpc", "mixed.test", true, map[string]string{"backend-protocol": "GRPC"}, "Prefix /echo.Echo grpc-plain") +
		luaIngress("mixed-web", "mixed.test", true, nil, "Prefix / web")
	n := startNginx(t, m)
	n.requireLuaRouted(t, "grpc.test", "grpcs.test", "vhost.test", "slow.test", "mixed.test")
	c := newGRPCClient(t, n)

	unary := func(t *testing.T, host string) grpcSeen {
		t.Helper()
		code, body, status := c.unary(t, host, "/echo.Echo/Unary", "hello "+host)
		if code != http.StatusOK || status != "0" {
			t.Fatalf("%s: status %d, grpc-status %q, body %q", host, code, status, body)
		}
		var seen grpcSeen
		if err := json.Unmarshal(body, &seen); err != nil {
			t.Fatalf("%s: %v in %q", host, err, body)
		}
		if seen.Message != "hello "+host || seen.Path != "/echo.Echo/Unary" || seen.Proto != "HTTP/2.0" {
			t.Errorf("%s: the backend saw %+v", host, seen)
		}
		return seen
	}

	t.Run("GRPC: headers as ingress-nginx's gRPC location", func(t *testing.T) {
		seen := unary(t, "grpc.test")
		if seen.TLS {
			t.Errorf("GRPC reached the backend over TLS")
		}
		want := map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1", "X-Forwarded-Proto": "https",
			"X-Forwarded-Host": "grpc.test", "X-Forwarded-Port": "443", "X-Grpc-Custom": "from-configmap", "Content-Type": "application/grpc"}
		for k, v := range want {
			if seen.Headers[k] != v {
				t.Errorf("%s = %q, want %q (all: %v)", k, seen.Headers[k], v, seen.Headers)
			}
		}
		if seen.Host != "grpc.test" {
			t.Errorf("the backend's host is %q, want grpc.test", seen.Host)
		}
		if id := seen.Headers["X-Request-Id"]; len(id) != 32 {
			t.Errorf("X-Request-Id = %q, want nginx's $req_id", id)
		}
		if _, ok := seen.Headers["Proxy"]; ok {
			t.Errorf("the Proxy header reached the backend (httpoxy)")
		}
	})

	t.Run("GRPCS: HTTP/2 over TLS to the backend", func(t *testing.T) {
		seen := unary(t, "grpcs.test")
		if !seen.TLS || seen.Host != "grpcs.test" {
			t.Errorf("the backend saw TLS %v, host %q; want TLS, grpcs.test", seen.TLS, seen.Host)
		}
	})

	t.Run("upstream-vhost is the backend's host", func(t *testing.T) {
		if seen := unary(t, "vhost.test"); seen.Host != "inner.example" || seen.Headers["X-Forwarded-Host"] != "vhost.test" {
			t.Errorf("host %q, X-Forwarded-Host %q; want inner.example, vhost.test", seen.Host, seen.Headers["X-Forwarded-Host"])
		}
	})

	t.Run("a bidirectional stream, message by message", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), grpcWait)
		defer cancel()
		pr, pw := io.Pipe()
		defer pw.Close()
		// the client's first message is sent before the request starts,
		// so that nginx has a body to pass on at once
		go func() { _, _ = pw.Write(grpcFrame([]byte("m0"))) }()
		resp, err := c.start(ctx, "grpc.test", "/echo.Echo/Chat", pr)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		// each echo arrives while the client's side is still open: nothing
		// on the way waits for the whole request body
		for i := range 3 {
			got, err := readGRPCFrame(resp.Body)
			if err != nil {
				t.Fatalf("echo %d: %v", i, err)
			}
			if want := fmt.Sprintf("echo:m%d", i); string(got) != want {
				t.Fatalf("echo %d = %q, want %q", i, got, want)
			}
			if i < 2 {
				if _, err := pw.Write(grpcFrame([]byte(fmt.Sprintf("m%d", i+1)))); err != nil {
					t.Fatal(err)
				}
			}
		}
		pw.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		if s := resp.Trailer.Get("Grpc-Status"); s != "0" {
			t.Errorf("grpc-status %q after the stream, want 0", s)
		}
	})

	t.Run("proxy-read-timeout bounds the wait for the backend", func(t *testing.T) {
		start := time.Now()
		code, body, _ := c.unary(t, "slow.test", "/echo.Echo/Slow", "late")
		if code != http.StatusGatewayTimeout {
			t.Errorf("status %d (%q) after %v, want 504 after about 1 s", code, body, time.Since(start))
		}
		// the same host without the slow method answers
		unary(t, "slow.test")
	})

	t.Run("a plain HTTP path of the same host", func(t *testing.T) {
		unary(t, "mixed.test")
		code, body := n.getTLS(t, "mixed.test", "/page")
		if code != http.StatusOK || body != "web /page" {
			t.Errorf("GET /page: %d %q, want 200 from web", code, body)
		}
	})

}
