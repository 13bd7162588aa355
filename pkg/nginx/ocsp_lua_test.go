package nginx

// Unit tests of lua/ocsp_fetch.lua and lua/ocsp_stapling.lua, run inside
// nginx (the modules need ngx.*): a test location calls one function per
// request and answers its results as JSON. The certificates and OCSP
// responses come from a test CA (internal/testcerts, with
// golang.org/x/crypto/ocsp), the responders are loopback servers.

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
)

// ocspTestServer calls the Lua functions: op selects one, the body is its
// DER or PEM input.
const ocspTestServer = `
    server {
        listen 127.0.0.1:%d;
        client_max_body_size 1m;
        client_body_buffer_size 1m;
        location = /t {
            content_by_lua_block {
                local f = require("ocsp_fetch")
                local s = require("ocsp_stapling")
                local ssl = require("ngx.ssl")
                local cjson = require("cjson.safe")
                ngx.req.read_body()
                local body = ngx.req.get_body_data() or ""
                local a = ngx.req.get_uri_args()
                local short = { connect = 500, send = 500, read = 500 }
                local out = {}
                if a.op == "url" then
                    out.u, out.err = f.parse_url(a.url)
                elseif a.op == "next_update" then
                    out.t = f.next_update(body)
                elseif a.op == "time" then
                    out.t = f.generalized_time(a.v)
                elseif a.op == "refresh" then
                    out.t = s.refresh_at(tonumber(a.now), tonumber(a.valid))
                elseif a.op == "post" then
                    local u = assert(f.parse_url(a.url))
                    local started = ngx.now()
                    out.body, out.err = f.post(u, "req", short)
                    out.elapsed = ngx.now() - started
                elseif a.op == "fetch" then
                    local der = assert(ssl.cert_pem_to_der(body))
                    local resp
                    resp, out.t, out.err, out.cert_fault = f.fetch(der, short)
                    out.ok = resp ~= nil
                end
                ngx.say(cjson.encode(out))
            }
        }
    }
`

type luaResult struct {
	U *struct {
		Host       string `json:"host"`
		Port       int    `json:"port"`
		Path       string `json:"path"`
		HostHeader string `json:"host_header"`
	} `json:"u"`
	Err       string  `json:"err"`
	T         float64 `json:"t"`
	Body      string  `json:"body"`
	Elapsed   float64 `json:"elapsed"`
	OK        bool    `json:"ok"`
	CertFault bool    `json:"cert_fault"`
}

// ocspLua starts nginx with the test server and returns a caller.
func ocspLua(t *testing.T) func(query url.Values, body string) luaResult {
	t.Helper()
	e := layoutEnv(t)
	port := freePorts(t, 1)[0]
	if err := e.in.Start(ctxFor(t, 20*time.Second), e.conf(fmt.Sprintf(ocspTestServer, port))); err != nil {
		t.Fatal(err)
	}
	return func(q url.Values, body string) luaResult {
		t.Helper()
		code, out, _ := e.do(t, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(port)+"/t?"+q.Encode(), body, nil)
		var r luaResult
		if err := json.Unmarshal([]byte(out), &r); code != 200 || err != nil {
			t.Fatalf("%v: %d %s", q, code, out)
		}
		return r
	}
}

func TestLuaOCSPParseURL(t *testing.T) {
	call := ocspLua(t)
	for _, c := range []struct {
		url, host string
		port      int
		path, hdr string
		err       string
	}{
		{url: "http://ocsp.example.com", host: "ocsp.example.com", port: 80, path: "/", hdr: "ocsp.example.com"},
		{url: "HTTP://r3.o.lencr.org/", host: "r3.o.lencr.org", port: 80, path: "/", hdr: "r3.o.lencr.org"},
		{url: "http://127.0.0.1:8080/ocsp/x?y=1#frag", host: "127.0.0.1", port: 8080, path: "/ocsp/x?y=1", hdr: "127.0.0.1:8080"},
		{url: "http://[::1]:9/", host: "::1", port: 9, path: "/", hdr: "[::1]:9"},
		{url: "http://h.example?q", host: "h.example", port: 80, path: "/?q", hdr: "h.example"},
		{url: "https://ocsp.example.com/", err: "not http://"},
		{url: "ldap://x/", err: "not http://"},
		{url: "ocsp.example.com/", err: "not an absolute URL"},
		{url: "http://user@h/", err: "user information"},
		{url: "http://h:0/", err: "bad port"},
		{url: "http://h:65536/", err: "bad port"},
		{url: "http:///x", err: "no valid host"},
		{url: "http://h_x;y/", err: "no valid host"},
		{url: "http://h/a b", err: "spaces or control characters"},
	} {
		r := call(url.Values{"op": {"url"}, "url": {c.url}}, "")
		if c.err != "" {
			if r.U != nil || !strings.Contains(r.Err, c.err) {
				t.Errorf("%s: %+v %q, want an error with %q", c.url, r.U, r.Err, c.err)
			}
			continue
		}
		if r.U == nil || r.U.Host != c.host || r.U.Port != c.port || r.U.Path != c.path || r.U.HostHeader != c.hdr {
			t.Errorf("%s: %+v %q, want %s %d %s %s", c.url, r.U, r.Err, c.host, c.port, c.path, c.hdr)
		}
	}
}

func TestLuaOCSPTimes(t *testing.T) {
	call := ocspLua(t)
	for v, want := range map[string]float64{
		"19700101000000Z":     0,
		"20261203201500Z":     float64(time.Date(2026, 12, 3, 20, 15, 0, 0, time.UTC).Unix()),
		"20000229235959Z":     float64(time.Date(2000, 2, 29, 23, 59, 59, 0, time.UTC).Unix()),
		"21000301000000.123Z": float64(time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC).Unix()),
		"20261203201500+0100": -1, "2026120320Z": -1, "20261303201500Z": -1, "": -1,
	} {
		r := call(url.Values{"op": {"time"}, "v": {v}}, "")
		if want < 0 && r.T != 0 || want >= 0 && r.T != want {
			t.Errorf("generalized_time(%q) = %v, want %v (-1: nil)", v, r.T, want)
		}
	}
	// refresh: 5 min before nextUpdate, at most an hour, at least 5 min.
	for _, c := range []struct{ now, valid, want int }{
		{1000, 1000 + 7*86400, 1000 + 3600},
		{1000, 1000 + 1800, 1000 + 1500},
		{1000, 1000 + 400, 1000 + 300},
	} {
		r := call(url.Values{"op": {"refresh"}, "now": {strconv.Itoa(c.now)}, "valid": {strconv.Itoa(c.valid)}}, "")
		if int(r.T) != c.want {
			t.Errorf("refresh_at(%d, %d) = %v, want %d", c.now, c.valid, r.T, c.want)
		}
	}
}

func pemChain(certs ...*x509.Certificate) string {
	var b strings.Builder
	for _, c := range certs {
		b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
	}
	return b.String()
}

func TestLuaOCSPNextUpdate(t *testing.T) {
	call := ocspLua(t)
	ca := testcerts.NewCA(t)
	now := time.Now().Truncate(time.Second)
	next := now.Add(90 * time.Minute)
	for _, c := range []struct {
		name string
		resp []byte
		want float64
	}{
		{"good with nextUpdate", ca.OCSPResponse(t, ocsp.Response{Status: ocsp.Good, SerialNumber: big.NewInt(5), ThisUpdate: now, NextUpdate: next}), float64(next.Unix())},
		{"revoked with nextUpdate", ca.OCSPResponse(t, ocsp.Response{Status: ocsp.Revoked, SerialNumber: big.NewInt(5), ThisUpdate: now, NextUpdate: next, RevokedAt: now, RevocationReason: ocsp.KeyCompromise}), float64(next.Unix())},
		{"no nextUpdate", ca.OCSPResponse(t, ocsp.Response{Status: ocsp.Good, SerialNumber: big.NewInt(5), ThisUpdate: now}), 0},
		{"not DER", []byte("garbage"), 0},
		{"truncated", ca.OCSPResponse(t, ocsp.Response{Status: ocsp.Good, SerialNumber: big.NewInt(5), ThisUpdate: now, NextUpdate: next})[:40], 0},
		{"an error status", ocsp.InternalErrorErrorResponse, 0},
	} {
		if r := call(url.Values{"op": {"next_update"}}, string(c.resp)); r.T != c.want {
			t.Errorf("%s: next_update = %v, want %v", c.name, r.T, c.want)
		}
	}
}

// rawServer answers each connection with answer once it has read the
// request (ending with the body "req"), then closes it; with answer ""
// it holds the connection open.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var got []byte
				buf := make([]byte, 4096)
				for !strings.HasSuffix(string(got), "\r\n\r\nreq") {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					got = append(got, buf[:n]...)
				}
				if answer == "" {
					<-done
					return
				}
				_, _ = io.WriteString(c, answer)
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/ocsp"
}

func TestLuaOCSPPost(t *testing.T) {
	call := ocspLua(t)
	var seen *http.Request
	var seenBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		seenBody, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, "the response")
	}))
	defer srv.Close()
	r := call(url.Values{"op": {"post"}, "url": {srv.URL + "/p/q?x=1"}}, "")
	if r.Body != "the response" || r.Err != "" {
		t.Fatalf("post to a Go server: %q %q", r.Body, r.Err)
	}
	if seen.Method != http.MethodPost || seen.URL.RequestURI() != "/p/q?x=1" || seen.Host != strings.TrimPrefix(srv.URL, "http://") ||
		seen.Header.Get("Content-Type") != "application/ocsp-request" || string(seenBody) != "req" || seen.Proto != "HTTP/1.0" {
		t.Errorf("the responder got %s %s %s Host %s type %q body %q", seen.Method, seen.URL.RequestURI(), seen.Proto, seen.Host, seen.Header.Get("Content-Type"), seenBody)
	}

	big := strings.Repeat("x", 70000)
	for _, c := range []struct {
		name, answer, body, err string
	}{
		{"close-delimited body", "HTTP/1.0 200 OK\r\nContent-Type: application/ocsp-response\r\n\r\nbody", "body", ""},
		{"Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbodyEXTRA", "body", ""},
		{"500", "HTTP/1.0 500 Oops\r\nContent-Length: 0\r\n\r\n", "", "answered HTTP 500"},
		{"empty body", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", "", "empty body"},
		{"too large, Content-Length", "HTTP/1.0 200 OK\r\nContent-Length: 70000\r\n\r\n" + big, "", "response of 70000 bytes, more than 65536"},
		{"too large, close-delimited", "HTTP/1.0 200 OK\r\n\r\n" + big, "", "more than 65536 bytes"},
		{"bad Content-Length", "HTTP/1.0 200 OK\r\nContent-Length: -1\r\n\r\n", "", "bad Content-Length"},
		{"not HTTP", "SSH-2.0-x\r\n", "", "not an HTTP answer"},
		{"too many headers", "HTTP/1.0 200 OK\r\n" + strings.Repeat("X: y\r\n", 100) + "\r\nbody", "", "more than 64 header lines"},
		{"short body", "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nbody", "", "read the body: closed"},
		{"hangs", "", "", "timeout"},
	} {
		r := call(url.Values{"op": {"post"}, "url": {rawServer(t, c.answer)}}, "")
		if r.Body != c.body || c.err == "" && r.Err != "" || !strings.Contains(r.Err, c.err) {
			t.Errorf("%s: body %q err %q, want %q and an error with %q", c.name, r.Body, r.Err, c.body, c.err)
		}
		if r.Elapsed > 2 {
			t.Errorf("%s: took %.1f s (timeouts of 0.5 s)", c.name, r.Elapsed)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	if r := call(url.Values{"op": {"post"}, "url": {refused}}, ""); !strings.Contains(r.Err, "connection refused") {
		t.Errorf("refused: %q", r.Err)
	}
	if r := call(url.Values{"op": {"post"}, "url": {"http://ocsp.invalid/"}}, ""); !strings.Contains(r.Err, "no resolver line") {
		t.Errorf("a host name without a resolver line: %q, want the log to say nginx.conf has no resolver", r.Err)
	}
}

func TestLuaOCSPFetch(t *testing.T) {
	call := ocspLua(t)
	ca := testcerts.NewCA(t)
	next := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	status := ocsp.Good
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		q, err := ocsp.ParseRequest(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		serial := q.SerialNumber
		if r.URL.Path == "/other" {
			serial = big.NewInt(999)
		}
		_, _ = w.Write(ca.OCSPResponse(t, ocsp.Response{Status: status, SerialNumber: serial, ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: next, RevokedAt: time.Now()}))
	}))
	defer srv.Close()

	leaf := func(serial int64, ocspURL string) *x509.Certificate {
		cert, _, _ := ca.IssueOCSP(t, "leaf", serial, ocspURL, "leaf.example.com")
		return cert
	}
	good := leaf(21, srv.URL+"/")
	if r := call(url.Values{"op": {"fetch"}}, pemChain(good, ca.Certificate())); !r.OK || r.T != float64(next.Unix()) || r.Err != "" {
		t.Errorf("a good response: %+v, want ok with nextUpdate %d", r, next.Unix())
	}
	for _, c := range []struct {
		name, pem, err string
		fault          bool
	}{
		{"no issuer in the chain", pemChain(good), "must hold the issuer after the certificate", true},
		{"no OCSP URL", pemChain(leaf(22, ""), ca.Certificate()), "no OCSP responder", true},
		{"an https URL", pemChain(leaf(23, "https://127.0.0.1/"), ca.Certificate()), "not http://", true},
		{"another certificate's status", pemChain(leaf(24, srv.URL+"/other"), ca.Certificate()), "is not usable: certificate status not found", false},
		{"another issuer", pemChain(good, testcerts.NewCA(t).Certificate()), "issuer certificate not next to leaf", true},
	} {
		r := call(url.Values{"op": {"fetch"}}, c.pem)
		if r.OK || !strings.Contains(r.Err, c.err) || r.CertFault != c.fault {
			t.Errorf("%s: %+v, want an error with %q, certificate's fault %v", c.name, r, c.err, c.fault)
		}
	}
	status = ocsp.Revoked
	if r := call(url.Values{"op": {"fetch"}}, pemChain(good, ca.Certificate())); r.OK || !strings.Contains(r.Err, `certificate status "revoked"`) || r.CertFault {
		t.Errorf("a revoked certificate: %+v, want no response (not stapled, as ingress-nginx)", r)
	}
}
