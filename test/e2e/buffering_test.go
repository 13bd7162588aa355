package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 12 item 5 (c): the buffering settings observable in behaviour,
// through a real nginx. proxy-request-buffering "off" streams a request
// body to the backend as the client sends it, "on" (the default) holds it
// until the client has sent all of it. proxy-buffering "off" (the default,
// as in ingress-nginx) passes a response's first chunk on before the
// backend has finished; so does "on" in practice (nginx writes what it has
// buffered when it can), so that is not what tells them apart: with "on"
// (or a backend's "X-Accel-Buffering: yes") nginx reads a whole large
// response from the backend while the client reads nothing.

// bufferingWait bounds every wait of these tests.
const bufferingWait = 10 * time.Second

// oneWorker makes nginx run a single worker, so that one connection's
// events are handled before those of a connection opened after it
// (TestBufferingRequest's marker request relies on that).
func oneWorker(conf string) string {
	return regexp.MustCompile(`(?m)^worker_processes [^;]*;`).ReplaceAllString(conf, "worker_processes 1;")
}

// TestBufferingRequest: a client sends its headers and the first part of
// a POST body, then waits. With proxy-request-buffering "off" the backend
// gets the request and the first part while the client holds the rest.
// With "on" a GET sent after the first part (handled by the same worker
// once it has read that part) reaches the backend while the POST has not:
// nginx waits for the whole body. Either way the backend gets it whole.
func TestBufferingRequest(t *testing.T) {
	const part, rest = "first-part|", "the-rest-of-the-body"
	type probe struct {
		posts   atomic.Int32  // POST requests the backend has started
		gotPart chan struct{} // the backend read the first part
	}
	probes := map[string]*probe{}
	var manifests strings.Builder
	for i, tc := range []struct{ host, setting string }{{"off.test", "off"}, {"on.test", "on"}, {"default.test", ""}} {
		p := &probe{gotPart: make(chan struct{}, 1)}
		probes[tc.host] = p
		name := "body-" + strings.TrimSuffix(tc.host, ".test") // not "on"/"off": YAML booleans
		be := handlerBackend(t, name, func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				fmt.Fprint(w, p.posts.Load())
				return
			}
			p.posts.Add(1)
			buf := make([]byte, len(part))
			if _, err := io.ReadFull(r.Body, buf); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			p.gotPart <- struct{}{}
			tail, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, "%s%s", buf, tail)
		})
		var annotations map[string]string
		if tc.setting != "" {
			annotations = map[string]string{"proxy-request-buffering": tc.setting}
		}
		manifests.WriteString(serviceOf(name, be) + ingressOf(name, tc.host, name, fmt.Sprintf("2026-01-01T00:00:0%dZ", i), annotations))
	}
	n := startNginxWith(t, manifests.String(), nginxOptions{editConf: oneWorker})
	n.requireLuaRouted(t, "off.test", "on.test", "default.test")

	for host, streamed := range map[string]bool{"off.test": true, "on.test": false, "default.test": false} {
		t.Run(host, func(t *testing.T) {
			p := probes[host]
			conn := sendRaw(t, n.httpPort, 3*bufferingWait, fmt.Sprintf("POST /upload HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", host, len(part)+len(rest), part))
			if streamed {
				select {
				case <-p.gotPart:
				case <-time.After(bufferingWait):
					t.Fatalf("proxy-request-buffering off: the backend did not get the first part of the body within %s while the client held the rest", bufferingWait)
				}
			} else {
				status, body := n.get(t, host, "/marker")
				if status != http.StatusOK || body != "0" {
					t.Fatalf("buffered: a request sent after the first part of the body: %d %q; want 200 and no POST started at the backend (\"0\")", status, body)
				}
				select {
				case <-p.gotPart:
					t.Fatal("buffered: the backend got the first part of the body before the client sent the rest")
				default:
				}
			}
			if _, err := io.WriteString(conn, rest); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || string(body) != part+rest {
				t.Fatalf("POST: %d %q (%v); want 200 and the whole body echoed", resp.StatusCode, body, err)
			}
			if !streamed {
				<-p.gotPart // sent before the backend answered
			}
		})
	}
}

// TestBufferingResponse: the backend writes and flushes a first chunk,
// then waits for the test before it ends the response. The client gets the
// first chunk while the backend waits with proxy-buffering "off" (and with
// the default, "off" as in ingress-nginx).
func TestBufferingResponse(t *testing.T) {
	// release is the channel that ends the response of the subtest that
	// runs (they run one at a time).
	var release atomic.Pointer[chan struct{}]
	be := handlerBackend(t, "stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-*release.Load():
		case <-r.Context().Done():
			return
		case <-time.After(3 * bufferingWait):
			return
		}
		fmt.Fprint(w, "last\n")
	})
	n := startNginx(t, serviceOf("stream", be)+
		ingressOf("stream-off", "off.test", "stream", "2026-01-01T00:00:00Z", map[string]string{"proxy-buffering": "off"})+
		ingressOf("stream-default", "default.test", "stream", "2026-01-01T00:00:01Z", nil))
	n.requireLuaRouted(t, "off.test", "default.test")
	for _, host := range []string{"off.test", "default.test"} {
		t.Run(host, func(t *testing.T) {
			done := make(chan struct{})
			release.Store(&done)
			conn := sendRaw(t, n.httpPort, 3*bufferingWait, fmt.Sprintf("GET /events HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			first := make(chan string, 1)
			go func() {
				line, _ := br.ReadString('\n')
				first <- line
			}()
			select {
			case line := <-first:
				if line != "first\n" {
					t.Fatalf("first line %q, want %q", line, "first\n")
				}
			case <-time.After(bufferingWait):
				t.Fatalf("the first chunk did not reach the client within %s while the backend waited", bufferingWait)
			}
			close(done)
			tail, err := io.ReadAll(br)
			if err != nil || string(tail) != "last\n" {
				t.Fatalf("after the release: %q (%v), want %q", tail, err, "last\n")
			}
		})
	}
}

// TestBufferingResponseHeld: the backend writes a response larger than
// every socket buffer between it and the client (64 MiB) while the client
// reads nothing. With proxy-buffering "on", and with "off" when the
// backend answers "X-Accel-Buffering: yes" (nginx honours it per
// response), nginx reads all of it (memory, then a temporary file) and the
// backend finishes; the client then reads it whole.
func TestBufferingResponseHeld(t *testing.T) {
	const size, chunk = 64 << 20, 64 << 10
	var finished atomic.Pointer[chan struct{}] // closed by the backend of the running subtest
	be := handlerBackend(t, "big", func(w http.ResponseWriter, r *http.Request) {
		done := *finished.Load()
		if r.URL.Query().Get("accel") == "yes" {
			w.Header().Set("X-Accel-Buffering", "yes")
		}
		w.Header().Set("Content-Length", strconv.Itoa(size))
		buf := []byte(strings.Repeat("x", chunk))
		for written := 0; written < size; written += chunk {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		close(done)
	})
	n := startNginx(t, serviceOf("big", be)+
		ingressOf("big-on", "on.test", "big", "2026-01-01T00:00:00Z", map[string]string{"proxy-buffering": "on"})+
		ingressOf("big-off", "off.test", "big", "2026-01-01T00:00:01Z", map[string]string{"proxy-buffering": "off"}))
	n.requireLuaRouted(t, "on.test", "off.test")
	for _, tc := range []struct{ host, query string }{{"on.test", ""}, {"off.test", "accel=yes"}} {
		t.Run(tc.host+"?"+tc.query, func(t *testing.T) {
			done := make(chan struct{})
			finished.Store(&done)
			conn := sendRaw(t, n.httpPort, 6*bufferingWait, fmt.Sprintf("GET /big?%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", tc.query, tc.host))
			select {
			case <-done:
			case <-time.After(bufferingWait):
				t.Fatalf("the backend did not finish writing %d bytes within %s while the client read nothing: nginx did not buffer the response", size, bufferingWait)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || got != size {
				t.Fatalf("%d, %d bytes (%v); want 200 and %d bytes", resp.StatusCode, got, err, size)
			}
		})
	}
}

// sendRaw dials nginx's port on loopback, sends request as it is and
// returns the connection, closed when the test ends; reads and writes on
// it fail after deadline.
func sendRaw(t *testing.T, port int, deadline time.Duration, request string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), bufferingWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(deadline)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return conn
}
