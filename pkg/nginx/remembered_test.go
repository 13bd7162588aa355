package nginx

import (
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postPayload posts body to path and returns the status, the answer and
// whether Lua answered from the remembered last apply.
func (e *env) postPayload(t *testing.T, path, body string) (int, string, bool) {
	t.Helper()
	code, out, header := e.do(t, http.MethodPost, e.statusURL()+path, body, nil)
	return code, out, header.Get("X-Kubectl-Ingress-Applied") == "remembered"
}

// TestNginxSamePayloadRemembered: a POST whose body is the last one
// applied to its dict is answered with that apply's result, without
// applying it again — the first POSTs after a start, of what the master
// preloaded, included — and anything else is applied.
func TestNginxSamePayloadRemembered(t *testing.T) {
	e := layoutEnv(t)
	a, b := upstream(t, "A"), upstream(t, "B")
	servers := serversJSON(t, "first", "a.example.com")
	if err := e.in.Preload(t.Context(), appBackends(a), servers); err != nil {
		t.Fatal(err)
	}
	conf := e.conf("")
	if err := e.in.Start(ctxFor(t, 20*time.Second), conf); err != nil {
		t.Fatal(err)
	}

	t.Run("the preloaded payloads", func(t *testing.T) {
		if code, out, hit := e.postPayload(t, "/configuration/backends", string(appBackends(a))); code != http.StatusCreated || out != "" || !hit {
			t.Errorf("POST of the preloaded backends: %d %q remembered=%v, want 201, no body, remembered", code, out, hit)
		}
		if code, _, hit := e.postPayload(t, "/configuration/servers", string(servers)); code != http.StatusCreated || !hit {
			t.Errorf("POST of the preloaded servers: %d remembered=%v, want 201 remembered", code, hit)
		}
		e.proxyFresh(t, "app", "A", 4)
	})

	t.Run("Content-MD5", func(t *testing.T) {
		post := func(body, md5 string) (int, string, bool) {
			t.Helper()
			code, out, header := e.do(t, http.MethodPost, e.statusURL()+"/configuration/backends", body, http.Header{"Content-Md5": {md5}})
			return code, out, header.Get("X-Kubectl-Ingress-Applied") == "remembered"
		}
		// the md5 of the payload applied last: its result, the body unread
		// (the controller's own md5 of what it posts is trusted)
		if code, out, hit := post("not read", contentMD5(appBackends(a))); code != http.StatusCreated || out != "" || !hit {
			t.Errorf("POST declaring the applied payload's md5: %d %q remembered=%v, want 201 remembered", code, out, hit)
		}
		other := fmt.Sprintf(`[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}]`, b)
		if code, out, _ := post(other, contentMD5([]byte("something else"))); code != http.StatusBadRequest || !strings.Contains(out, "Content-MD5") {
			t.Errorf("POST whose body is not its Content-MD5: %d %q, want 400 naming Content-MD5", code, out)
		}
		if code, out, _ := post(other, "abc"); code != http.StatusBadRequest || !strings.Contains(out, "Content-MD5") {
			t.Errorf("POST with a malformed Content-MD5: %d %q, want 400 naming Content-MD5", code, out)
		}
		e.proxyFresh(t, "app", "A", 4) // neither was applied
		if code, _, hit := post(other, contentMD5([]byte(other))); code != http.StatusCreated || hit {
			t.Errorf("POST of a new payload with its Content-MD5: %d remembered=%v, want 201 applied", code, hit)
		}
		e.proxyFresh(t, "app", "B", 4)
	})

	withBad := fmt.Sprintf(`[{"name": "app", "endpoints": [{"address": "127.0.0.1", "port": %q}]}, {"name": "bad", "endpoints": [{"address": "127.1", "port": "80"}]}]`, b)
	t.Run("a payload with a dropped entry, twice", func(t *testing.T) {
		code, first, hit := e.postPayload(t, "/configuration/backends", withBad)
		if code != http.StatusCreated || hit || !strings.Contains(first, `"name":"bad"`) {
			t.Fatalf("first POST: %d %q remembered=%v, want 201 naming the dropped entry, applied", code, first, hit)
		}
		e.proxyFresh(t, "app", "B", 4)
		code, again, hit := e.postPayload(t, "/configuration/backends", withBad)
		if code != http.StatusCreated || !hit || again != first {
			t.Errorf("the same POST again: %d %q remembered=%v, want 201, remembered, the first answer %q", code, again, hit, first)
		}
	})

	t.Run("another payload is applied, and then the older one again", func(t *testing.T) {
		if code, _, hit := e.postPayload(t, "/configuration/backends", string(appBackends(a))); code != http.StatusCreated || hit {
			t.Fatalf("POST back to A: %d remembered=%v, want 201 applied", code, hit)
		}
		e.proxyFresh(t, "app", "A", 4)
	})

	t.Run("a refused payload is not remembered, nor the one before it", func(t *testing.T) {
		if code, _, _ := e.postPayload(t, "/configuration/backends", "not json"); code != http.StatusBadRequest {
			t.Fatalf("POST of a bad body: %d, want 400", code)
		}
		if code, _, hit := e.postPayload(t, "/configuration/backends", string(appBackends(a))); code != http.StatusCreated || hit {
			t.Errorf("POST after a refused one: %d remembered=%v, want 201 applied", code, hit)
		}
	})

	t.Run("a reload that empties the host index forgets the servers", func(t *testing.T) {
		resized := strings.Replace(string(conf), "lua_shared_dict certificate_servers 1m;", "lua_shared_dict certificate_servers 2m;", 1)
		if err := e.in.Reload(ctxFor(t, 20*time.Second), []byte(resized)); err != nil {
			t.Fatal(err)
		}
		// certificate_data survived with the servers' remembered result,
		// the index did not (and the master preloads only into both empty)
		if code, _, hit := e.postPayload(t, "/configuration/servers", string(servers)); code != http.StatusCreated || hit {
			t.Fatalf("POST of the servers after the index was emptied: %d remembered=%v, want 201 applied", code, hit)
		}
		if cn, _ := e.served(t, "a.example.com"); cn != "first" {
			t.Errorf("served %q, want the posted certificate", cn)
		}
	})
}

// contentMD5 is the Content-MD5 header value of body (RFC 1864).
func contentMD5(body []byte) string {
	sum := md5.Sum(body)
	return base64.StdEncoding.EncodeToString(sum[:])
}
