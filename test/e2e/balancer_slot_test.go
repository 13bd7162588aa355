package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBodyWaitKeepsItsBackend: requests whose bodies nginx is still
// waiting for, while requests to another backend pass through the same
// workers, each reach their own backend. Without ngx.ctx a request's
// backend is taken from the one-request slot of the last balancer.rewrite
// (lua/balancer.lua), which the other requests took over meanwhile, so
// these must find it by $proxy_upstream_name instead.
//
// Each waiting request sends "Expect: 100-continue": nginx answers "100
// Continue" once it starts reading the body, after the rewrite phase (the
// router, balancer.rewrite) ran; only then do the other requests go, and
// then the bodies.
func TestBodyWaitKeepsItsBackend(t *testing.T) {
	a := startBackend(t, "alpha", 0)
	b := startBackend(t, "beta", 0)
	n := startNginx(t, serviceOf("alpha", a)+serviceOf("beta", b)+
		ingressOf("alpha", "alpha.test", "alpha", "2026-01-01T00:00:00Z", nil)+
		ingressOf("beta", "beta.test", "beta", "2026-01-01T00:00:01Z", nil))
	n.requireLuaRouted(t, "alpha.test", "beta.test")
	const waiting, others = 6, 24
	conns := make([]net.Conn, waiting)
	readers := make([]*bufio.Reader, waiting)
	for i := range conns {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(n.httpPort), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		body := "body " + strconv.Itoa(i)
		fmt.Fprintf(c, "POST /wait HTTP/1.1\r\nHost: alpha.test\r\nContent-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n", len(body))
		r := bufio.NewReader(c)
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
			t.Fatalf("waiting request %d: %q, %v; want 100 Continue", i, line, err)
		}
		if _, err := r.ReadString('\n'); err != nil { // the empty line after it
			t.Fatal(err)
		}
		conns[i], readers[i] = c, r
	}
	// a connection each, so that every worker serves some
	fresh := &http.Transport{DisableKeepAlives: true}
	for range others {
		if status, got := n.do(t, "http://127.0.0.1:"+strconv.Itoa(n.httpPort)+"/other", "beta.test", fresh); status != http.StatusOK || !strings.HasPrefix(got, "beta ") {
			t.Fatalf("beta.test: %d %q", status, got)
		}
	}
	for i, c := range conns {
		if _, err := io.WriteString(c, "body "+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			t.Fatalf("waiting request %d: %v", i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(got), "alpha ") {
			t.Errorf("waiting request %d to alpha.test: %d %q, want alpha's answer", i, resp.StatusCode, got)
		}
	}
}
