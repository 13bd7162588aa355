package luaapi

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeLua is a small in-memory stand-in for configuration.lua.
type fakeLua struct {
	mu       sync.Mutex
	backends []byte
	servers  []byte
	general  []byte
	requests []string
}

func (f *fakeLua) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodGet && r.Header.Get("Content-MD5") != contentMD5(body) {
		// as configuration.lua: a body must be what its Content-MD5 says
		http.Error(w, "Content-MD5 "+r.Header.Get("Content-MD5")+" is not the body's", http.StatusBadRequest)
		return
	}
	switch r.Method + " " + r.URL.Path {
	case "GET " + PathBackends:
		w.Write(f.backends)
	case "POST " + PathBackends:
		var v []map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			http.Error(w, "invalid backends: "+err.Error(), http.StatusBadRequest)
			return
		}
		f.backends = body
		w.WriteHeader(http.StatusCreated)
	case "POST " + PathServers:
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want JSON", http.StatusUnsupportedMediaType)
			return
		}
		f.servers = body
		w.WriteHeader(http.StatusCreated)
	case "GET " + PathCerts:
		if r.URL.Query().Get("hostname") == "a.example.com" {
			io.WriteString(w, "PEM-A")
			return
		}
		http.Error(w, "", http.StatusNotFound)
	case "GET " + PathGeneral:
		w.Write(f.general)
	case "POST " + PathGeneral:
		f.general = body
		w.WriteHeader(http.StatusOK) // 200 is accepted as well as 201
	case "GET " + PathChecksum:
		io.WriteString(w, "d41d8cd98f00b204e9800998ecf8427e\n")
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func newFake(t *testing.T) (*fakeLua, *Client) {
	t.Helper()
	f := &fakeLua{backends: []byte("[]"), general: []byte("{}")}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, NewClient(srv.URL+"/", srv.Client())
}

func TestClientRoundTrip(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()

	got, err := c.GetBackends(ctx)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("GetBackends on empty = %v, %v", got, err)
	}
	backends, servers := FromModel(smallModel())
	if err := c.PostBackends(ctx, backends); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetBackends(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(backends)
	again, _ := json.Marshal(got)
	if string(want) != string(again) {
		t.Errorf("backends after a round trip:\n got %s\nwant %s", again, want)
	}

	if err := c.PostServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.servers), `"certificates":{"team/a-tls":"PEM-A"`) {
		t.Errorf("servers body = %s", f.servers)
	}

	pem, err := c.GetCertificate(ctx, "a.example.com")
	if err != nil || pem != "PEM-A" {
		t.Errorf("GetCertificate = %q, %v", pem, err)
	}

	if err := c.PostGeneral(ctx, json.RawMessage(` {"controllerPodsCount":2} `)); err != nil {
		t.Fatal(err)
	}
	general, err := c.GetGeneral(ctx)
	if err != nil || string(general) != `{"controllerPodsCount":2}` {
		t.Errorf("GetGeneral = %s, %v", general, err)
	}

	sum, err := c.GetChecksum(ctx)
	if err != nil || sum != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("GetChecksum = %q, %v", sum, err)
	}

	if err := c.PostBackends(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if string(f.backends) != "[]" {
		t.Errorf("nil backends posted as %s, want []", f.backends)
	}
	if f.requests[len(f.requests)-1] != "POST /configuration/backends" {
		t.Errorf("last request %q", f.requests[len(f.requests)-1])
	}
}

func TestClientStatusErrors(t *testing.T) {
	_, c := newFake(t)
	ctx := context.Background()

	_, err := c.GetCertificate(ctx, "unknown.example.com")
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("GetCertificate(unknown) = %v, want a 404 StatusError", err)
	}
	if !strings.HasPrefix(err.Error(), "GET /configuration/certs: status 404") {
		t.Errorf("error %q does not name the endpoint", err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `backend 2: "endpoints" must be an array`, http.StatusBadRequest)
	}))
	defer srv.Close()
	c = NewClient(srv.URL, nil)
	err = c.PostBackends(ctx, []Backend{{Name: "x"}})
	if !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Body, `"endpoints" must be an array`) {
		t.Fatalf("PostBackends = %v, want a 400 StatusError with nginx's message", err)
	}
	want := `POST /configuration/backends: status 400 Bad Request: backend 2: "endpoints" must be an array`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if _, err := c.GetChecksum(ctx); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Errorf("GetChecksum = %v", err)
	}

	if err := c.PostGeneral(ctx, json.RawMessage(`[1]`)); err == nil {
		t.Error("PostGeneral accepted a JSON array")
	}
}

func TestClientBadAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "not json")
	}))
	defer srv.Close()
	c := NewClient(srv.URL, srv.Client())
	if _, err := c.GetBackends(context.Background()); err == nil || !strings.Contains(err.Error(), "GET /configuration/backends: decoding") {
		t.Errorf("GetBackends on a bad answer = %v", err)
	}
	if _, err := c.GetGeneral(context.Background()); err == nil {
		t.Error("GetGeneral accepted a non-JSON answer")
	}
}

func TestClientContextTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(srv.URL, srv.Client())

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.PostBackends(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PostBackends past its deadline = %v, want context.DeadlineExceeded", err)
	}
	if !strings.HasPrefix(err.Error(), "POST /configuration/backends: ") {
		t.Errorf("error %q does not name the endpoint", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the context did not bound the call")
	}
}

func TestClientUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := NewClient(url, nil).GetBackends(context.Background())
	var se *StatusError
	if err == nil || errors.As(err, &se) {
		t.Errorf("GetBackends on a closed port = %v, want a transport error", err)
	}
}

func TestClientDefaultTimeoutAndIsStatus(t *testing.T) {
	if c := NewClient("http://127.0.0.1:1", nil); c.hc.Timeout != DefaultTimeout {
		t.Errorf("nil *http.Client: timeout %v, want %v", c.hc.Timeout, DefaultTimeout)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "backends: 2000000 bytes do not fit in the shared dict", http.StatusRequestEntityTooLarge)
	}))
	defer srv.Close()
	err := NewClient(srv.URL, nil).PostBackends(context.Background(), nil)
	if !IsStatus(err, http.StatusRequestEntityTooLarge) || IsStatus(err, http.StatusBadRequest) {
		t.Errorf("IsStatus(%v): wrong answer", err)
	}
	if !strings.Contains(err.Error(), "do not fit in the shared dict") {
		t.Errorf("error %q lacks nginx's answer", err)
	}
	if IsStatus(errors.New("x"), http.StatusRequestEntityTooLarge) {
		t.Error("IsStatus of a plain error")
	}
}

// contentMD5 is the Content-MD5 value of body.
func contentMD5(body []byte) string {
	sum := md5.Sum(body)
	return contentMD5Of(sum[:])
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}
