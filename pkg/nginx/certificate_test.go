package nginx

import (
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// served returns the leaf certificate nginx presents for serverName.
func (e *env) served(t *testing.T, serverName string) (cn, serial string) {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(e.https), &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: true, // the test reads the certificate, it does not trust it
	})
	if err != nil {
		t.Fatalf("TLS to %s: %v", serverName, err)
	}
	defer conn.Close()
	leaf := conn.ConnectionState().PeerCertificates[0]
	return leaf.Subject.CommonName, leaf.SerialNumber.String()
}

func (e *env) pushServers(t *testing.T, servers, certs map[string]string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"servers": servers, "certificates": certs})
	if err != nil {
		t.Fatal(err)
	}
	if code, out := e.api(t, http.MethodPost, "/configuration/servers", string(body)); code != http.StatusCreated {
		t.Fatalf("POST servers: %d %s", code, out)
	}
}

func pemFor(t *testing.T, cn string, hosts ...string) string {
	t.Helper()
	cert, key, err := SelfSignedCertificate(cn, hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return string(cert) + string(key)
}

func TestNginxCertificates(t *testing.T) {
	e := newEnv(t)
	exact := pemFor(t, "exact", "a.example.com")
	wild := pemFor(t, "wild", "*.wild.example.com")
	e.pushServers(t,
		map[string]string{"a.example.com": "default-a", "*.wild.example.com": "default-wild"},
		map[string]string{"default-a": exact, "default-wild": wild})

	for host, want := range map[string]string{
		"a.example.com":        "exact",
		"A.Example.COM":        "exact",
		"x.wild.example.com":   "wild",
		"wild.example.com":     DefaultCertificateCN,
		"y.x.wild.example.com": DefaultCertificateCN,
		"b.example.com":        DefaultCertificateCN,
		"":                     DefaultCertificateCN,
	} {
		if cn, _ := e.served(t, host); cn != want {
			t.Errorf("SNI %q: served %q, want %q", host, cn, want)
		}
	}

	t.Run("GET certs", func(t *testing.T) {
		for host, want := range map[string]struct {
			code int
			body string
			id   string
		}{
			"a.example.com":      {200, exact, "default-a"},
			"x.wild.example.com": {200, wild, "default-wild"},
			"b.example.com":      {404, "", ""},
		} {
			code, out, header := e.do(t, http.MethodGet, e.statusURL()+"/configuration/certs?hostname="+url.QueryEscape(host), "", nil)
			if code != want.code || (want.body != "" && out != want.body) || header.Get("X-Certificate-Id") != want.id {
				t.Errorf("certs %s: %d %q (X-Certificate-Id %q), want %d (%q)", host, code, out, header.Get("X-Certificate-Id"), want.code, want.id)
			}
		}
		if code, _ := e.api(t, http.MethodGet, "/configuration/certs", ""); code != http.StatusBadRequest {
			t.Errorf("certs without hostname: %d, want 400", code)
		}
	})

	t.Run("rotation under the same id is served at once", func(t *testing.T) {
		_, before := e.served(t, "a.example.com")
		e.pushServers(t,
			map[string]string{"a.example.com": "default-a", "*.wild.example.com": "default-wild"},
			map[string]string{"default-a": pemFor(t, "exact", "a.example.com"), "default-wild": wild})
		for range 4 { // either worker
			if cn, after := e.served(t, "a.example.com"); cn != "exact" || after == before {
				t.Fatalf("after rotation: %s serial %s, before %s", cn, after, before)
			}
		}
	})

	t.Run("bad bodies are refused and change nothing", func(t *testing.T) {
		for _, body := range []string{
			``, `[]`, `not json`,
			`{"servers": ["a.example.com"]}`,
			`{"servers": "a.example.com"}`,
			`{"certificates": ["x"]}`,
		} {
			if code, out := e.api(t, http.MethodPost, "/configuration/servers", body); code != http.StatusBadRequest {
				t.Errorf("POST servers %s: %d %q, want 400", body, code, out)
			}
		}
		if cn, _ := e.served(t, "x.wild.example.com"); cn != "wild" {
			t.Errorf("after bad POSTs: served %q", cn)
		}
	})

	t.Run("a bad entry is dropped, its last version kept, the rest applied", func(t *testing.T) {
		good := map[string]any{"a.example.com": "default-a", "*.wild.example.com": "default-wild"}
		for _, c := range []struct {
			name         string
			servers      map[string]any
			certs        map[string]any
			kind, dropID string
		}{
			{"host to a number", map[string]any{"a.example.com": 1}, nil, "server", "a.example.com"},
			{"host to nothing", map[string]any{"a.example.com": ""}, nil, "server", "a.example.com"},
			{"certificate not a string", nil, map[string]any{"default-a": map[string]string{"pem": "..."}}, "certificate", "default-a"},
			{"certificate that is no PEM", nil, map[string]any{"default-a": "nope"}, "certificate", "default-a"},
			{"certificate without its key", nil, map[string]any{"default-a": exactCertOnly(t, exact)}, "certificate", "default-a"},
		} {
			servers := map[string]any{"new.example.com": "default-new"}
			for k, v := range good {
				servers[k] = v
			}
			for k, v := range c.servers {
				servers[k] = v
			}
			certs := map[string]any{"default-a": exact, "default-wild": wild, "default-new": pemFor(t, "new", "new.example.com")}
			for k, v := range c.certs {
				certs[k] = v
			}
			body, err := json.Marshal(map[string]any{"servers": servers, "certificates": certs})
			if err != nil {
				t.Fatal(err)
			}
			code, out := e.api(t, http.MethodPost, "/configuration/servers", string(body))
			if code != http.StatusCreated || !strings.Contains(out, `"kind":"`+c.kind+`"`) || !strings.Contains(out, `"name":"`+c.dropID+`"`) ||
				!strings.Contains(out, `"kept":true`) {
				t.Errorf("%s: %d %q, want 201 naming %s %s, kept", c.name, code, out, c.kind, c.dropID)
			}
			for host, want := range map[string]string{"a.example.com": "exact", "x.wild.example.com": "wild", "new.example.com": "new"} {
				if cn, _ := e.served(t, host); cn != want {
					t.Errorf("%s: %s served %q, want %q", c.name, host, cn, want)
				}
			}
		}
		// A new certificate that does not parse is left out with its hosts:
		// they get the default certificate.
		body, err := json.Marshal(map[string]any{
			"servers":      map[string]string{"a.example.com": "default-a", "*.wild.example.com": "default-wild", "bad.example.com": "bad"},
			"certificates": map[string]string{"default-a": exact, "default-wild": wild, "bad": "not a pem"},
		})
		if err != nil {
			t.Fatal(err)
		}
		code, out := e.api(t, http.MethodPost, "/configuration/servers", string(body))
		if code != http.StatusCreated || !strings.Contains(out, `"name":"bad"`) || !strings.Contains(out, `"name":"bad.example.com"`) {
			t.Errorf("a new bad certificate: %d %q", code, out)
		}
		if cn, _ := e.served(t, "bad.example.com"); cn != DefaultCertificateCN {
			t.Errorf("host of a dropped certificate served %q", cn)
		}
		if cn, _ := e.served(t, "a.example.com"); cn != "exact" {
			t.Errorf("a.example.com beside a dropped certificate served %q", cn)
		}
		e.pushServers(t,
			map[string]string{"a.example.com": "default-a", "*.wild.example.com": "default-wild"},
			map[string]string{"default-a": exact, "default-wild": wild})
	})

	t.Run("a host left out falls back to the default", func(t *testing.T) {
		e.pushServers(t, map[string]string{"*.wild.example.com": "default-wild"}, map[string]string{"default-wild": wild})
		if cn, _ := e.served(t, "a.example.com"); cn != DefaultCertificateCN {
			t.Errorf("removed host: served %q", cn)
		}
		if code, _ := e.api(t, http.MethodGet, "/configuration/certs?hostname=a.example.com", ""); code != http.StatusNotFound {
			t.Errorf("certs of a removed host: %d", code)
		}
	})

	t.Run("a bad PEM falls back to the default", func(t *testing.T) {
		e.pushServers(t, map[string]string{"bad.example.com": "bad"}, map[string]string{"bad": "not a PEM"})
		if cn, _ := e.served(t, "bad.example.com"); cn != DefaultCertificateCN {
			t.Errorf("bad PEM: served %q", cn)
		}
	})

	t.Run("a new default certificate serves after a reload", func(t *testing.T) {
		cert, key, err := SelfSignedCertificate("new default", "ingress.local")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.in.WriteDefaultCertificate(cert, []byte(pemFor(t, "other key"))); err == nil {
			t.Fatal("WriteDefaultCertificate accepted a key of another certificate")
		}
		if err := e.in.WriteDefaultCertificate(cert, key); err != nil {
			t.Fatal(err)
		}
		e.pushServers(t, map[string]string{"*.wild.example.com": "default-wild"}, map[string]string{"default-wild": wild})
		if err := e.in.Reload(ctxFor(t, 20*time.Second), e.conf("")); err != nil {
			t.Fatal(err)
		}
		e.workers(t) // the old workers are gone
		if cn, _ := e.served(t, "b.example.com"); cn != "new default" {
			t.Errorf("default after reload: %q", cn)
		}
		if cn, _ := e.served(t, "x.wild.example.com"); cn != "wild" {
			t.Errorf("certificates pushed before the reload: served %q", cn)
		}
	})
}

// exactCertOnly returns the certificate block of pem without its key.
func exactCertOnly(t *testing.T, pem string) string {
	t.Helper()
	i := strings.Index(pem, "-----END CERTIFICATE-----")
	if i < 0 {
		t.Fatal("no certificate in the PEM")
	}
	return pem[:i+len("-----END CERTIFICATE-----")] + "\n"
}
