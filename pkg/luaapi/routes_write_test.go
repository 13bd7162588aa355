package luaapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// writeRoutesConfig is a Config whose paths, annotations-made settings and
// deletions hold bytes json.Marshal escapes (<, >, &, U+2028, quotes).
func writeRoutesConfig() *model.Config {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "w<e>b&"}
	c := &model.Config{Global: model.DefaultGlobal(), DefaultBackend: model.DefaultBackendName}
	c.Servers = append(c.Servers, model.Server{Hostname: model.CatchAllHost})
	for _, host := range []string{"a.example.com", "b.example.com", "c.example.com"} {
		s := model.Server{Hostname: host, Aliases: []string{"www." + host}, SSLCiphers: "HIGH:!aNULL"}
		s.Locations = []model.Location{
			{Path: "/a&b<c>\u2028\"q\"", PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}},
			{Path: "/r/(.*)", PathType: model.PathImplementationSpecific, Regex: true, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}},
		}
		c.Servers = append(c.Servers, s)
	}
	return c
}

// TestWriteRoutesUpdate: the body written an entry at a time is byte for
// byte json.Marshal's, for compact entries (a RoutesCache's: their kept
// JSON), plain ones, aliases, deletions, and an empty update (lists as
// [], as PostRoutes posts them; nginx's remembered answer compares md5s).
func TestWriteRoutesUpdate(t *testing.T) {
	c := writeRoutesConfig()
	hosts := []string{model.CatchAllHost, "a.example.com", "b.example.com", "c.example.com"}
	var rc RoutesCache
	compact := rc.RoutesFromModel(c, hosts)
	plain := RoutesFromModel(c, hosts)
	if compact[1].encoded == nil {
		t.Fatal("the cache's entries are not compact: the test would not cover them")
	}
	for name, u := range map[string]RoutesUpdate{
		"compact": {Hosts: compact, Delete: []string{"gone<&>.example.com", "\u2028"}},
		"plain":   {Hosts: plain, Delete: []string{}},
		"mixed":   {Hosts: append(append([]HostRoutes{}, compact[:2]...), plain[2:]...), Delete: []string{"x"}},
		"empty":   {Hosts: []HostRoutes{}, Delete: []string{}},
	} {
		want, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteRoutesUpdate(&got, u); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: wrote\n%s\nwant (json.Marshal)\n%s", name, got.Bytes(), want)
		}
	}
	// nil lists are written as PostRoutes posts them
	var got bytes.Buffer
	if err := WriteRoutesUpdate(&got, RoutesUpdate{}); err != nil || got.String() != `{"hosts":[],"delete":[]}` {
		t.Errorf("nil lists: %q %v", got.String(), err)
	}
	// a writer's error is returned
	if err := WriteRoutesUpdate(failingWriter{}, RoutesUpdate{Hosts: plain}); err == nil {
		t.Error("a failing writer: no error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestPostBodyFromReadsTheFile: the body of PostBodyFrom is the file's,
// with its length; each post (a retry) opens it again and closes it; an
// error to open it is the post's; a refused answer is a *StatusError.
func TestPostBodyFromReadsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "routes.json")
	content := bytes.Repeat([]byte(`{"hosts":[],"delete":[]}`), 50000) // > 1 MB: sent in many writes
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	var lengths []int64
	var sums []string
	status := http.StatusCreated
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got, lengths = append(got, body), append(lengths, r.ContentLength)
		sums = append(sums, r.Header.Get("Content-MD5"))
		w.WriteHeader(status)
		if status == http.StatusCreated {
			_, _ = w.Write([]byte(`{"dropped":[{"kind":"route","name":"a.example.com","index":0,"reason":"bad"}]}`))
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL, srv.Client())
	opened, closed := 0, 0
	open := OpenBody(func() (io.ReadCloser, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, err
		}
		opened++
		return closeCounter{f, &closed}, int64(len(content)), nil
	})
	for range 2 {
		dropped, err := c.PostBodyFrom(t.Context(), PathRoutes, open)
		if err != nil || len(dropped) != 1 || dropped[0].Name != "a.example.com" {
			t.Fatalf("dropped %v, err %v", dropped, err)
		}
	}
	if len(got) != 2 || !bytes.Equal(got[0], content) || !bytes.Equal(got[1], content) || lengths[0] != int64(len(content)) {
		t.Errorf("the server got %d bodies (lengths %v), want the file's twice", len(got), lengths)
	}
	if want := contentMD5(content); sums[0] != want || sums[1] != want {
		t.Errorf("Content-MD5 %q, want %q (the file's md5)", sums, want)
	}
	if opened != 4 || closed != 4 {
		t.Errorf("opened %d, closed %d: want each post to open and close the file twice (its md5, then the post)", opened, closed)
	}
	status = http.StatusBadRequest
	var se *StatusError
	if _, err := c.PostBodyFrom(t.Context(), PathRoutes, open); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Errorf("a refused body: %v, want a *StatusError 400", err)
	}
	missing := OpenBody(func() (io.ReadCloser, int64, error) { return nil, 0, os.ErrNotExist })
	if _, err := c.PostBodyFrom(t.Context(), PathRoutes, missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a body that cannot be opened: %v", err)
	}
	if b, err := open.ReadAll(); err != nil || !bytes.Equal(b, content) {
		t.Errorf("ReadAll: %d bytes, %v", len(b), err)
	}
}

type closeCounter struct {
	io.Reader
	n *int
}

func (c closeCounter) Close() error { *c.n++; return nil }
